"""Distributed runtime benchmark: tensor transfer rate over one hop (ps -> worker) and two hops
(ps -> master/worker -> client); the latency of a tiny step spanning a ps and a worker; the
asynchronous data-parallel training rate of an MLP (784-512-512-10, batch 128, SGD) with 1 and 2
workers; and a many-worker simulation (a 1000-float variable, one add per step) showing how the
step cost grows with the number of workers, synchronous with and without backup workers and with
stragglers.

Run: ``python benchmarks/bench_distributed.py [--mib 64] [--steps 300] [--parts transfer,latency,
mlp,scale] [--scale-workers 4,8,16] [--profile DIR]``. Every server and worker runs in its own
process on loopback ports; this process is the client (and the driver).

``--profile DIR`` samples every child process with py-spy (``$PY_SPY`` or ``py-spy`` on the
PATH) while it is measured: one collapsed-stack file per process and part in DIR (threads
waiting on a lock or a socket are left out; ``--profile-native`` adds C frames).
"""

import argparse
import json
import os
import shutil
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

TRAINER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "dist_trainer.py")


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


PROFILE = {"dir": None, "native": False}


def _profilers(named_pids, seconds, tag):
    """Starts py-spy on each (name, pid) for ``seconds`` when --profile is given."""
    out = PROFILE["dir"]
    if not out:
        return []
    spy = os.environ.get("PY_SPY") or shutil.which("py-spy")
    if not spy:
        raise SystemExit("--profile needs py-spy (set PY_SPY or put it on the PATH)")
    os.makedirs(out, exist_ok=True)
    procs = []
    for name, pid in named_pids:
        cmd = [spy, "record", "-p", str(pid), "-d", str(max(1, int(seconds))), "-r", "200",
               "-f", "raw", "-o", os.path.join(out, f"{tag}.{name}.txt")]
        cmd.append("--native" if PROFILE["native"] else "--nonblocking")
        procs.append(subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    return procs


def _best(fn, reps):
    fn()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times), float(np.median(times))


def transfer_and_latency(args):
    """Transfer rates (one and two hops) and the tiny step's latency."""
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
            if PROFILE["dir"]:
                spies = _profilers([("ps", procs[0].pid), ("worker", procs[1].pid)], 5,
                                   "one_hop")
                t0 = time.monotonic()
                while time.monotonic() - t0 < 5.5:
                    sess.run(on_worker)
                for p in spies:
                    p.wait()
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


def _cpu_s(pid):
    """User + system CPU seconds of process ``pid`` so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_cluster(n_workers, phases, setup_s, phase_s):
    """Runs ``phases`` (dicts: name, model, mode, aggregate, straggle_p, straggle_s) on a fresh
    cluster of one ps and ``n_workers`` worker processes; returns {phase: results}."""
    ports = _ports(n_workers + 1)
    spec = {"ps": [f"127.0.0.1:{ports[0]}"],
            "worker": [f"127.0.0.1:{p}" for p in ports[1:]]}
    tmp = tempfile.mkdtemp(prefix="bench-dist-")
    start = time.time() + 4.0 + 0.5 * n_workers  # the processes import tideflow first
    for ph in phases:
        ph["start"] = start + setup_s
        ph["end"] = ph["start"] + phase_s
        start = ph["end"] + 3.0 + 1.0  # dist_trainer.RESET_S + 1 s
    plan = {"spec": spec, "phases": phases, "out": os.path.join(tmp, "result")}
    plan_path = os.path.join(tmp, "plan.json")
    with open(plan_path, "w") as f:
        json.dump(plan, f)
    spec_path = os.path.join(tmp, "spec.json")
    with open(spec_path, "w") as f:
        json.dump(spec, f)
    env = _env()
    procs = [subprocess.Popen([sys.executable, "-c", SERVER, spec_path, "ps", "0"], env=env)]
    procs += [subprocess.Popen([sys.executable, TRAINER, plan_path, str(i)], env=env)
              for i in range(n_workers)]
    ps_cpu = {}
    try:
        for ph in phases:
            while time.time() < ph["start"]:
                time.sleep(0.005)
            c0 = [_cpu_s(p.pid) for p in procs]
            names = ["ps"] + [f"worker{i}" for i in range(n_workers)]
            spies = _profilers([(nm, p.pid) for nm, p in zip(names, procs)][:3],
                               ph["end"] - time.time() - 0.5, f"{ph['name']}_{n_workers}w")
            while time.time() < ph["end"]:
                time.sleep(0.005)
            c1 = [_cpu_s(p.pid) for p in procs]
            ps_cpu[ph["name"]] = (c1[0] - c0[0], sum(c1[1:]) - sum(c0[1:]))
            for p in spies:
                p.wait()
        for p in procs[1:]:
            p.wait(timeout=120)
    finally:
        for p in procs:
            p.kill()
        for p in procs:
            p.wait()
    out = {}
    for ph in phases:
        res = []
        for i in range(n_workers):
            try:
                with open(plan["out"] + f".{i}") as f:
                    res.append(json.load(f)[ph["name"]])
            except (OSError, KeyError, ValueError):
                res.append({"error": "no result"})
        out[ph["name"]] = (res, ps_cpu.get(ph["name"], (0.0, 0.0)))
    return out


def _env():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""),
                OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")


def _summary(res, phase_s):
    errs = [r["error"] for r in res if "error" in r]
    if errs:
        return None, errs[0]
    global_steps = res[0]["global_steps"]
    local = sum(r["steps"] for r in res)
    return (global_steps / phase_s, local / phase_s), None


def mlp(args):
    """Asynchronous data-parallel training rate of the 784-512-512-10 MLP."""
    print("\nasync data-parallel MLP 784-512-512-10, batch 128, SGD, 1 ps "
          f"({args.phase_s:.0f} s per run)")
    print(f"{'workers':>8} {'global steps/s':>15} {'per worker':>11} {'ps CPU ms/step':>15} "
          f"{'worker CPU ms/step':>19}")
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import dist_trainer

    import tideflow as tf

    with tf.Graph().as_default():
        train, _, feeds, _ = dist_trainer._model(tf, {"name": "local", "model": "mlp",
                                                      "mode": "async"}, 0, 1)
        with tf.Session(config=tf.ConfigProto(allow_soft_placement=True)) as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train, feeds(0))
            n, t0 = 0, time.perf_counter()
            while time.perf_counter() - t0 < args.phase_s / 2:
                sess.run(train, feeds(n))
                n += 1
            local = n / (time.perf_counter() - t0)
    print(f"{'local':>8} {local:15.1f} {'':>11} {'':>15}")
    for n in (1, 2):
        r = run_cluster(n, [{"name": "mlp", "model": "mlp", "mode": "async"}], 6.0,
                        args.phase_s)["mlp"]
        rates, err = _summary(r[0], args.phase_s)
        if err:
            print(f"{n:>8} failed: {err}")
            continue
        ps_ms = r[1][0] / max(rates[0] * args.phase_s, 1) * 1e3
        w_ms = r[1][1] / max(rates[1] * args.phase_s, 1) * 1e3
        print(f"{n:>8} {rates[0]:15.1f} {rates[1] / n:11.1f} {ps_ms:15.2f} {w_ms:19.2f}")


def scale(args):
    """Many workers, tiny compute: how the cost of a step grows with the number of workers."""
    print(f"\nsimulation: 1 ps, N workers, a 1000-float variable, one add per step "
          f"({args.phase_s:.0f} s per run; stragglers sleep {args.straggle_s} s on "
          f"{args.straggle_p:.0%} of their steps)")
    print(f"{'N':>3} {'mode':<28} {'global/s':>9} {'worker steps/s':>15} "
          f"{'ps CPU ms/global':>17} {'worker CPU ms/step':>19}")
    for n in [int(v) for v in args.scale_workers.split(",")]:
        backups = max(1, n // 8)
        straggle = {"straggle_p": args.straggle_p, "straggle_s": args.straggle_s}
        phases = [
            {"name": "async", "label": "async", "model": "tiny", "mode": "async"},
            {"name": "sync", "label": f"sync {n}/{n}", "model": "tiny", "mode": "sync",
             "aggregate": n},
            {"name": "backup", "label": f"sync {n - backups}/{n} (backups)", "model": "tiny",
             "mode": "sync", "aggregate": n - backups},
            {"name": "sync_slow", "label": f"sync {n}/{n}, stragglers", "model": "tiny",
             "mode": "sync", "aggregate": n, **straggle},
            {"name": "backup_slow", "label": f"sync {n - backups}/{n}, stragglers",
             "model": "tiny", "mode": "sync", "aggregate": n - backups, **straggle},
        ]
        if n > 16:
            phases = [phases[0], phases[1], phases[2]]
        results = run_cluster(n, phases, 2.0 + 0.25 * n, args.phase_s)
        for ph in phases:
            res, (ps_cpu, w_cpu) = results[ph["name"]]
            rates, err = _summary(res, args.phase_s)
            if err:
                print(f"{n:>3} {ph['label']:<28} failed: {err[:80]}")
                continue
            g, local = rates
            ps_ms = ps_cpu / max(g * args.phase_s, 1) * 1e3
            w_ms = w_cpu / max(local * args.phase_s, 1) * 1e3
            print(f"{n:>3} {ph['label']:<28} {g:9.1f} {local:15.1f} {ps_ms:17.2f} {w_ms:19.2f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mib", type=int, default=64)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--parts", default="transfer,mlp,scale")
    ap.add_argument("--phase-s", type=float, default=8.0, help="seconds of each training run")
    ap.add_argument("--scale-workers", default="4,8,16")
    ap.add_argument("--straggle-p", type=float, default=0.1)
    ap.add_argument("--straggle-s", type=float, default=0.2)
    ap.add_argument("--profile", default=None, help="py-spy profiles of the child processes here")
    ap.add_argument("--profile-native", action="store_true", help="with C frames (slower)")
    args = ap.parse_args()
    PROFILE["dir"] = args.profile
    PROFILE["native"] = args.profile_native
    parts = args.parts.split(",")
    if "transfer" in parts:
        transfer_and_latency(args)
    if "mlp" in parts:
        mlp(args)
    if "scale" in parts:
        scale(args)


if __name__ == "__main__":
    main()
