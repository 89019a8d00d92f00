"""Helpers of the op-sequence parity tests (tests/test_opseq_*.py): what the default graph
holds, to compare with what TF 1.15 built for the same program."""

import tideflow as tf


def op_names():
    """The names of the default graph's ops, in the order they were made."""
    return [op.name for op in tf.get_default_graph().get_operations()]


def seed2(op_type):
    """The op seeds (``seed2``) of the default graph's ops of ``op_type``, in order."""
    return [op.get_attr("seed2") for op in tf.get_default_graph().get_operations()
            if op.type == op_type]
