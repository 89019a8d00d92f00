"""A between-graph replicated trainer of a digits MLP (64-64-10, ReLU, softmax cross-entropy)
for the distributed training tests: each worker process starts its ``tf.train.Server`` from
``TF_CONFIG`` and trains with ``MonitoredTrainingSession``; without ``TF_CONFIG`` it trains in
one process. Prints ``STEP``, ``RECOVER``, ``ACCURACY`` and ``DONE`` lines for the tests."""

import argparse
import faulthandler
import logging
import signal
import sys
import time

import numpy as np

import tideflow as tf
from tideflow.distributed.cluster import tf_config_from_env


def digits():
    """(x_train, y_train, x_test, y_test): 1500 training and 297 test images, scaled to [0, 1]."""
    from sklearn.datasets import load_digits

    d = load_digits()
    x = (d.data / 16.0).astype(np.float32)
    y = d.target.astype(np.int64)
    perm = np.random.RandomState(0).permutation(len(x))
    x, y = x[perm], y[perm]
    return x[:1500], y[:1500], x[1500:], y[1500:]


class _RecoveryPrinter(logging.Handler):
    """Prints a ``RECOVER`` line (wall time, message) when the monitored session recovers."""

    def emit(self, record):
        msg = record.getMessage()
        if "preemption" in msg:
            kind = type(record.args[-1]).__name__ if record.args else "?"
            print(f"RECOVER {time.time():.3f} {kind} {msg[-200:]!r}", flush=True)


def build(args, task, cluster):
    """The model, under ``replica_device_setter`` in a cluster; returns the tensors used."""
    setter = None
    if cluster is not None:
        setter = tf.train.replica_device_setter(
            worker_device=f"/job:worker/task:{task}", cluster=cluster)
    with tf.device(setter):
        gs = tf.train.get_or_create_global_step()
        x = tf.placeholder(tf.float32, [None, 64], name="x")
        y = tf.placeholder(tf.int64, [None], name="y")
        init = tf.glorot_uniform_initializer(seed=1)
        w1 = tf.get_variable("w1", [64, 64], initializer=init)
        b1 = tf.get_variable("b1", [64], initializer=tf.zeros_initializer())
        w2 = tf.get_variable("w2", [64, 10], initializer=init)
        b2 = tf.get_variable("b2", [10], initializer=tf.zeros_initializer())
        logits = tf.matmul(tf.nn.relu(tf.matmul(x, w1) + b1), w2) + b2
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=y, logits=logits))
        accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), y), tf.float32))
        opt = tf.train.AdamOptimizer(args.lr)
        hooks = []
        if args.mode == "sync":
            opt = tf.train.SyncReplicasOptimizer(opt, replicas_to_aggregate=args.aggregate,
                                                 total_num_replicas=args.replicas)
            hooks.append(opt.make_session_run_hook(is_chief=task == 0))
        train = opt.minimize(loss, global_step=gs)
    return gs, x, y, loss, accuracy, train, hooks


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=400, help="the last global step")
    ap.add_argument("--mode", choices=["async", "sync"], default="async")
    ap.add_argument("--aggregate", type=int, default=2)
    ap.add_argument("--replicas", type=int, default=3)
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--checkpoint-dir", default=None)
    ap.add_argument("--save-steps", type=int, default=None)
    ap.add_argument("--step-sleep", type=float, default=0.0)
    ap.add_argument("--print-every", type=int, default=10)
    args = ap.parse_args()
    faulthandler.register(signal.SIGUSR1)  # `kill -USR1` prints every thread's stack

    print(f"START {time.time():.3f}", flush=True)
    cfg = tf_config_from_env()
    log = tf.logging.get_logger()
    for h in log.handlers:
        h.setLevel(logging.WARNING)
    log.addHandler(_RecoveryPrinter())
    log.setLevel(logging.INFO)

    task, cluster, target, is_chief = 0, None, "", True
    if cfg is not None:
        task, cluster, is_chief = cfg.task_index, cfg.cluster, cfg.is_chief
        server = tf.train.Server(cluster, job_name=cfg.task_type, task_index=task)
        target = server.target
        if cfg.task_type == "ps":
            server.join()
            return
    x_train, y_train, x_test, y_test = digits()
    gs, x, y, _loss, accuracy, train, hooks = build(args, task, cluster)
    hooks.append(tf.train.StopAtStepHook(last_step=args.steps))
    rng = np.random.RandomState(100 + task)
    kwargs = {}
    if args.checkpoint_dir:
        kwargs = {"checkpoint_dir": args.checkpoint_dir, "save_checkpoint_secs": None,
                  "save_checkpoint_steps": args.save_steps, "save_summaries_steps": None,
                  "save_summaries_secs": None, "log_step_count_steps": 0}
    local_steps = 0
    with tf.train.MonitoredTrainingSession(master=target, is_chief=is_chief, hooks=hooks,
                                           stop_grace_period_secs=5, **kwargs) as sess:
        while not sess.should_stop():
            idx = rng.randint(0, len(x_train), args.batch)
            _, step = sess.run([train, gs], {x: x_train[idx], y: y_train[idx]})
            local_steps += 1
            if local_steps % args.print_every == 0:
                print(f"STEP {step} {time.time():.3f}", flush=True)
            if args.step_sleep:
                time.sleep(args.step_sleep)
        # the raw session: hooks asked to stop, the model is still there
        acc, step = sess.run_step_fn(
            lambda step_context: step_context.session.run([accuracy, gs],
                                                          {x: x_test, y: y_test}))
    print(f"ACCURACY {acc:.4f}", flush=True)
    print(f"DONE task={task} global_step={step} local_steps={local_steps} "
          f"at={time.time():.3f}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
