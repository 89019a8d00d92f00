"""The small namespaces: tf.compat (and tf.compat.v1), tf.logging."""

import logging

import pytest

import tideflow as tf


def test_compat():
    assert tf.compat.as_bytes("é") == "é".encode() and tf.compat.as_bytes(b"x") == b"x"
    assert tf.compat.as_text(b"abc") == "abc" and tf.compat.as_str("s") == "s"
    assert tf.compat.v1 is tf and tf.compat.v1.Session is tf.Session
    with pytest.raises(TypeError):
        tf.compat.as_bytes(3)
    with pytest.raises(AttributeError):
        tf.compat.no_such_name  # noqa: B018


def test_logging():
    records = []

    class Keep(logging.Handler):
        def emit(self, record):
            records.append(record.getMessage())

    logger = tf.logging.get_logger()
    handler = Keep()
    logger.addHandler(handler)
    old = tf.logging.get_verbosity()
    try:
        tf.logging.set_verbosity(tf.logging.INFO)
        tf.logging.info("step %d", 3)
        tf.logging.debug("hidden")
        for _ in range(5):
            tf.logging.log_every_n(tf.logging.INFO, "every %d", 2, 2)
        assert "step 3" in records and "hidden" not in records
        assert records.count("every 2") == 3
    finally:
        tf.logging.set_verbosity(old)
        logger.removeHandler(handler)
