"""Distributed runtime benchmark: tensor transfer rate over one hop (ps -> worker) and two hops
(ps -> master/worker -> client), and the latency of a tiny step spanning a ps and a worker.

Run: ``python benchmarks/bench_distributed.py [--mib 64] [--steps 200]``. The ps and worker
servers run in their own processes on loopback ports; this process is the client.
"""

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time

import numpy as np

SERVER = """
import json, sys
from tideflow.distributed.server import Server
Server(json.load(open(sys.argv[1])), job_name=sys.argv[2], task_index=int(sys.argv[3])).join()
"""


def _ports(n):
    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


def _wait(address, timeout=30):
    host, port = address.rsplit(":", 1)
    end = time.monotonic() + timeout
    while True:
        try:
            socket.create_connection((host, int(port)), 1).close()
            return
        except OSError:
            if time.monotonic() > end:
                raise
            time.sleep(0.05)


def _best(fn, reps):
    fn()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times), float(np.median(times))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mib", type=int, default=64)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--steps", type=int, default=300)
    args = ap.parse_args()

    import tideflow as tf

    p_ps, p_w = _ports(2)
    spec = {"ps": [f"127.0.0.1:{p_ps}"], "worker": [f"127.0.0.1:{p_w}"]}
    fd, path = tempfile.mkstemp(suffix=".json")
    with os.fdopen(fd, "w") as f:
        json.dump(spec, f)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    procs = [subprocess.Popen([sys.executable, "-c", SERVER, path, job, "0"], env=env)
             for job in ("ps", "worker")]
    try:
        for a in spec["ps"] + spec["worker"]:
            _wait(a)
        n = args.mib << 18  # float32 elements
        nbytes = n * 4
        mb = nbytes / 1e6
        with tf.device("/job:ps/task:0"):
            v = tf.Variable(tf.zeros([n], tf.float32), name="big")
            fill = tf.assign(v, tf.random_uniform([n]))
            on_ps = tf.reduce_max(v)
            small = tf.Variable(1.0, name="small")
        with tf.device("/job:worker/task:0"):
            on_worker = tf.reduce_max(tf.identity(v))
            tiny = small * 2.0 + 1.0
        with tf.Session("grpc://" + spec["worker"][0]) as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(fill.op)
            t_ps, _ = _best(lambda: sess.run(on_ps), args.reps)
            t_w, _ = _best(lambda: sess.run(on_worker), args.reps)
            t_two, _ = _best(lambda: sess.run(v), args.reps)
            arr = sess.run(v)
            t_copy, _ = _best(lambda: arr.copy(), args.reps)
            one_hop = mb / max(t_w - t_ps, 1e-9)
            two_hops = mb / t_two
            print(f"{args.mib} MiB float32: one hop (ps -> worker) {one_hop:8.0f} MB/s")
            print(f"{args.mib} MiB float32: two hops (ps -> worker -> client) "
                  f"{two_hops:8.0f} MB/s")
            print(f"{args.mib} MiB float32: local in-process copy {mb / t_copy:8.0f} MB/s")
            sess.run(tiny)
            t0 = time.perf_counter()
            for _ in range(args.steps):
                sess.run(tiny)
            dist_us = (time.perf_counter() - t0) / args.steps * 1e6
        g = tf.Graph()
        with g.as_default():
            small_l = tf.Variable(1.0)
            tiny_l = small_l * 2.0 + 1.0
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                sess.run(tiny_l)
                t0 = time.perf_counter()
                for _ in range(args.steps):
                    sess.run(tiny_l)
                local_us = (time.perf_counter() - t0) / args.steps * 1e6
        print(f"tiny step spanning ps and worker: {dist_us:8.0f} us/step "
              f"(local session: {local_us:.0f} us/step)")
    finally:
        for p in procs:
            p.kill()
        for p in procs:
            p.wait()
        os.unlink(path)


if __name__ == "__main__":
    main()
