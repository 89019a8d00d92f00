"""``tf.contrib.losses.metric_learning.cluster_loss`` (Song et al. 2017, facility location
with a structured margin). The discrete search of TF 1.x (greedy loss-augmented facility
location, then PAM refinement, clusterings scored by scikit-learn as TF does) runs in NumPy
over the graph's pairwise distances; the chosen medoids then index those distances in the
graph, so the loss's gradient is TF's."""

import numpy as np

from tideflow.framework import dtypes, ops
from tideflow.ops import (
    array_ops,
    concat_ops,
    gather_ops,
    logging_ops,
    math_ops,
    range_ops,
    reduction_ops,
    script_ops,
)


def _score(labels, predictions, margin_type):
    """The clustering agreement TF computes with scikit-learn, as float32."""
    from sklearn import metrics

    if margin_type == "nmi":
        value = metrics.normalized_mutual_info_score(labels, predictions)
    elif margin_type == "ami":
        value = max(0.0, metrics.adjusted_mutual_info_score(labels, predictions))
    elif margin_type == "ari":
        value = max(0.0, metrics.adjusted_rand_score(labels, predictions))
    elif margin_type == "vmeasure":
        value = max(0.0, metrics.v_measure_score(labels, predictions))
    else:  # const
        value = float(np.all(labels == predictions))
    return np.float32(value)


def _assign(pdist, centroid_ids):
    """Nearest centroid per point (first on ties); each centroid is its own cluster."""
    pred = np.argmin(pdist[centroid_ids], axis=0).astype(np.int64)
    pred[centroid_ids] = np.arange(len(centroid_ids))
    return pred


def _search(pdist, labels, margin, margin_type, pam):
    """TF 1.x's discrete search: returns (chosen ids, predictions, clustering score)."""
    n = pdist.shape[0]
    m = np.float32(margin)
    num_classes = len(np.unique(labels))
    chosen = []
    for _ in range(num_classes):
        candidates = np.array([i for i in range(n) if i not in chosen], np.int64)
        best = np.min(pdist[chosen], axis=0) if chosen else np.full(n, np.inf, np.float32)
        scores = -np.minimum(pdist[candidates], best[None]).sum(axis=1, dtype=np.float32)
        margins = np.array([1.0 - _score(labels, _assign(pdist, chosen + [c]), margin_type)
                            for c in candidates], np.float32)
        chosen.append(int(candidates[np.argmax(scores + m * margins)]))
    if pam:
        for _ in range(5):
            pred = _assign(pdist, chosen)
            for k in range(num_classes):
                members = np.flatnonzero(pred == k)
                if members.size == 0:
                    continue
                fac = -pdist[np.ix_(members, members)].sum(axis=0, dtype=np.float32)
                margins = []
                for c in members:
                    trial = list(chosen)
                    trial[k] = int(c)
                    margins.append(1.0 - _score(labels, _assign(pdist, trial), margin_type))
                chosen[k] = int(members[np.argmax(fac + m * np.array(margins, np.float32))])
    pred = _assign(pdist, chosen)
    return (np.array(chosen, np.int64), pred, _score(labels, pred, margin_type))


def _gt_medoids(pdist, labels):
    """Per class (in order of first appearance): the member whose summed distance to the
    class is smallest (TF's ground-truth facility score picks it by reduce_min)."""
    _, first = np.unique(labels, return_index=True)
    out = []
    for cls in labels[np.sort(first)]:
        members = np.flatnonzero(labels == cls)
        out.append(members[np.argmin(pdist[np.ix_(members, members)].sum(axis=0,
                                                                         dtype=np.float32))])
    return np.array(out, np.int64)


def cluster_loss(labels, embeddings, margin_multiplier, enable_pam_finetuning=True,
                 margin_type="nmi", print_losses=False):
    """The structured clustering loss: the facility-location energy of the loss-augmented
    medoids plus ``margin_multiplier`` * (1 - clustering score), minus the ground truth's
    energy, hinged at zero. Needs scikit-learn, as TF's does."""
    from tideflow.contrib_misc import pairwise_distance
    from tideflow.summary import summary

    try:
        import sklearn  # noqa: F401
    except ImportError:
        raise ImportError("Cluster loss depends on sklearn.") from None
    if margin_type not in ("nmi", "ami", "ari", "vmeasure", "const"):
        raise ValueError(f"Unrecognized margin_type: {margin_type}")
    pdist = pairwise_distance(embeddings)
    labels = array_ops.squeeze(ops.convert_to_tensor(labels))

    def search(d, lab):
        return _search(d, lab, margin_multiplier, margin_type, enable_pam_finetuning)

    chosen, _, score = script_ops.py_func(search, [pdist, labels],
                                          [dtypes.int64, dtypes.int64, dtypes.float32],
                                          stateful=False, name="facility_search")
    medoids = script_ops.py_func(_gt_medoids, [pdist, labels], dtypes.int64, stateful=False,
                                 name="ground_truth_medoids")
    score.set_shape([])
    score_pred = -reduction_ops.reduce_sum(reduction_ops.reduce_min(
        gather_ops.gather(pdist, chosen), axis=0))
    # each point's class medoid: the distances that make up the ground truth's energy
    _, class_index = gather_ops.unique(labels)
    point_medoid = gather_ops.gather(medoids, class_index)
    n = array_ops.shape(pdist)[0]
    pairs = concat_ops.stack([range_ops.range(n, dtype=dtypes.int64), point_medoid], axis=1)
    score_gt = -reduction_ops.reduce_sum(gather_ops.gather_nd(pdist, pairs))
    loss = math_ops.maximum(score_pred + margin_multiplier * (1.0 - score) - score_gt, 0.0,
                            name="clustering_loss")
    loss.set_shape([])
    if print_losses:
        loss = logging_ops.Print(loss, ["clustering_loss: ", loss, array_ops.shape(loss)])
    summary.scalar("losses/score_pred", score_pred)
    summary.scalar("losses/" + margin_type, score)
    summary.scalar("losses/score_gt", score_gt)
    return loss
