"""``tensorflow.python.ops.resources``: the RESOURCES / LOCAL_RESOURCES collections of
resources created outside variables, and their initialization.

tideflow keeps its stateful structures (tensor forests, tables) in variables or initialized
tables, so these collections hold only what a program registers itself."""

import collections

from tideflow.framework import ops

_Resource = collections.namedtuple("_Resource", ["handle", "create", "is_initialized"])


def register_resource(handle, create_op, is_initialized_op, is_shared=True):
    """Files a resource (its handle, creating op and is-initialized tensor) in
    RESOURCES (or LOCAL_RESOURCES when ``is_shared`` is false)."""
    key = ops.GraphKeys.RESOURCES if is_shared else ops.GraphKeys.LOCAL_RESOURCES
    ops.add_to_collection(key, _Resource(handle, create_op, is_initialized_op))


def shared_resources():
    """The resources of the RESOURCES collection."""
    return ops.get_collection(ops.GraphKeys.RESOURCES)


def local_resources():
    """The resources of the LOCAL_RESOURCES collection."""
    return ops.get_collection(ops.GraphKeys.LOCAL_RESOURCES)


def initialize_resources(resource_list, name="init"):
    """An op running the creating ops of ``resource_list`` (a no-op when it is empty)."""
    import tideflow as tf

    if resource_list:
        return tf.group(*[r.create for r in resource_list], name=name)
    return tf.no_op(name=name)


def report_uninitialized_resources(resource_list=None, name="report_uninitialized_resources"):
    """A string vector of the handles' names among ``resource_list`` (default: all shared and
    local resources) that are not initialized yet."""
    import tideflow as tf

    if resource_list is None:
        resource_list = shared_resources() + local_resources()
    with ops.name_scope(name):
        if not resource_list:
            return tf.constant([], dtype=tf.string)
        flags = tf.stack([tf.logical_not(r.is_initialized) for r in resource_list])
        names = tf.constant([r.handle.name for r in resource_list])
        return tf.boolean_mask(names, flags)


__all__ = ["initialize_resources", "local_resources", "register_resource",
           "report_uninitialized_resources", "shared_resources"]
