"""Real tideflow servers in subprocesses on free loopback ports, for the distributed tests."""

import contextlib
import json
import os
import socket
import subprocess
import sys
import time

SERVER_SCRIPT = """
import json, sys
from tideflow.distributed.server import Server
spec = json.load(open(sys.argv[1]))
server = Server(spec, job_name=sys.argv[2], task_index=int(sys.argv[3]))
print("READY", server.target, flush=True)
server.join()
"""

CLIENT_TIMEOUT_S = 120


def free_ports(n):
    """``n`` distinct free TCP ports on 127.0.0.1."""
    socks = []
    try:
        for _ in range(n):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def cluster_spec(**jobs):
    """A cluster spec dict with ``jobs[name]`` tasks per job on free loopback ports."""
    ports = free_ports(sum(jobs.values()))
    spec = {}
    for job, n in jobs.items():
        spec[job] = [f"127.0.0.1:{ports.pop()}" for _ in range(n)]
    return spec


def _env(extra=None):
    env = dict(os.environ)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    env.setdefault("OMP_NUM_THREADS", "1")
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    if extra:
        env.update(extra)
    return env


def wait_ready(address, timeout=30.0):
    """Waits until a TCP connection to ``address`` succeeds."""
    host, port = address.rsplit(":", 1)
    end = time.monotonic() + timeout
    while True:
        try:
            with socket.create_connection((host, int(port)), timeout=1.0):
                return
        except OSError:
            if time.monotonic() > end:
                raise TimeoutError(f"no server at {address} after {timeout} s") from None
            time.sleep(0.05)


class Cluster:
    """Server processes of a cluster spec; ``kill(job, task)`` ends one."""

    def __init__(self, spec, tmp_path, env=None):
        self.spec = spec
        self.path = os.path.join(str(tmp_path), "cluster.json")
        with open(self.path, "w") as f:
            json.dump(spec, f)
        self.procs = {}
        self.env = _env(env)

    def start(self, job, task):
        p = subprocess.Popen([sys.executable, "-c", SERVER_SCRIPT, self.path, job, str(task)],
                             env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self.procs[(job, task)] = p
        return p

    def start_all(self, skip=()):
        for job, addrs in self.spec.items():
            for i in range(len(addrs)):
                if (job, i) not in skip:
                    self.start(job, i)
        for job, addrs in self.spec.items():
            for i, a in enumerate(addrs):
                if (job, i) not in skip:
                    wait_ready(a)
        return self

    def target(self, job, task):
        return "grpc://" + self.spec[job][task]

    def kill(self, job, task):
        p = self.procs.pop((job, task))
        p.kill()
        p.wait(10)

    def stop(self):
        for p in self.procs.values():
            with contextlib.suppress(Exception):
                p.kill()
        for p in self.procs.values():
            with contextlib.suppress(Exception):
                p.wait(10)
        self.procs.clear()


def run_client(code, *args, timeout=CLIENT_TIMEOUT_S, env=None):
    """Runs ``code`` with ``python -c`` (argv = args); returns its stdout (raises on failure)."""
    r = subprocess.run([sys.executable, "-c", code, *map(str, args)], env=_env(env),
                       capture_output=True, text=True, timeout=timeout, check=False)
    if r.returncode != 0:
        raise AssertionError(f"client failed ({r.returncode}):\n{r.stdout}\n{r.stderr}")
    return r.stdout
