"""``tf.train.ProfilerHook``: every N steps or seconds, traces a step (``FULL_TRACE``) and writes
its step stats as a Chrome trace (``timeline-<step>.json``, open in chrome://tracing or
Perfetto) and as run metadata in the event file."""

import os
import time

from tideflow import logging, timeline
from tideflow.protos import config_pb2, step_stats_pb2
from tideflow.train.basic_hooks import (
    SecondOrStepTimer,
    SummaryWriterCache,
    _require_global_step,
)
from tideflow.train.session_run_hook import SessionRunArgs, SessionRunHook

_HOST_DEVICE = "/job:localhost/replica:0/task:0/device:CPU:0"


class ProfilerHook(SessionRunHook):
    """Writes a Chrome trace of one step every ``save_steps`` steps or ``save_secs`` seconds.

    When the runtime returns no per-op step stats (tracing not available), the trace holds
    one event spanning the whole step, labelled as such.
    """

    def __init__(self, save_steps=None, save_secs=None, output_dir="", show_dataflow=True,
                 show_memory=False):
        # the arguments are checked first, so a bad call leaves no event file behind
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)
        self._output_dir = output_dir
        self._output_file = os.path.join(output_dir, "timeline-{}.json")
        # TF's default '' means the working directory
        self._file_writer = SummaryWriterCache.get(output_dir or os.curdir)
        self._show_dataflow = show_dataflow
        self._show_memory = show_memory

    def begin(self):
        self._next_step = None
        self._global_step_tensor = _require_global_step("ProfilerHook")

    def before_run(self, run_context):
        self._request_summary = (self._next_step is not None
                                 and self._timer.should_trigger_for_step(self._next_step))
        requests = {"global_step": self._global_step_tensor}
        opts = (config_pb2.RunOptions(trace_level=config_pb2.RunOptions.FULL_TRACE)
                if self._request_summary else None)
        self._step_start = time.time()
        return SessionRunArgs(requests, options=opts)

    def after_run(self, run_context, run_values):
        step_end = time.time()
        stale_global_step = run_values.results["global_step"]
        if self._next_step is None:
            # no trace before N steps or seconds have passed
            self._timer.update_last_triggered_step(stale_global_step)
        global_step = stale_global_step + 1
        if self._request_summary:
            global_step = int(run_context.session.run(self._global_step_tensor))
            self._timer.update_last_triggered_step(global_step)
            step_stats = run_values.run_metadata.step_stats
            if not any(dev.node_stats for dev in step_stats.dev_stats):
                step_stats = _whole_step_stats(self._step_start, step_end)
            self._save(global_step, self._output_file.format(global_step), step_stats)
            self._file_writer.add_run_metadata(run_values.run_metadata, f"step_{global_step}")
        self._next_step = global_step + 1

    def _save(self, step, save_path, step_stats):
        logging.info("Saving timeline for %d into '%s'.", step, save_path)
        if self._output_dir:
            os.makedirs(self._output_dir, exist_ok=True)
        with open(save_path, "w") as f:
            f.write(timeline.Timeline(step_stats).generate_chrome_trace_format(
                show_dataflow=self._show_dataflow, show_memory=self._show_memory))


def _whole_step_stats(start, end):
    """Step stats with one node spanning the step, for runtimes without per-op tracing."""
    stats = step_stats_pb2.StepStats()
    dev = stats.dev_stats.add(device=_HOST_DEVICE)
    start_us = int(start * 1e6)
    dur = max(int((end - start) * 1e6), 1)
    dev.node_stats.add(node_name="session_run (per-op step stats unavailable)",
                       all_start_micros=start_us, op_start_rel_micros=0,
                       op_end_rel_micros=dur, all_end_rel_micros=dur)
    return stats
