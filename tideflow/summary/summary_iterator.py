"""``tf.train.summary_iterator``: the ``Event`` protos of an event file, in order."""

from tideflow.framework.record_io import tf_record_iterator
from tideflow.protos import event_pb2


def summary_iterator(path):
    """Yields each ``Event`` of the event file at ``path`` (DataLossError on a corrupt record)."""
    for record in tf_record_iterator(path):
        yield event_pb2.Event.FromString(record)
