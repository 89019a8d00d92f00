"""Input for replicas: a dataset's global batches split over the replicas
(``experimental_distribute_dataset``), or one element per replica (``make_input_fn_iterator``)."""

from tideflow.distribute.values import PerReplica
from tideflow.framework import nest, ops


class InputContext:
    """What an ``input_fn`` is told: the number of input pipelines, which one it builds, and
    the number of replicas in sync."""

    def __init__(self, num_input_pipelines=1, input_pipeline_id=0, num_replicas_in_sync=1):
        self._num_input_pipelines = num_input_pipelines
        self._input_pipeline_id = input_pipeline_id
        self._num_replicas_in_sync = num_replicas_in_sync

    num_input_pipelines = property(lambda self: self._num_input_pipelines)
    input_pipeline_id = property(lambda self: self._input_pipeline_id)
    num_replicas_in_sync = property(lambda self: self._num_replicas_in_sync)

    def get_per_replica_batch_size(self, global_batch_size):
        if global_batch_size % self._num_replicas_in_sync != 0:
            raise ValueError(f"The `global_batch_size` {global_batch_size} is not divisible by "
                             f"`num_replicas_in_sync` {self._num_replicas_in_sync}")
        return global_batch_size // self._num_replicas_in_sync


def _split(t, i, n):
    """Replica ``i``'s rows of the batch ``t``: consecutive slices of ceil(batch / n) rows."""
    from tideflow.ops import array_ops, math_ops

    if n == 1:
        return t  # (TF 1.15 hands one replica the iterator's element itself: no op)
    b = array_ops.shape(t, out_type="int32")[0]
    chunk = (b + (n - 1)) // n
    start = math_ops.minimum(i * chunk, b)
    stop = math_ops.minimum((i + 1) * chunk, b)
    return t[start:stop]


class DistributedIterator:
    """An iterator over a dataset whose ``get_next()`` is a ``PerReplica`` of batch slices."""

    def __init__(self, iterator, strategy, split=True, initializable=False):
        self._iterator = iterator
        self._strategy = strategy
        self._split = split
        self._worker_init = None
        if initializable:
            from tideflow.ops import control_flow_ops

            # as TF 1.15's: the worker's (multi-device) iterator has its initializer grouped
            # when it is made ("group_deps")
            self._worker_init = control_flow_ops.group(iterator.initializer)

    @property
    def initializer(self):
        return self.initialize()

    def initialize(self):
        """The op that (re)starts the iterator: as TF 1.15's DistributedIteratorV1, a new
        group of the workers' initializers at each call."""
        if self._worker_init is None:
            return self._iterator.initializer
        from tideflow.ops import control_flow_ops

        return control_flow_ops.group([self._worker_init])

    output_types = property(lambda self: self._iterator.output_types)
    output_shapes = property(lambda self: self._iterator.output_shapes)
    output_classes = property(lambda self: self._iterator.output_classes)

    @property
    def element_spec(self):
        return getattr(self._iterator, "element_spec", None)

    def get_next(self, name=None):
        devices = self._strategy.extended.worker_devices
        n = len(devices)
        if not self._split:
            # each replica takes an element where the iterator lives, then on its device
            from tideflow.ops import array_ops

            parts = []
            for d in devices:
                element = self._iterator.get_next()
                with ops.device(d):
                    parts.append(nest.map_structure(array_ops.identity, element))
        else:
            element = self._iterator.get_next()
            parts = []
            for i, d in enumerate(devices):
                with ops.device(d):
                    parts.append(nest.map_structure(lambda t, i=i: _split(t, i, n), element))
        if n == 1:
            return parts[0]
        flats = [nest.flatten(p) for p in parts]
        return nest.pack_sequence_as(parts[0], [PerReplica(x) for x in zip(*flats)])

    next = get_next


class DistributedDataset:
    """``strategy.experimental_distribute_dataset(dataset)``: iterators whose elements are
    split over the replicas."""

    def __init__(self, dataset, strategy, split=True):
        self._dataset = dataset
        self._strategy = strategy
        self._split = split

    def _make_iterator(self, initializable):
        it = (self._dataset.make_initializable_iterator() if initializable
              else self._dataset.make_one_shot_iterator())
        return DistributedIterator(it, self._strategy, split=self._split,
                                   initializable=initializable)

    def make_initializable_iterator(self):
        return self._make_iterator(True)

    def make_one_shot_iterator(self):
        return self._make_iterator(False)

    @property
    def element_spec(self):
        return getattr(self._dataset, "element_spec", None)

    def __iter__(self):
        raise RuntimeError("__iter__() is only supported inside of tf.function or when eager "
                           "execution is enabled; in graph mode use "
                           "make_initializable_iterator() or make_one_shot_iterator().")


class InputFunctionDataset(DistributedDataset):
    """A dataset from an ``input_fn``: each replica takes whole elements."""

    def __init__(self, dataset, strategy):
        super().__init__(dataset, strategy, split=False)


def InputFunctionIterator(dataset, strategy):
    """The iterator of ``make_input_fn_iterator``: each replica takes its own element."""
    return InputFunctionDataset(dataset, strategy)._make_iterator(initializable=True)
