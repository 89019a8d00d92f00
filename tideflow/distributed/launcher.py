"""The local cluster launcher behind ``tideflow launch``: one process per task on loopback ports,
each told its job, task and cluster through the environment, their output streamed with a
``[job:task]`` prefix, all of them stopped (by process group) when the run ends."""

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time

from tideflow.distributed import security as security_lib

__all__ = ["Launcher", "TaskProcess", "cluster_addresses", "free_ports", "task_environment"]

_IS_LINUX = sys.platform.startswith("linux")


def free_ports(n, host="127.0.0.1"):
    """``n`` distinct ports that were free on ``host`` a moment ago (bound, then released)."""
    socks, ports = [], []
    try:
        for _ in range(n):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind((host, 0))
            socks.append(s)
            ports.append(s.getsockname()[1])
    finally:
        for s in socks:
            s.close()
    return ports


def cluster_addresses(num_ps, num_workers, host="localhost", port_base=None,
                      bind_host="127.0.0.1"):
    """The cluster dict ``{"ps": [...], "worker": [...]}``: ports from ``port_base`` upwards
    (ps first), or free ones."""
    n = num_ps + num_workers
    ports = list(range(port_base, port_base + n)) if port_base else free_ports(n, bind_host)
    cluster = {}
    if num_ps:
        cluster["ps"] = [f"{host}:{p}" for p in ports[:num_ps]]
    cluster["worker"] = [f"{host}:{p}" for p in ports[num_ps:]]
    return cluster


def task_environment(cluster, job, task, base=None):
    """The environment of task ``job:task``: ``base`` (default: this process's) plus
    ``TF_CONFIG``, ``TIDEFLOW_JOB`` and ``TIDEFLOW_TASK``."""
    env = dict(os.environ if base is None else base)
    env["TF_CONFIG"] = json.dumps({"cluster": cluster, "task": {"type": job, "index": task}})
    env["TIDEFLOW_JOB"] = job
    env["TIDEFLOW_TASK"] = str(task)
    env["PYTHONUNBUFFERED"] = "1"  # log lines arrive as they are printed
    return env


def _libc():
    if not _IS_LINUX:
        return None
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


def _death_signal_setter(libc):
    """A preexec function for the child: if the launcher itself dies (even by SIGKILL) the
    kernel sends the child SIGKILL, so no task outlives it. Loaded in the parent, so the child
    only makes one system call between fork and exec."""
    if libc is None:
        return None

    def set_death_signal():
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG

    return set_death_signal


class TaskProcess:
    """One task's process (the leader of its own process group) and its log pump."""

    def __init__(self, job, task, argv, env, out, lock, preexec=None):
        self.job = job
        self.task = task
        self.label = f"{job}:{task}"
        # the preexec function makes one prctl call through a handle loaded in the parent:
        # no locks, no imports, so the log threads cannot deadlock it
        self.proc = subprocess.Popen(
            argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, start_new_session=True,
            preexec_fn=preexec,  # noqa: PLW1509
        )
        self.pgid = self.proc.pid  # start_new_session: the child leads a new group
        self._out = out
        self._lock = lock
        self._pump = threading.Thread(target=self._copy_lines, daemon=True,
                                      name=f"log-{self.label}")
        self._pump.start()

    def _copy_lines(self):
        prefix = f"[{self.label}] "
        for raw in iter(self.proc.stdout.readline, b""):
            line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
            with self._lock:
                self._out.write(prefix + line + "\n")
                self._out.flush()
        self.proc.stdout.close()

    def poll(self):
        return self.proc.poll()

    def signal_group(self, sig):
        """Sends ``sig`` to the task's whole process group (its children too)."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pgid, sig)

    def group_alive(self):
        try:
            os.killpg(self.pgid, 0)
        except (ProcessLookupError, PermissionError):
            return False
        return True

    def finish_logs(self, timeout=2.0):
        self._pump.join(timeout)


class Launcher:
    """Runs ``command`` as every worker task (and, with ``ps_program``, as every ps task;
    otherwise a ps task runs ``tideflow server``) and supervises the cluster.

    ``run()`` returns the chief's (worker 0's) exit code once the workers are done; a task that
    fails, or a SIGINT/SIGTERM to the launcher, stops every task: the signal is forwarded to each
    process group, and SIGKILL follows after ``grace`` seconds.
    """

    def __init__(self, command, num_ps=1, num_workers=2, port_base=None, ps_program=False,
                 host="localhost", grace=10.0, out=None, python=None):
        if num_workers < 1:
            raise ValueError("A cluster needs at least one worker")
        if num_ps < 0:
            raise ValueError("--ps must not be negative")
        if not command:
            raise ValueError("No program to launch: give it after '--'")
        self.command = list(command)
        self.num_ps = num_ps
        self.num_workers = num_workers
        self.ps_program = ps_program
        self.grace = grace
        self.out = out or sys.stdout
        self.python = python or sys.executable
        # every task reads the same TIDEFLOW_GRPC_* settings: a bad one fails here, once
        self.security = security_lib.get_default()
        self.cluster = cluster_addresses(num_ps, num_workers, host=host, port_base=port_base)
        self.tasks = []
        self._lock = threading.Lock()
        self._signal = None

    def _say(self, msg):
        with self._lock:
            self.out.write(f"[launch] {msg}\n")
            self.out.flush()

    def _argv(self, job, task):
        if job == "ps" and not self.ps_program:
            return [self.python, "-m", "tideflow.cli", "server", "--job", job, "--task",
                    str(task)]
        return list(self.command)

    def start(self):
        """Starts every task: ps tasks first, then the workers."""
        self._say("cluster " + json.dumps(self.cluster))
        sec = self.security
        self._say("security: " + (
            f"TLS {'on' if sec is not None and sec.tls else 'off'}, "
            f"token {'on' if sec is not None and sec.token else 'off'}"
            + ("" if sec is not None and sec.tls and sec.token else
               " (servers run any graph sent to them: loopback only)")))
        preexec = _death_signal_setter(_libc())
        for job in ("ps", "worker"):
            for i in range(len(self.cluster.get(job, []))):
                env = task_environment(self.cluster, job, i)
                self.tasks.append(TaskProcess(job, i, self._argv(job, i), env, self.out,
                                              self._lock, preexec))
        return self

    def _on_signal(self, signum, frame):
        del frame
        if self._signal is None:
            self._signal = signum

    def run(self, poll_interval=0.05):
        """Starts the cluster (unless started), waits for the end of the run, stops every
        task. Returns the exit status: the chief's, 128 + signal number after an interrupt."""
        installed = {}
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                installed[sig] = signal.signal(sig, self._on_signal)
        try:
            if not self.tasks:
                self.start()
            return self._supervise(poll_interval)
        finally:
            self.stop(signal.SIGTERM)
            for sig, old in installed.items():
                signal.signal(sig, old)

    def _supervise(self, poll_interval):
        chief = next(t for t in self.tasks if t.job == "worker" and t.task == 0)
        workers = [t for t in self.tasks if t.job == "worker"]
        chief_done_at = None
        while True:
            if self._signal is not None:
                name = signal.Signals(self._signal).name
                self._say(f"got {name}: stopping the cluster")
                self.stop(self._signal)
                return 128 + self._signal
            failed = [t for t in self.tasks if t.poll() not in (None, 0)]
            if failed:
                t = failed[0]
                self._say(f"{t.label} exited with status {t.poll()}: stopping the cluster")
                code = t.poll()
                self.stop(signal.SIGTERM)
                # a task killed by a signal reports -signum; a shell would say 128 + signum
                return code if code > 0 else 128 - code
            if chief.poll() is not None:
                if all(w.poll() is not None for w in workers):
                    self._say(f"workers done; chief exited with status {chief.poll()}")
                    return chief.poll()
                # the chief is done: give the other workers the grace period to finish
                chief_done_at = chief_done_at or time.monotonic()
                if time.monotonic() - chief_done_at > self.grace:
                    self._say("chief done; stopping the workers still running")
                    return chief.poll()
            time.sleep(poll_interval)

    def stop(self, sig=signal.SIGTERM):
        """Sends ``sig`` to every task's process group still alive, SIGKILL after the grace
        period, and reaps them all."""
        alive = [t for t in self.tasks if t.group_alive()]
        for t in alive:
            t.signal_group(sig)
        deadline = time.monotonic() + self.grace
        while alive and time.monotonic() < deadline:
            for t in alive:
                t.poll()
            alive = [t for t in alive if t.poll() is None or t.group_alive()]
            if alive:
                time.sleep(0.02)
        for t in alive:
            self._say(f"{t.label} did not stop within {self.grace:g}s: killing it")
            t.signal_group(signal.SIGKILL)
        for t in self.tasks:
            with contextlib.suppress(subprocess.TimeoutExpired):
                t.proc.wait(timeout=5)
            t.finish_logs()
