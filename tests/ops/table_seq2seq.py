"""Op-table rows for GatherTree (``tf.contrib.seq2seq.gather_tree``), checked against a
per-beam loop that follows the parent pointers back from each entry's last step."""

import numpy as np

import tideflow as tf
from tests.ops.optable import Case
from tideflow.ops.seq2seq_beam_search import gather_tree


def _ref_gather_tree(step_ids, parent_ids, max_sequence_lengths, end_token):
    max_time, batch, beam_width = step_ids.shape
    end = int(end_token)
    out = np.full(step_ids.shape, end, step_ids.dtype)
    for b in range(batch):
        length = min(max_time, int(max_sequence_lengths[b]))
        for w in range(beam_width):
            if length <= 0:
                continue
            out[length - 1, b, w] = step_ids[length - 1, b, w]
            parent = parent_ids[length - 1, b, w]
            for t in range(length - 2, -1, -1):
                out[t, b, w] = step_ids[t, b, parent]
                parent = parent_ids[t, b, parent]
            done = False
            for t in range(length):
                if done:
                    out[t, b, w] = end
                elif out[t, b, w] == end:
                    done = True
    return out


_rs = np.random.RandomState(3)
_steps = _rs.randint(0, 6, size=(5, 3, 4))
_parents = _rs.randint(0, 4, size=(5, 3, 4))

CASES = [
    Case("GatherTree", gather_tree,
         [_steps, _parents, np.array([5, 3, 0]), np.array(0)], _ref_gather_tree,
         dtypes=(tf.int32,), grad=False),
    Case("GatherTree", gather_tree,
         [np.array([[[2, 2, 3]], [[1, 7, 4]], [[9, 8, 7]]]),
          np.array([[[0, 0, 0]], [[1, 2, 0]], [[2, 1, 1]]]), np.array([7]), np.array(7)],
         _ref_gather_tree, dtypes=(tf.int32,), grad=False, name="GatherTree_end_in_beam"),
]
