"""One worker process of ``bench_distributed.py``'s training benchmarks: starts its server,
then runs each configured phase (a fresh graph) in its wall-clock window and writes how many
steps it ran (and, on the chief, how far the global step went) to a JSON file.

``python dist_trainer.py PLAN.json TASK``; the plan holds the cluster spec and the phases.
"""

import json
import random
import sys
import time

import numpy as np

RESET_S = 2.0  # the driver leaves this long (and a setup time) between phases


def _model(tf, phase, task, n_workers):
    """(train op, global step, feeds(), sync optimizer or None) of ``phase``."""
    name = phase["name"]
    with tf.device(tf.train.replica_device_setter(
            ps_tasks=1, worker_device=f"/job:worker/task:{task}")):
        gs = tf.Variable(0, dtype=tf.int64, trainable=False, name=f"{name}_global_step")
        if phase["model"] == "mlp":
            x = tf.placeholder(tf.float32, [128, 784])
            y = tf.placeholder(tf.int64, [128])
            h = x
            sizes = [784, 512, 512, 10]
            for i in range(3):
                w = tf.Variable(tf.random_normal([sizes[i], sizes[i + 1]], stddev=0.05),
                                name=f"{name}_w{i}")
                b = tf.Variable(tf.zeros([sizes[i + 1]]), name=f"{name}_b{i}")
                h = tf.matmul(h, w) + b
                if i < 2:
                    h = tf.nn.relu(h)
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
                labels=y, logits=h))
            rng = np.random.RandomState(task)
            xs = rng.rand(16, 128, 784).astype(np.float32)
            ys = rng.randint(0, 10, (16, 128))

            def feeds(i):
                return {x: xs[i % 16], y: ys[i % 16]}
        else:  # tiny: a 1000-float variable; the gradient is one add on the worker
            v = tf.Variable(tf.zeros([1000]), name=f"{name}_v")
            x = tf.constant(np.ones(1000, np.float32))
            loss = tf.reduce_sum(v * x)

            def feeds(i):
                return None
        opt = tf.train.GradientDescentOptimizer(0.01)
        sync = None
        if phase["mode"] == "sync":
            sync = opt = tf.train.SyncReplicasOptimizer(
                opt, replicas_to_aggregate=phase["aggregate"], total_num_replicas=n_workers)
        train = opt.minimize(loss, global_step=gs)
    return train, gs, feeds, sync


def run_phase(tf, target, phase, task, n_workers):
    g = tf.Graph()
    with g.as_default():
        train, gs, feeds, sync = _model(tf, phase, task, n_workers)
        init = tf.global_variables_initializer()
        local_init = tf.local_variables_initializer()
        ready = tf.report_uninitialized_variables(tf.global_variables())
        tokens = sync.get_init_tokens_op() if sync is not None and task == 0 else None
        sess = tf.Session(target, graph=g)
        try:
            sess.run(local_init)
            if task == 0:
                sess.run(init)
            else:
                while len(sess.run(ready)):
                    time.sleep(0.05)
            coord = None
            if sync is not None:
                sess.run(sync.chief_init_op if task == 0 else sync.local_step_init_op)
                if task == 0:
                    sess.run(tokens)
                    coord = tf.train.Coordinator()
                    sync.get_chief_queue_runner().create_threads(sess, coord=coord,
                                                                 daemon=True, start=True)
            while time.time() < phase["start"]:
                time.sleep(0.005)
            g0 = sess.run(gs) if task == 0 else 0
            t0 = time.time()
            steps = 0
            straggle = phase.get("straggle_p", 0.0)
            rnd = random.Random(task)
            while time.time() < phase["end"]:
                if straggle and rnd.random() < straggle:
                    time.sleep(phase["straggle_s"])
                left_ms = int((phase["end"] + 1.0 - time.time()) * 1000)
                opts = tf.RunOptions(timeout_in_ms=max(left_ms, 1))
                try:
                    sess.run(train, feeds(steps), options=opts)
                except tf.errors.OpError:
                    break  # the window closed while this step waited for its token
                steps += 1
            elapsed = time.time() - t0
            g1 = sess.run(gs) if task == 0 else 0
            if coord is not None:
                coord.request_stop()
        finally:
            sess.close()
    return {"steps": steps, "elapsed": elapsed, "global_steps": int(g1 - g0)}


def main():
    with open(sys.argv[1]) as f:
        plan = json.load(f)
    task = int(sys.argv[2])
    import tideflow as tf

    server = tf.train.Server(plan["spec"], job_name="worker", task_index=task)
    n_workers = len(plan["spec"]["worker"])
    results = {}
    for phase in plan["phases"]:
        try:
            results[phase["name"]] = run_phase(tf, server.target, phase, task, n_workers)
        except Exception as e:  # noqa: BLE001 - reported, the next phase still runs
            results[phase["name"]] = {"error": f"{type(e).__name__}: {e}"[:500]}
        # between phases the chief clears the ps (the token queue's name is fixed), then the
        # others build the next phase
        while time.time() < phase["end"] + (1.0 if task == 0 else RESET_S + 1.0):
            time.sleep(0.01)
        if task == 0:
            tf.Session.reset(server.target)
    with open(plan["out"] + f".{task}", "w") as f:
        json.dump(results, f)


if __name__ == "__main__":
    main()
