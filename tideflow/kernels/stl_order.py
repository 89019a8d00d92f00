"""The orders TF 1.15's CPU TopK leaves behind: its gtl::TopN heap and std::sort, stepped as
libstdc++ steps them, for the cases a plain sort cannot reproduce (``sorted=False``, whose
order is the heap's, and rows holding NaNs, which compare neither way)."""

import numpy as np

# libstdc++'s insertion-sort threshold (_S_threshold)
_THRESHOLD = 16


# --- heap algorithms over a[base:base + length]; comp(x, y) orders x before y as "less" -----


def _push_heap(a, base, hole, top, value, comp):
    parent = (hole - 1) // 2
    while hole > top and comp(a[base + parent], value):
        a[base + hole] = a[base + parent]
        hole = parent
        parent = (hole - 1) // 2
    a[base + hole] = value


def _adjust_heap(a, base, hole, length, value, comp):
    top = child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if comp(a[base + child], a[base + child - 1]):
            child -= 1
        a[base + hole] = a[base + child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        a[base + hole] = a[base + child - 1]
        hole = child - 1
    _push_heap(a, base, hole, top, value, comp)


def _make_heap(a, base, length, comp):
    if length < 2:
        return
    parent = (length - 2) // 2
    while True:
        _adjust_heap(a, base, parent, length, a[base + parent], comp)
        if parent == 0:
            return
        parent -= 1


def _pop_heap(a, base, length, comp):
    if length > 1:
        last = length - 1
        value = a[base + last]
        a[base + last] = a[base]
        _adjust_heap(a, base, 0, last, value, comp)


def _sort_heap(a, base, length, comp):
    while length > 1:
        _pop_heap(a, base, length, comp)
        length -= 1


# --- std::sort (introsort, then insertion sort) ------------------------------------------


def _unguarded_linear_insert(a, last, comp):
    value = a[last]
    prev = last - 1
    while prev >= 0 and comp(value, a[prev]):
        a[last] = a[prev]
        last = prev
        prev -= 1
    a[last] = value


def _insertion_sort(a, first, last, comp):
    for i in range(first + 1, last):
        if comp(a[i], a[first]):
            value = a[i]
            a[first + 1:i + 1] = a[first:i]
            a[first] = value
        else:
            _unguarded_linear_insert(a, i, comp)


def _move_median_to_first(a, result, x, y, z, comp):
    if comp(a[x], a[y]):
        if comp(a[y], a[z]):
            pick = y
        elif comp(a[x], a[z]):
            pick = z
        else:
            pick = x
    elif comp(a[x], a[z]):
        pick = x
    elif comp(a[y], a[z]):
        pick = z
    else:
        pick = y
    a[result], a[pick] = a[pick], a[result]


def _unguarded_partition(a, first, last, pivot, comp):
    lo, hi = first, last
    while True:
        while first < hi and comp(a[first], a[pivot]):
            first += 1
        last -= 1
        while last > lo and comp(a[pivot], a[last]):
            last -= 1
        if not first < last:
            return first
        a[first], a[last] = a[last], a[first]
        first += 1


def _introsort_loop(a, first, last, depth, comp):
    while last - first > _THRESHOLD:
        if depth == 0:  # std::partial_sort of the whole range: a heap sort
            _make_heap(a, first, last - first, comp)
            _sort_heap(a, first, last - first, comp)
            return
        depth -= 1
        mid = first + (last - first) // 2
        _move_median_to_first(a, first, first + 1, mid, last - 1, comp)
        cut = _unguarded_partition(a, first + 1, last, first, comp)
        _introsort_loop(a, cut, last, depth, comp)
        last = cut


def std_sort(a, comp):
    """Sorts the list ``a`` in place as libstdc++'s std::sort with ``comp``."""
    n = len(a)
    if n < 2:
        return
    _introsort_loop(a, 0, n, 2 * (n.bit_length() - 1), comp)
    if n > _THRESHOLD:
        _insertion_sort(a, 0, _THRESHOLD, comp)
        for i in range(_THRESHOLD, n):
            _unguarded_linear_insert(a, i, comp)
    else:
        _insertion_sort(a, 0, n, comp)


# --- TF's TopK ----------------------------------------------------------------------------


def _candidates(values, k):
    """The columns a TopN of ``k`` can take in turn (a NaN-free row): all of the first k + 1,
    then those above the k-th largest value of every earlier block (an equal one loses to
    the earlier column); the others it drops without looking at its heap."""
    n = values.shape[0]
    block = 4 * (k + 1)  # doubling: the floor rises fastest at first
    keep = [np.arange(min(n, k + 1))]
    best = values[:k + 1]
    start = k + 1
    while start < n:
        stop = min(n, start + block)
        block *= 2
        chunk = values[start:stop]
        floor = np.partition(best, len(best) - k)[len(best) - k]
        keep.append(start + np.flatnonzero(chunk > floor))
        joined = np.concatenate([best, chunk])
        best = np.partition(joined, len(joined) - k)[len(joined) - k:]
        start = stop
    return np.concatenate(keep).tolist()


def top_k_row(values, k, sorted_):
    """The column indices TF 1.15's CPU TopK returns for one row (1-D ``values``,
    0 < k <= len(values), k > 1 or a NaN-free row): for k == n a std::sort by value then
    each run of equal values in column order; else its TopN heap of the columns with the
    stable order (larger value first, ties to the lower column), extracted by sort_heap or,
    unsorted, in the heap's own order."""
    n = values.shape[0]
    floats = values.dtype.kind not in "iub"
    if floats:
        values = values.astype(np.float64)
    v = values.tolist()

    if k == n:
        order = list(range(n))
        std_sort(order, lambda a, b: v[b] < v[a])
        out, i = [], 0
        while i < n:
            j = i + 1
            while j < n and v[order[j]] == v[order[i]]:
                j += 1
            out.extend(sorted(order[i:j]) if j - i > 1 else order[i:j])
            i = j
        return out

    def stable(a, b):
        if v[b] < v[a]:
            return True
        if v[b] > v[a]:
            return False
        return a < b

    nan = floats and bool(np.isnan(values).any())
    columns = range(n) if nan else _candidates(values, k)
    heap = []
    for c in columns:
        if len(heap) <= k:
            heap.append(c)
            if len(heap) == k + 1:
                _make_heap(heap, 0, k + 1, stable)
                _pop_heap(heap, 0, k + 1, stable)
        elif stable(c, heap[0]):
            # TF 1.15's TopN replaces its least element: the new one goes in the spare slot
            # past the heap and pop_heap swaps the two and sifts it down from the top
            heap[k] = c
            _pop_heap(heap, 0, k + 1, stable)
    heap = heap[:k]
    if sorted_:
        _sort_heap(heap, 0, k, stable)
    return heap
