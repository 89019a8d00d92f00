"""Non-max suppression variants: NonMaxSuppressionV4 (padded), V5 (scores, soft-NMS),
WithOverlaps and CombinedNonMaxSuppression, on TF's candidate-queue greedy algorithm."""

import collections
import heapq

import numpy as np

from tideflow.framework import dtypes, op_registry, ops
from tideflow.framework.tensor_shape import TensorShape
from tideflow.ops.array_ops import _check_rank, _invalid, _np, _shape_str, dim_for_scalar_input

# ------------------------------------------------------------------------------------------
# non-max suppression: V4 (padded), V5 (scores, soft-NMS), with overlaps, combined
# ------------------------------------------------------------------------------------------


def c_min(a, b):
    """C++'s std::min(a, b): ``b < a ? b : a`` (a NaN in ``b`` gives ``a``; NumPy's minimum
    gives the NaN)."""
    return np.where(b < a, b, a)


def c_max(a, b):
    """C++'s std::max(a, b): ``a < b ? b : a``."""
    return np.where(a < b, b, a)


def _iou_matrix(boxes):
    # in the boxes' own float type, as TF's kernel: a tie with the threshold falls as in TF;
    # its std::min/max, so a NaN coordinate gives the IoU TF's does
    b = boxes if boxes.dtype in (np.float16, np.float32) else boxes.astype(np.float32)
    y0, y1 = c_min(b[:, 0], b[:, 2]), c_max(b[:, 0], b[:, 2])
    x0, x1 = c_min(b[:, 1], b[:, 3]), c_max(b[:, 1], b[:, 3])
    area = (y1 - y0) * (x1 - x0)
    zero = b.dtype.type(0)
    ih = c_max(c_min(y1[:, None], y1[None]) - c_max(y0[:, None], y0[None]), zero)
    iw = c_max(c_min(x1[:, None], x1[None]) - c_max(x0[:, None], x0[None]), zero)
    inter = ih * iw
    with np.errstate(invalid="ignore", divide="ignore"):
        iou = inter / (area[:, None] + area[None] - inter)
    return np.where((area[:, None] <= 0) | (area[None] <= 0), 0.0, iou)


class _CandidateQueue:
    """TF's std::priority_queue of candidates (max score on top), with libstdc++'s heap
    algorithms, so candidates of equal score come out in TF's order. Entries are
    [score, index, begin]."""

    def __init__(self):
        self.c = []

    def _sift_up(self, hole, top, value):
        c = self.c
        parent = (hole - 1) // 2
        while hole > top and c[parent][0] < value[0]:
            c[hole] = c[parent]
            hole = parent
            parent = (hole - 1) // 2
        c[hole] = value

    def push(self, value):
        self.c.append(value)
        self._sift_up(len(self.c) - 1, 0, value)

    def pop(self):
        c = self.c
        top = c[0]
        value = c.pop()
        n = len(c)
        if n:
            # libstdc++'s __adjust_heap: the hole goes down to a leaf, then value sifts up
            hole = second = 0
            while second < (n - 1) // 2:
                second = 2 * (second + 1)
                if c[second][0] < c[second - 1][0]:
                    second -= 1
                c[hole] = c[second]
                hole = second
            if n % 2 == 0 and second == (n - 2) // 2:
                second = 2 * (second + 1)
                c[hole] = c[second - 1]
                hole = second - 1
            self._sift_up(hole, 0, value)
        return top

    def __bool__(self):
        return bool(self.c)


class _UntiedQueue:
    """The same queue on heapq, for scores that do not repeat (their order is the same)."""

    def __init__(self):
        self.c = []

    def push(self, value):
        heapq.heappush(self.c, (-value[0], value[1], value[2]))

    def pop(self):
        score, i, begin = heapq.heappop(self.c)
        return [-score, i, begin]

    def __bool__(self):
        return bool(self.c)


def _greedy_nms(sim, scores, max_out, threshold, score_threshold, soft_sigma=0.0):
    """TF's candidate-queue NMS over a similarity matrix (or a function of two indices);
    returns (indices, scores)."""
    if not callable(sim):
        sim = sim.__getitem__
    is_soft = soft_sigma > 0
    scores = np.asarray(scores)
    # soft weights in the scores' type, as TF's kernel; its float exp is glibc's expf, nearly
    # always the correctly rounded value (NumPy's float32 exp is often an ulp off): exp in
    # double, rounded (900 soft-NMS scores: 898 equal TF 1.15's, 2 one ulp off)
    t = scores.dtype.type
    scale = t(-0.5) / t(soft_sigma) if is_soft else 0.0
    queue = _UntiedQueue() if len(np.unique(scores)) == len(scores) else _CandidateQueue()
    for i, s in enumerate(scores):
        if s > score_threshold:
            queue.push([float(s), i, 0])
    selected, sel_scores = [], []
    if max_out < 0:
        max_out = len(scores)
    while len(selected) < max_out and queue:
        score, i, begin = queue.pop()
        original = score
        hard = False
        for j in range(len(selected) - 1, begin - 1, -1):
            s = sim((i, selected[j]))
            # TF's order: the soft weight first, then a similarity at or over the threshold
            # suppresses outright (soft NMS too)
            if is_soft:
                w = t(np.float32(np.exp(float(scale * t(s) * t(s))))) if s <= threshold else t(0)
                score = float(t(score) * w)
            elif not s <= threshold:
                # (TF weighs hard NMS too: 0 past the threshold, so a NaN IoU, which does not
                # suppress, zeroes the score and the candidate waits in the queue at 0)
                score = float(t(score) * t(0))
            if s >= threshold:
                hard = True
                break
            if score <= score_threshold:
                break
        begin = len(selected)
        if hard:
            continue
        if score == original:
            selected.append(i)
            sel_scores.append(score)
        if score > score_threshold:
            # (TF pushes back a candidate it selected too; it is the smaller score's turn
            # only after the others, and a selected one compares with itself: IoU 1)
            queue.push([score, i, begin])
    return selected, sel_scores


def _scalar(x, what):
    a = _np(x)
    if a.ndim:
        raise _invalid(f"{what} must be 0-D, got shape {_shape_str(a.shape)}")
    return a


def _check_iou(t):
    t = float(_scalar(t, "iou_threshold"))
    if not 0 <= t <= 1:
        raise _invalid("iou_threshold must be in [0, 1]")
    return t


def nms_inputs(boxes, scores, max_output_size, iou_threshold=None, score_threshold=None,
               soft_nms_sigma=None, overlaps=False):
    """TF 1.15's NMS kernels' input checks, in their order and words: returns the boxes (or
    overlaps), scores, max_output_size, thresholds and sigma. TF compares the selection's size
    with max_output_size unsigned, so a negative one selects without limit (-1 here)."""
    m = int(_scalar(max_output_size, "max_output_size"))
    if overlaps:
        iou_threshold = float(_scalar(iou_threshold, "overlap_threshold"))
    elif iou_threshold is not None:
        iou_threshold = _check_iou(iou_threshold)
    if score_threshold is not None:
        score_threshold = _scalar(score_threshold, "score_threshold")
    if soft_nms_sigma is not None:
        soft_nms_sigma = float(_scalar(soft_nms_sigma, "soft_nms_sigma"))
        if soft_nms_sigma < 0:
            raise _invalid("soft_nms_sigma_val must be >= 0")
    b = _np(boxes)
    if overlaps:
        if b.ndim != 2:
            raise _invalid(f"overlaps must be 2-D{_shape_str(b.shape)}")
        if b.shape[1] != b.shape[0]:
            raise _invalid(f"overlaps must be square{_shape_str(b.shape)}")
    else:
        if b.ndim != 2:
            raise _invalid(f"boxes must be 2-D{_shape_str(b.shape)}")
        if b.shape[1] != 4:
            raise _invalid("boxes must have 4 columns")
    s = _np(scores)
    if s.ndim != 1:
        raise _invalid(f"scores must be 1-D{_shape_str(s.shape)}")
    if s.shape[0] != b.shape[0]:
        raise _invalid("scores has incompatible shape")
    return b, s, m if m >= 0 else -1, iou_threshold, score_threshold, soft_nms_sigma


def _pad_to(values, n, dtype):
    out = np.zeros(n, dtype)
    out[:len(values)] = values
    return out


def _nms_v4_kernel(boxes, scores, max_output_size, iou_threshold, score_threshold, *,
                   pad_to_max_output_size):
    b, s, m, t, st, _ = nms_inputs(boxes, scores, max_output_size, iou_threshold,
                                   score_threshold)
    if m < 0 and pad_to_max_output_size:
        raise _invalid("NonMaxSuppressionV4: max_output_size must be non-negative")
    sel, _ = _greedy_nms(_iou_matrix(b), s.astype(np.float32), m, t, float(np.float32(st)))
    n = len(sel)
    idx = _pad_to(sel, m, np.int32) if pad_to_max_output_size else np.array(sel, np.int32)
    return idx, np.int32(n)


def _nms_v5_kernel(boxes, scores, max_output_size, iou_threshold, score_threshold,
                   soft_nms_sigma, *, pad_to_max_output_size):
    b, s, m, t, st, sigma = nms_inputs(boxes, scores, max_output_size, iou_threshold,
                                       score_threshold, soft_nms_sigma)
    if m < 0 and pad_to_max_output_size:
        raise _invalid("NonMaxSuppressionV5: max_output_size must be non-negative")
    st = float(np.asarray(st, s.dtype))
    sel, sc = _greedy_nms(_iou_matrix(b), s, m, t, st, sigma)
    n = len(sel)
    if pad_to_max_output_size:
        return _pad_to(sel, m, np.int32), _pad_to(sc, m, s.dtype), np.int32(n)
    return np.array(sel, np.int32), np.array(sc, s.dtype), np.int32(n)


def _nms_overlaps_kernel(overlaps, scores, max_output_size, overlap_threshold,
                         score_threshold):
    o, s, m, t, st, _ = nms_inputs(overlaps, scores, max_output_size, overlap_threshold,
                                   score_threshold, overlaps=True)
    sel, _ = _greedy_nms(o.astype(np.float32), s.astype(np.float32), m,
                         float(np.float32(t)), float(np.float32(st)))
    return np.array(sel, np.int32)


def _nms_shape(n_outputs, padded_scores=False):
    def shape(op):
        # TF 1.15's NMSShapeFn: every input's rank, then the dimensions
        from tideflow.ops.image_ops import check_nms_boxes

        for i, t in enumerate(op._inputs):
            _check_rank(t._shape, 2 if i == 0 else 1 if i == 1 else 0)
        overlaps = op.type == "NonMaxSuppressionWithOverlaps"
        check_nms_boxes(op._inputs[0]._shape, op._inputs[1]._shape,
                        None if overlaps else 4)
        n = None
        if op._attrs.get("pad_to_max_output_size"):
            v = ops.constant_value(op._inputs[2])
            n = None if v is None else int(v)
        outs = [TensorShape([n])]
        if padded_scores:
            outs.append(TensorShape([n]))
        if n_outputs > len(outs):
            outs.append(TensorShape([]))
        return outs

    return shape


op_registry.declare(
    "NonMaxSuppressionV4",
    inputs=["boxes: T", "scores: T", "max_output_size: int32", "iou_threshold: T_threshold",
            "score_threshold: T_threshold"],
    outputs=["selected_indices: int32", "valid_outputs: int32"],
    attrs=["T: {half, float} = DT_FLOAT", "T_threshold: {half, float} = DT_FLOAT",
           "pad_to_max_output_size: bool = false"],
    shape=_nms_shape(2), kernel=_nms_v4_kernel, differentiable=False)
op_registry.declare(
    "NonMaxSuppressionV5",
    inputs=["boxes: T", "scores: T", "max_output_size: int32", "iou_threshold: T",
            "score_threshold: T", "soft_nms_sigma: T"],
    outputs=["selected_indices: int32", "selected_scores: T", "valid_outputs: int32"],
    attrs=["T: {half, float} = DT_FLOAT", "pad_to_max_output_size: bool = false"],
    shape=_nms_shape(3, True), kernel=_nms_v5_kernel, differentiable=False)
op_registry.declare(
    "NonMaxSuppressionWithOverlaps",
    inputs=["overlaps: float", "scores: float", "max_output_size: int32",
            "overlap_threshold: float", "score_threshold: float"],
    outputs=["selected_indices: int32"],
    shape=_nms_shape(1), kernel=_nms_overlaps_kernel, differentiable=False)


def _combined_kernel(boxes, scores, max_output_size_per_class, max_total_size, iou_threshold,
                     score_threshold, *, pad_per_class, clip_boxes):
    # TF 1.15's checks, in its order and words
    bx = _np(boxes).astype(np.float32)
    sc = _np(scores).astype(np.float32)
    if bx.ndim and sc.ndim and bx.shape[0] != sc.shape[0]:
        raise _invalid("boxes and scores must have same batch size")
    per_class = int(_scalar(max_output_size_per_class, "max_size_per_class"))
    total = int(_scalar(max_total_size, "max_total_size"))
    if total <= 0:
        raise _invalid("max_total_size must be > 0")
    _scalar(iou_threshold, "iou_threshold")
    _scalar(score_threshold, "score_threshold")
    iou_t = _check_iou(iou_threshold)
    num_classes = sc.shape[2] if sc.ndim == 3 else None
    if bx.ndim != 4:
        raise _invalid(f"boxes must be 4-D{_shape_str(bx.shape)}")
    if bx.shape[2] not in (1, num_classes):
        raise _invalid("third dimension of boxes must be either 1 or num classes")
    if bx.shape[3] != 4:
        raise _invalid("boxes must have 4 columns")
    if sc.ndim != 3:
        raise _invalid(f"scores must be 3-D{_shape_str(sc.shape)}")
    if sc.shape[1] != bx.shape[1]:
        raise _invalid("scores has incompatible shape")
    batch, _, q, _ = bx.shape
    per_class = max(per_class, 0)  # (TF's loop selects nothing for a negative size)
    st = float(np.float32(_np(score_threshold)))
    size = min(total, per_class * num_classes) if pad_per_class else total
    out_boxes = np.zeros((batch, size, 4), np.float32)
    out_scores = np.zeros((batch, size), np.float32)
    out_classes = np.zeros((batch, size), np.float32)
    valid = np.zeros(batch, np.int32)
    for b in range(batch):
        found = []
        for c in range(num_classes):
            cb = bx[b, :, 0 if q == 1 else c]
            sel, ss = _greedy_nms(_iou_matrix(cb), sc[b, :, c], per_class, iou_t, st)
            found += [(s, c, cb[i]) for i, s in zip(sel, ss)]
        found.sort(key=lambda r: -r[0])
        found = found[:size]
        valid[b] = len(found)
        for k, (s, c, box) in enumerate(found):
            out_boxes[b, k] = np.clip(box, 0, 1) if clip_boxes else box
            out_scores[b, k] = s
            out_classes[b, k] = c
    return out_boxes, out_scores, out_classes, valid


def _combined_shape(op):
    # TF 1.15's shape function: ranks, batch and anchors merged, 4 columns, q 1 or classes
    b, s = op._inputs[0]._shape, op._inputs[1]._shape
    for i, t in enumerate(op._inputs):
        _check_rank(t._shape, (4, 3)[i] if i < 2 else 0)
    if b.ndims and s.ndims:
        for j in (0, 1):
            x, y = b.dims[j].value, s.dims[j].value
            if x is not None and y is not None and x != y:
                raise ValueError(f"Dimensions must be equal, but are {x} and {y}")
    if b.ndims and b.dims[3].value not in (None, 4):
        raise ValueError(f"Dimension must be 4 but is {b.dims[3].value}")
    if b.ndims and s.ndims and None not in (b.dims[2].value, s.dims[2].value) and \
            b.dims[2].value not in (1, s.dims[2].value):
        raise ValueError("third dimension of boxes must be either 1 or equal to the third "
                         "dimension of scores")
    batch = b.dims[0].value if b.ndims else None
    total = dim_for_scalar_input(op, 3)
    if total is not None and total <= 0:
        raise ValueError("max_total_size should be > 0 ")
    per = dim_for_scalar_input(op, 2)
    size = -1 if total is None else total
    if op._attrs["pad_per_class"]:
        if per is not None and per <= 0:
            raise ValueError("max_output_size_per_class must be > 0 if pad_per_class is set "
                             "to true ")
        # TF multiplies the values with -1 for unknown ones (an unknown class count makes a
        # negative size, which TF's MakeShape refuses)
        nc = s.dims[2].value if s.ndims == 3 and s.dims[2].value is not None else -1
        size = min(size, (-1 if per is None else per) * nc)
    if size < -1:
        # TF's C++ keeps the negative dimension; Python's TensorShape refuses it, naming no
        # op (the shape refiner's passes without the inputs' values do not fail)
        if op._graph._thread_local.shape_gate is None:
            raise ops.shape_tensor_error(f"Dimension {size} must be >= 0")
        size = -1
    size = None if size == -1 else size
    return [TensorShape([batch, size, 4]), TensorShape([batch, size]),
            TensorShape([batch, size]), TensorShape([batch])]


op_registry.declare(
    "CombinedNonMaxSuppression",
    inputs=["boxes: float", "scores: float", "max_output_size_per_class: int32",
            "max_total_size: int32", "iou_threshold: float", "score_threshold: float"],
    outputs=["nmsed_boxes: float", "nmsed_scores: float", "nmsed_classes: float",
             "valid_detections: int32"],
    attrs=["pad_per_class: bool = false", "clip_boxes: bool = true"],
    shape=_combined_shape, kernel=_combined_kernel, differentiable=False)


def _f32(x, name):
    return ops.convert_to_tensor(x, dtypes.float32, name=name)


def non_max_suppression_with_scores(boxes, scores, max_output_size, iou_threshold=0.5,
                                    score_threshold=float("-inf"), soft_nms_sigma=0.0,
                                    name=None):
    """Greedy (or, with ``soft_nms_sigma > 0``, Gaussian soft) NMS; returns the kept indices
    and their (possibly decayed) scores."""
    with ops.name_scope(name, "non_max_suppression_with_scores"):
        # as TF: the three scalars become tensors of their own dtype first, then the op
        # types boxes/scores/thresholds together (a float16 box set with Python-float
        # thresholds, or an int sigma, is a TypeError naming the mismatched input)
        iou = ops.convert_to_tensor(iou_threshold, name="iou_threshold")
        score = ops.convert_to_tensor(score_threshold, name="score_threshold")
        sigma = ops.convert_to_tensor(soft_nms_sigma, name="soft_nms_sigma")
        idx, sc, _ = ops.apply_op("NonMaxSuppressionV5", [
            boxes, scores, max_output_size, iou, score, sigma],
            {"pad_to_max_output_size": False})._outputs
        return idx, sc


def non_max_suppression_padded(boxes, scores, max_output_size, iou_threshold=0.5,
                               score_threshold=float("-inf"), pad_to_max_output_size=False,
                               name=None, sorted_input=False, canonicalized_coordinates=False,
                               tile_size=512):
    """Greedy NMS returning ``(selected_indices, valid_outputs)``; with
    ``pad_to_max_output_size`` the indices are zero-padded to ``max_output_size``."""
    del sorted_input, canonicalized_coordinates, tile_size
    with ops.name_scope(name, "non_max_suppression_padded"):
        # as TF: the thresholds first, then the op's own inputs (boxes must be [n, 4])
        iou = _f32(iou_threshold, "iou_threshold")
        score = _f32(score_threshold, "score_threshold")
        idx, n = ops.apply_op("NonMaxSuppressionV4", [boxes, scores, max_output_size, iou, score],
                              {"pad_to_max_output_size": pad_to_max_output_size})._outputs
        return NonMaxSuppressionV4Output(idx, n)  # (the op's namedtuple, as TF returns it)


NonMaxSuppressionV4Output = collections.namedtuple(
    "NonMaxSuppressionV4", ["selected_indices", "valid_outputs"])


def non_max_suppression_overlaps(overlaps, scores, max_output_size, overlap_threshold=0.5,
                                 score_threshold=float("-inf"), name=None):
    """Greedy NMS driven by a precomputed ``[n, n]`` overlap matrix."""
    with ops.name_scope(name, "non_max_suppression_overlaps"):
        # as TF: overlap_threshold becomes a tensor first, a Python score_threshold the
        # op's own constant (after max_output_size's)
        threshold = _f32(overlap_threshold, "overlap_threshold")
        return ops.apply_op("NonMaxSuppressionWithOverlaps", [
            overlaps, scores, max_output_size, threshold, score_threshold])._outputs[0]


def combined_non_max_suppression(boxes, scores, max_output_size_per_class, max_total_size,
                                 iou_threshold=0.5, score_threshold=float("-inf"),
                                 pad_per_class=False, clip_boxes=True, name=None):
    """Per-class greedy NMS over a batch, merged across classes by score; returns
    ``(nmsed_boxes, nmsed_scores, nmsed_classes, valid_detections)``."""
    with ops.name_scope(name, "combined_non_max_suppression"):
        return _CombinedNonMaxSuppression(*ops.apply_op("CombinedNonMaxSuppression", [
            boxes, scores, max_output_size_per_class, max_total_size,
            _f32(iou_threshold, "iou_threshold"), _f32(score_threshold, "score_threshold")],
            {"pad_per_class": pad_per_class, "clip_boxes": clip_boxes})._outputs)


# TF's generated namedtuple: detectors read `.nmsed_boxes` etc.
_CombinedNonMaxSuppression = collections.namedtuple(
    "CombinedNonMaxSuppression",
    ["nmsed_boxes", "nmsed_scores", "nmsed_classes", "valid_detections"])


