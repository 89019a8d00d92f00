"""``tf.data.experimental.CheckpointInputPipelineHook``: saves the positions of the graph's
iterators beside an Estimator's checkpoints (``<model_dir>/input.ckpt-N``, its own state file
``checkpoint_input``) and restores them when training starts again."""

from tideflow.framework import ops
from tideflow.train.basic_hooks import CheckpointSaverHook
from tideflow.train.checkpoint_management import latest_checkpoint
from tideflow.train.saver import Saver
from tideflow.train.session_run_hook import SessionRunHook


class _InputSaver(Saver):
    """A Saver whose checkpoint state file has its own name (not ``checkpoint``), so the
    input checkpoints do not stand in for the model's."""

    def __init__(self, saveables, latest_filename):
        super().__init__(saveables)
        self._input_latest_filename = latest_filename

    def save(self, sess, save_path, global_step=None, latest_filename=None, **kwargs):
        return super().save(sess, save_path, global_step=global_step,
                            latest_filename=latest_filename or self._input_latest_filename,
                            **kwargs)


class CheckpointInputPipelineHook(SessionRunHook):
    """Checkpoints the input pipelines (the iterators of the graph) of ``estimator``'s
    training: saved when and where the estimator saves its own checkpoints, restored from the
    latest one at the first step of a new training session."""

    def __init__(self, estimator):
        from tideflow.estimator import Estimator

        if not isinstance(estimator, Estimator):  # TF raises ValueError here
            raise ValueError(f"`estimator` must have type `tf.estimator.Estimator`. "  # noqa: TRY004
                             f"Got: {type(estimator)}")
        self._estimator = estimator
        config = estimator.config
        prefix = "input"
        if (getattr(config, "num_worker_replicas", 1) or 1) > 1:
            prefix += f"_{config.task_type}_{config.task_id}"
        self._checkpoint_saver_hook = CheckpointSaverHook(
            estimator.model_dir, save_secs=config.save_checkpoints_secs,
            save_steps=config.save_checkpoints_steps, checkpoint_basename=prefix + ".ckpt",
            save_graph_def=False)
        self._latest_filename = "checkpoint_" + prefix
        self._first_run = True

    def begin(self):
        hook = self._checkpoint_saver_hook
        if hook._saver is None and hook._scaffold is None:
            from tideflow.ops.iterator_ops import GLOBAL_ITERATORS, saveable_for_resource

            saveables = [saveable_for_resource(r)
                         for r in ops.get_collection(GLOBAL_ITERATORS)]
            hook._saver = _InputSaver(saveables, self._latest_filename)
        hook.begin()

    def after_create_session(self, session, coord):
        self._first_run = True  # a new session: restore (or save) at its first step

    def _restore_or_save(self, session):
        hook = self._checkpoint_saver_hook
        path = latest_checkpoint(self._estimator.model_dir,
                                 latest_filename=self._latest_filename)
        if path:
            hook._get_saver().restore(session, path)
        else:
            step = int(session.run(hook._global_step_tensor))
            hook._save(session, step)
            hook._timer.update_last_triggered_step(step)

    def before_run(self, run_context):
        if self._first_run:
            self._restore_or_save(run_context.session)
            self._first_run = False
        return self._checkpoint_saver_hook.before_run(run_context)

    def after_run(self, run_context, run_values):
        self._checkpoint_saver_hook.after_run(run_context, run_values)

    def end(self, session):
        self._checkpoint_saver_hook.end(session)
