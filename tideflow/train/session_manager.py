"""``tf.train.SessionManager``: creates sessions whose model is ready, by restoring a
checkpoint, running init ops, or waiting for another process (the chief) to do so."""

import contextlib
import time

import numpy as np

from tideflow import logging
from tideflow.framework import errors, ops
from tideflow.runtime import session as session_lib
from tideflow.train import checkpoint_management

_FIRST_WAIT_S = 0.25  # wait_for_session's first retry; doubling up to recovery_wait_secs


def _op_name(op):
    # init_op may be a list of ops, which has no name
    if op is None:
        return "None"
    return op.name if hasattr(op, "name") else f"<no name for {type(op)}>"


class SessionManager:
    """Makes sessions ready to use: ``prepare_session`` (chief), ``recover_session``,
    ``wait_for_session`` (workers).

    ``ready_op`` returns an empty 1-D string tensor once the model is ready (else the names of
    what is missing); ``ready_for_local_init_op`` likewise gates ``local_init_op``, which runs
    in every new session.
    """

    def __init__(self, local_init_op=None, ready_op=None, ready_for_local_init_op=None,
                 graph=None, recovery_wait_secs=30, local_init_run_options=None):
        if graph is None:
            graph = ops.get_default_graph()
        self._local_init_op = local_init_op
        self._ready_op = ready_op
        self._ready_for_local_init_op = ready_for_local_init_op
        self._graph = graph
        self._recovery_wait_secs = recovery_wait_secs
        self._target = None
        self._local_init_run_options = local_init_run_options
        if ready_for_local_init_op is not None and local_init_op is None:
            raise ValueError("If you pass a ready_for_local_init_op you must also pass a "
                             f"local_init_op , ready_for_local_init_op [{ready_for_local_init_op}]")

    # -- restoring ---------------------------------------------------------------------------
    def _restore_checkpoint(self, master, saver=None, checkpoint_dir=None,
                            checkpoint_filename_with_path=None, wait_for_checkpoint=False,
                            max_wait_secs=7200, config=None):
        """A new session and whether a checkpoint was restored into it."""
        self._target = master
        sess = session_lib.Session(self._target, graph=self._graph, config=config)
        if checkpoint_dir and checkpoint_filename_with_path:
            raise ValueError("Can not provide both checkpoint_dir and "
                             "checkpoint_filename_with_path.")
        if not saver or not (checkpoint_dir or checkpoint_filename_with_path):
            return sess, False
        if checkpoint_filename_with_path:
            saver.restore(sess, checkpoint_filename_with_path)
            return sess, True

        wait_time = 0
        ckpt = checkpoint_management.get_checkpoint_state(checkpoint_dir)
        while not ckpt or not ckpt.model_checkpoint_path:
            if wait_for_checkpoint and wait_time < max_wait_secs:
                logging.info("Waiting for checkpoint to be available.")
                time.sleep(self._recovery_wait_secs)
                wait_time += self._recovery_wait_secs
                ckpt = checkpoint_management.get_checkpoint_state(checkpoint_dir)
            else:
                return sess, False

        saver.restore(sess, ckpt.model_checkpoint_path)
        # the restored saver keeps deleting old checkpoints where the last process stopped
        saver.recover_last_checkpoints(list(ckpt.all_model_checkpoint_paths))
        return sess, True

    def prepare_session(self, master, init_op=None, saver=None, checkpoint_dir=None,
                        checkpoint_filename_with_path=None, wait_for_checkpoint=False,
                        max_wait_secs=7200, config=None, init_feed_dict=None, init_fn=None):
        """A session on ``master`` with the model restored from a checkpoint or initialized.

        Without a checkpoint, runs ``init_op`` (with ``init_feed_dict``) then ``init_fn(sess)``;
        ``local_init_op`` runs in any case. RuntimeError when the model is still not ready.
        """
        sess, is_loaded = self._restore_checkpoint(
            master, saver, checkpoint_dir=checkpoint_dir,
            checkpoint_filename_with_path=checkpoint_filename_with_path,
            wait_for_checkpoint=wait_for_checkpoint, max_wait_secs=max_wait_secs,
            config=config)
        if not is_loaded:
            if init_op is None and not init_fn and self._local_init_op is None:
                raise RuntimeError("Model is not initialized and no init_op or init_fn or "
                                   "local_init_op was given")
            if init_op is not None:
                sess.run(init_op, feed_dict=init_feed_dict)
            if init_fn:
                init_fn(sess)

        local_init_success, msg = self._try_run_local_init_op(sess)
        if not local_init_success:
            raise RuntimeError(
                "Init operations did not make model ready for local_init.  "
                f"Init op: {_op_name(init_op)}, init fn: {init_fn}, error: {msg}")

        is_ready, msg = self._model_ready(sess)
        if not is_ready:
            raise RuntimeError(
                "Init operations did not make model ready.  "
                f"Init op: {_op_name(init_op)}, init fn: {init_fn}, "
                f"local_init_op: {self._local_init_op}, error: {msg}")
        return sess

    def recover_session(self, master, saver=None, checkpoint_dir=None,
                        checkpoint_filename_with_path=None, wait_for_checkpoint=False,
                        max_wait_secs=7200, config=None):
        """(session, True) when a checkpoint made the model ready, else (session, False)."""
        sess, is_loaded = self._restore_checkpoint(
            master, saver, checkpoint_dir=checkpoint_dir,
            checkpoint_filename_with_path=checkpoint_filename_with_path,
            wait_for_checkpoint=wait_for_checkpoint, max_wait_secs=max_wait_secs,
            config=config)
        local_init_success, msg = self._try_run_local_init_op(sess)
        if not is_loaded:
            return sess, False
        where = checkpoint_dir or checkpoint_filename_with_path
        if not local_init_success:
            logging.info("Restoring model from %s did not make model ready for local init: %s",
                         where, msg)
            return sess, False
        is_ready, msg = self._model_ready(sess)
        if not is_ready:
            logging.info("Restoring model from %s did not make model ready: %s", where, msg)
            return sess, False
        logging.info("Restored model from %s", where)
        return sess, is_loaded

    # -- waiting -----------------------------------------------------------------------------
    def wait_for_session(self, master, config=None, max_wait_secs=float("inf")):
        """A session on ``master`` once another process made the model ready.

        Retries after 0.25 s, doubling the wait up to ``recovery_wait_secs``;
        DeadlineExceededError after ``max_wait_secs``.
        """
        self._target = master
        if max_wait_secs is None:
            max_wait_secs = float("inf")
        start = time.time()
        deadline = start + max_wait_secs
        # poll soon after the first miss (the chief is usually about to finish initializing),
        # backing off to ``recovery_wait_secs``; the "Waiting" line keeps TF's cadence (once
        # per ``recovery_wait_secs``, none when the deadline leaves no room for one such wait)
        wait = min(_FIRST_WAIT_S, self._recovery_wait_secs)
        next_log = 0.0
        while True:
            sess = session_lib.Session(self._target, graph=self._graph, config=config)
            not_ready_msg = None
            local_init_success, not_ready_local_msg = self._try_run_local_init_op(sess)
            if local_init_success:
                is_ready, not_ready_msg = self._model_ready(sess)
                if is_ready:
                    return sess
            self._safe_close(sess)
            remaining = max(0.0, deadline - time.time())
            if remaining - wait < 0:
                raise errors.DeadlineExceededError(
                    None, None,  # TF prints the wait as a whole number of seconds
                    f"Session was not ready after waiting {int(max_wait_secs)} secs.")
            elapsed = time.time() - start
            if elapsed >= next_log and remaining >= self._recovery_wait_secs:
                logging.info("Waiting for model to be ready.  Ready_for_local_init_op:  %s, "
                             "ready: %s", not_ready_local_msg, not_ready_msg)
                next_log = elapsed + self._recovery_wait_secs
            time.sleep(wait)
            wait = min(wait * 2, self._recovery_wait_secs)

    @staticmethod
    def _safe_close(sess):
        # a failing close does not matter here
        with contextlib.suppress(Exception):
            sess.close()

    # -- readiness ---------------------------------------------------------------------------
    def _ready(self, op, sess, msg):
        """(True, None) when ``op`` reports nothing missing, else (False, why)."""
        if op is None:
            return True, None
        try:
            ready_value = sess.run(op)
        except errors.FailedPreconditionError as e:
            if "uninitialized" not in str(e) and "not initialized" not in str(e):
                logging.warning("%s : error [%s]", msg, str(e))
                raise
            return False, str(e)
        # empty means ready; int32 results (an old ready-op convention) and None as well
        if ready_value is None:
            return True, None
        ready_value = np.asarray(ready_value)
        if ready_value.dtype == np.int32 or ready_value.size == 0:
            return True, None
        names = ", ".join(v.decode("utf-8") if isinstance(v, bytes) else str(v)
                          for v in ready_value.reshape(-1))
        return False, "Variables not initialized: " + names

    def _model_ready(self, sess):
        return self._ready(self._ready_op, sess, "Model not ready")

    def _model_ready_for_local_init(self, sess):
        return self._ready(self._ready_for_local_init_op, sess, "Model not ready for local init")

    def _try_run_local_init_op(self, sess):
        """(True, None) after running ``local_init_op`` (or when there is none)."""
        if self._local_init_op is None:
            return True, None
        is_ready, msg = self._model_ready_for_local_init(sess)
        if not is_ready:
            return False, msg
        logging.info("Running local_init_op.")
        sess.run(self._local_init_op, options=self._local_init_run_options)
        logging.info("Done running local_init_op.")
        return True, None
