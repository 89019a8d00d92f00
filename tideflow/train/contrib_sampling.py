"""``tf.contrib.training``'s samplers: the queue-based ``rejection_sample`` (each example kept
with the probability a function of it gives) and ``stratified_sample`` (examples kept per class
so the batches follow ``target_probs``; the data's class proportions given as ``init_probs`` or
estimated from the labels seen so far), and the in-graph ``resample_at_rate`` (each row drawn a
Poisson(rate) number of times) and ``weighted_resample`` (rates proportional to weights over
their running mean).

Both build TF 1.x's two-queue pipeline: a ``batch`` of size one turns a batch of examples into
single examples, then ``maybe_batch`` keeps each with its acceptance probability (a uniform
draw below it) until ``batch_size`` examples are gathered; queue runners go to
``QUEUE_RUNNERS``."""

from tideflow.framework import dtypes, ops


def _tf():
    import tideflow

    return tideflow


def _convert_all(tensors):
    tf = _tf()
    if isinstance(tensors, ops.Tensor):
        raise TypeError("tensors must be a list of tensors, not a single Tensor: a graph "
                        "tensor is not iterable.")
    return [t if isinstance(t, ops.IndexedSlices | tf.SparseTensor) else ops.convert_to_tensor(t)
            for t in tensors]


def _unbatch(tensor_list, threads, capacity):
    """The examples of batched ``tensor_list``, one at a time, through a batch-of-one queue."""
    tf = _tf()
    batched = tf.train.batch(tensor_list, batch_size=1, num_threads=threads,
                             capacity=capacity, enqueue_many=True)
    if isinstance(batched, ops.Tensor):
        batched = [batched]
    return [tf.squeeze(x, [0]) for x in batched]


def rejection_sample(tensors, accept_prob_fn, batch_size, queue_threads=1, enqueue_many=False,
                     prebatch_capacity=16, prebatch_threads=1, runtime_checks=False,
                     name=None):
    """Batches of ``batch_size`` examples, each example of ``tensors`` kept with probability
    ``accept_prob_fn(example_tensors)`` (a scalar in [0, 1]); always a list of tensors."""
    tf = _tf()
    with tf.variable_scope(name, "rejection_sample", tensors):
        tensor_list = _convert_all(tensors)
        if enqueue_many:
            first = tensor_list[0].get_shape().with_rank_at_least(1)[0]
            for tensor in tensor_list:
                tensor.get_shape().with_rank_at_least(1)[0].assert_is_compatible_with(first)
            tensor_list = _unbatch(tensor_list, prebatch_threads, prebatch_capacity)
        cur_prob = accept_prob_fn(tensor_list)
        if runtime_checks:
            with ops.control_dependencies([tf.assert_less_equal(0.0, cur_prob),
                                           tf.assert_less_equal(cur_prob, 1.0)]):
                cur_prob = tf.identity(cur_prob, name="prob_with_checks")
        minibatch = tf.train.maybe_batch(tensor_list,
                                         keep_input=tf.random_uniform([]) < cur_prob,
                                         batch_size=batch_size, num_threads=queue_threads)
        if isinstance(minibatch, ops.Tensor):
            minibatch = [minibatch]
        return minibatch


def _estimate_data_distribution(labels, num_classes, smoothing_constant=10):
    """The class proportions of the labels seen so far (counts start at
    ``smoothing_constant``), as float32."""
    tf = _tf()
    if smoothing_constant <= 0:
        raise ValueError("smoothing_constant must be nonzero.")
    counts = tf.Variable([smoothing_constant] * num_classes, trainable=False,
                         name="class_count", dtype=dtypes.int64)
    seen = counts.assign_add(tf.reduce_sum(tf.one_hot(labels, num_classes,
                                                      dtype=dtypes.int64), 0))
    seen = seen + 0  # a snapshot: later updates by other threads do not change it
    return tf.cast(tf.truediv(seen, tf.reduce_sum(seen)), dtypes.float32)


def _verify_input(tensor_list, labels, probs_list):
    """Static checks of shapes and run-time checks of the probabilities (non-negative, sum 1)
    and the labels (integers in [0, num_classes), a positive batch matching the data)."""
    tf = _tf()
    checked = []
    for probs in probs_list:
        probs.get_shape().assert_is_fully_defined()
        probs.get_shape().assert_has_rank(1)
        total = tf.reduce_sum(probs)
        tol = 1e-6
        with ops.control_dependencies([tf.assert_non_negative(probs),
                                       tf.assert_less(total, 1.0 + tol),
                                       tf.assert_less(1.0 - tol, total)]):
            checked.append(tf.identity(probs))
    num_classes = checked[0].get_shape().num_elements()
    if any(p.get_shape().num_elements() != num_classes for p in checked):
        raise ValueError("Probability parameters must have the same length.")
    labels.get_shape().assert_has_rank(1)
    for tensor in tensor_list:
        shape = tensor.get_shape().with_rank_at_least(1)
        shape[0].assert_is_compatible_with(labels.get_shape()[0])
    batch = tf.shape(labels)[0]
    positive = tf.assert_positive(batch)
    with ops.control_dependencies([positive]):
        labels = tf.identity(labels)
    out = []
    for tensor in tensor_list:
        with ops.control_dependencies([positive, tf.assert_equal(tf.shape(tensor)[0], batch)]):
            out.append(tf.identity(tensor))
    with ops.control_dependencies([tf.assert_integer(labels), tf.assert_non_negative(labels),
                                   tf.assert_less(labels, tf.cast(num_classes, labels.dtype))]):
        labels = tf.identity(labels)
    return out, labels, checked


def _calculate_acceptance_probabilities(init_probs, target_probs):
    """``a_i = (t_i / p_i) / max_j(t_j / p_j)`` (0 where both are 0): the per-class
    acceptance rates that turn class proportions ``p`` into ``t``."""
    tf = _tf()
    ratio = target_probs / init_probs
    ratio = tf.where(tf.is_nan(ratio), tf.zeros_like(ratio), ratio)
    return ratio / tf.reduce_max(ratio)


def stratified_sample(tensors, labels, target_probs, batch_size, init_probs=None,
                      enqueue_many=False, queue_capacity=16, threads_per_queue=1, name=None):
    """``(data_batch, label_batch)``: batches whose classes follow ``target_probs``, made by
    keeping each example with its class's acceptance rate."""
    tf = _tf()
    with ops.name_scope(name, "stratified_sample", [*list(tensors), labels]):
        tensor_list = _convert_all(tensors)
        labels = ops.convert_to_tensor(labels)
        target_probs = ops.convert_to_tensor(target_probs, dtype=dtypes.float32)
        if not enqueue_many:
            tensor_list = [tf.expand_dims(t, 0) for t in tensor_list]
            labels = tf.expand_dims(labels, 0)
        if init_probs is None:
            target_probs.get_shape().assert_is_fully_defined()
            init_probs = _estimate_data_distribution(labels,
                                                     target_probs.get_shape().num_elements())
        else:
            init_probs = ops.convert_to_tensor(init_probs, dtype=dtypes.float32)
        tensor_list, labels, (init_probs, target_probs) = _verify_input(
            tensor_list, labels, [init_probs, target_probs])
        consistent = tf.Assert(
            tf.reduce_all(tf.logical_or(tf.not_equal(init_probs, 0),
                                        tf.equal(target_probs, 0))),
            [("All classes with zero initial probability must also have zero target "
              "probability: "), init_probs, target_probs])
        with ops.control_dependencies([consistent]):
            init_probs = tf.identity(init_probs)
        accept_probs = _calculate_acceptance_probabilities(init_probs, target_probs)
        rejected = tf.reduce_sum((1 - accept_probs) * init_probs)
        accept_probs = tf.cond(
            tf.less(rejected, 0.5), lambda: accept_probs,
            lambda: tf.Print(accept_probs, [accept_probs],
                             message="Proportion of examples rejected by sampler is high.",
                             first_n=10))
        singles = _unbatch([*tensor_list, labels], threads_per_queue, queue_capacity)
        vals, label = singles[:-1], singles[-1]
        batched = tf.train.maybe_batch(
            [*vals, label], keep_input=tf.random_uniform([]) < tf.gather(accept_probs, label),
            batch_size=batch_size, num_threads=threads_per_queue)
        return batched[:-1], batched[-1]


def _repeat_range(counts, name=None):
    """``i`` repeated ``counts[i]`` times, for each ``i`` in order (int32, [sum(counts)])."""
    tf = _tf()
    with ops.name_scope(name, "repeat_range", [counts]):
        counts = tf.reshape(ops.convert_to_tensor(counts, name="counts"), [-1])
        width = tf.maximum(tf.reduce_max(counts), 0)  # the max of no counts is 0
        rows = tf.range(tf.shape(counts)[0])
        grid = tf.tile(tf.expand_dims(rows, 1), tf.stack([1, width]))
        return tf.boolean_mask(grid, tf.sequence_mask(counts, width))


def resample_at_rate(inputs, rates, scope=None, seed=None, back_prop=False):
    """The rows of each of ``inputs``, each row ``i`` repeated a Poisson(``rates[i]``) number
    of times (the same draw for every input)."""
    tf = _tf()
    with ops.name_scope(scope, "resample_at_rate", [*list(inputs), rates]):
        rates = ops.convert_to_tensor(rates, name="rates")
        counts = tf.cast(tf.random_poisson(rates, (), rates.dtype, seed=seed), dtypes.int32)
        indices = _repeat_range(counts)
        if not back_prop:
            indices = tf.stop_gradient(indices)
        return [tf.gather(x, indices) for x in inputs]


def weighted_resample(inputs, weights, overall_rate, scope=None, mean_decay=0.999, seed=None):
    """``(resampled inputs, rates)``: rows drawn at rate ``weights * overall_rate / mean``,
    ``mean`` a debiased moving average of the batches' mean weight (a local variable)."""
    tf = _tf()
    from tideflow.train import moving_averages

    with ops.name_scope(scope, "weighted_resample", inputs) as opscope:
        with tf.variable_scope(scope, "estimate_mean", inputs):
            estimated_mean = tf.get_local_variable(
                "estimated_mean", initializer=tf.cast(0, weights.dtype), dtype=weights.dtype)
            mean = moving_averages.assign_moving_average(
                estimated_mean, tf.reduce_mean(weights), mean_decay)
        rates = weights * overall_rate / mean
        results = resample_at_rate([rates, *inputs], rates, scope=opscope, seed=seed)
        return results[1:], results[0]


__all__ = ["rejection_sample", "resample_at_rate", "stratified_sample", "weighted_resample"]
