"""Trains an image classifier (digits CNN, the CIFAR-10 tutorial CNN or Inception-v3) from
TFRecord shards or synthetic ImageNet-shaped data, as the Inception trainer does: exponential
learning-rate decay, moving averages of the weights for evaluation, checkpoints and summaries in
``--train_dir``, recovery from the last checkpoint, and a live display of steps/s, examples/s,
loss and accuracy.

    python examples/convert_to_tfrecords.py --dataset digits --output_dir /tmp/digits
    python examples/image_train.py --model digits_cnn --data_dir /tmp/digits \\
        --train_dir /tmp/digits_train --max_steps 300
    python examples/image_train.py --model inception_v3 --synthetic --depth_multiplier 0.1 \\
        --image_size 96 --batch_size 8 --max_steps 20 --train_dir /tmp/inception_train

With ``--job_name`` (or a ``TF_CONFIG`` environment variable) it is one task of a
between-graph replicated cluster: parameter servers (``--ps_hosts``) hold the variables, each
worker (``--worker_hosts``) builds its own copy of the graph, and with ``--sync_replicas`` the
updates aggregate ``--replicas_to_aggregate`` workers' gradients (the rest are backup workers).
"""

import argparse
import json
import os
import sys
import time

import tideflow as tf
from tideflow.models import catalog, inputs, tfrecords

_OPTIMIZERS = ("rmsprop", "momentum", "sgd", "adam")

# the Inception trainer's RMSProp and momentum settings
RMSPROP_DECAY = 0.9
RMSPROP_MOMENTUM = 0.9
RMSPROP_EPSILON = 1.0
MOMENTUM = 0.9


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--train_dir", default="/tmp/image_train",
                    help="checkpoints and event files go here (and training resumes from here)")
    ap.add_argument("--data_dir", help="TFRecord shards train-*-of-* (convert_to_tfrecords.py)")
    ap.add_argument("--synthetic", action="store_true",
                    help="train on a random batch of the model's input shape (no input cost)")
    ap.add_argument("--model", choices=catalog.MODEL_NAMES, default="inception_v3")
    ap.add_argument("--image_size", type=int, help="model input side (default: the model's)")
    ap.add_argument("--depth_multiplier", type=float, default=1.0,
                    help="Inception-v3 channel multiplier (minimum depth 16)")
    ap.add_argument("--num_classes", type=int, help="default: the model's")
    ap.add_argument("--batch_size", type=int, help="per worker (default: the model's)")
    ap.add_argument("--max_steps", type=int, default=10000000, help="global steps to train to")
    ap.add_argument("--optimizer", choices=_OPTIMIZERS, help="default: the model's recipe")
    ap.add_argument("--initial_learning_rate", type=float)
    ap.add_argument("--num_epochs_per_decay", type=float)
    ap.add_argument("--learning_rate_decay_factor", type=float)
    ap.add_argument("--num_examples_per_epoch", type=int,
                    help="default: the records in --data_dir, or the model's data set size")
    ap.add_argument("--moving_average_decay", type=float)
    ap.add_argument("--ps_hosts", default="", help="comma-separated host:port pairs")
    ap.add_argument("--worker_hosts", default="", help="comma-separated host:port pairs")
    ap.add_argument("--job_name", choices=["ps", "worker"], help="this task's job")
    ap.add_argument("--task_id", type=int, default=0, help="this task's index in its job")
    ap.add_argument("--sync_replicas", action="store_true",
                    help="aggregate the workers' gradients synchronously")
    ap.add_argument("--replicas_to_aggregate", type=int,
                    help="gradients per update with --sync_replicas (default: all workers)")
    ap.add_argument("--log_every", type=int, default=10, help="steps between progress lines")
    ap.add_argument("--save_checkpoint_secs", type=int, default=600)
    ap.add_argument("--save_checkpoint_steps", type=int,
                    help="checkpoint every this many steps instead of every N seconds")
    ap.add_argument("--save_summaries_steps", type=int, default=100)
    ap.add_argument("--seed", type=int, help="graph-level random seed")
    args = ap.parse_args(argv)
    if not args.synthetic and not args.data_dir:
        ap.error("give --data_dir (TFRecords) or --synthetic")
    spec = catalog.get(args.model)
    for name, value in spec.defaults.items():
        if getattr(args, name) is None:
            setattr(args, name, value)
    if args.image_size is None:
        args.image_size = spec.image_size
    if args.num_classes is None:
        args.num_classes = spec.num_classes
    _cluster_from_tf_config(args)
    return args


def _cluster_from_tf_config(args):
    """Fills the cluster flags from ``TF_CONFIG`` ({"cluster": {...}, "task": {"type",
    "index"}}) when no ``--job_name`` was given."""
    if args.job_name or not os.environ.get("TF_CONFIG"):
        return
    config = json.loads(os.environ["TF_CONFIG"])
    cluster, task = config.get("cluster", {}), config.get("task", {})
    if not cluster.get("worker"):
        return
    args.ps_hosts = ",".join(cluster.get("ps", []))
    args.worker_hosts = ",".join(cluster["worker"])
    args.job_name = task.get("type", "worker")
    args.task_id = int(task.get("index", 0))


def _hosts(flag):
    return [h for h in flag.split(",") if h]


def make_optimizer(name, learning_rate):
    if name == "rmsprop":
        return tf.train.RMSPropOptimizer(learning_rate, decay=RMSPROP_DECAY,
                                         momentum=RMSPROP_MOMENTUM, epsilon=RMSPROP_EPSILON)
    if name == "momentum":
        return tf.train.MomentumOptimizer(learning_rate, MOMENTUM)
    if name == "adam":
        return tf.train.AdamOptimizer(learning_rate)
    return tf.train.GradientDescentOptimizer(learning_rate)


class ExamplesPerSecondHook(tf.train.SessionRunHook):
    """Prints step, loss, accuracy, steps/s and examples/s every ``every_n_steps`` steps."""

    def __init__(self, batch_size, tensors, every_n_steps, stream=None):
        self._batch_size = batch_size
        self._tensors = tensors
        self._every = every_n_steps
        self._stream = stream or sys.stdout

    def begin(self):
        self._global_step = tf.train.get_global_step()
        self._last = None
        self._local_steps = 0
        self._next_step = 0

    def before_run(self, run_context):
        return tf.train.SessionRunArgs(dict(self._tensors, global_step=self._global_step))

    def after_run(self, run_context, run_values):
        values = run_values.results
        step = int(values["global_step"]) + 1
        now = time.time()
        self._local_steps += 1
        if self._last is None:
            self._last = (now, self._local_steps)
            self._next_step = (step // self._every + 1) * self._every
            return
        if step < self._next_step:
            return
        self._next_step = (step // self._every + 1) * self._every
        t0, s0 = self._last
        self._last = (now, self._local_steps)
        # this worker's own rate (other workers also advance the global step)
        steps_per_sec = (self._local_steps - s0) / (now - t0)
        shown = ", ".join(f"{k} = {values[k]:.4f}" for k in sorted(self._tensors))
        self._stream.write(
            f"step {step}, {shown} ({steps_per_sec:.2f} steps/s, "
            f"{steps_per_sec * self._batch_size:.1f} examples/s)\n")
        self._stream.flush()


def build_inputs(args, spec, num_workers, task_index):
    if args.synthetic:
        return inputs.synthetic_inputs(args.batch_size, args.image_size, spec.channels,
                                       args.num_classes, seed=args.seed)
    files = inputs.data_files(args.data_dir, "train")
    _, (images, labels) = inputs.batched_inputs(
        files, args.batch_size,
        lambda image, is_training: spec.preprocess(image, args.image_size, is_training),
        spec.channels, is_training=True, num_shards=min(num_workers, len(files)),
        shard_index=task_index % max(1, min(num_workers, len(files))), seed=args.seed)
    return images, labels


def num_examples_per_epoch(args, spec):
    if args.num_examples_per_epoch:
        return args.num_examples_per_epoch
    if args.synthetic:
        return spec.num_examples_per_epoch
    return tfrecords.count_records(f"{args.data_dir.rstrip('/')}/train-*")


def train(args, spec, master="", is_chief=True, num_workers=1, task_index=0, device_fn=None,
          config=None):
    """Builds the training graph (under ``device_fn``) and runs it to ``--max_steps``."""
    tf.gfile.MakeDirs(args.train_dir)
    with tf.Graph().as_default():
        if args.seed is not None:
            tf.set_random_seed(args.seed)
        with tf.device(device_fn):
            global_step = tf.train.get_or_create_global_step()
            with tf.name_scope("input"):
                images, labels = build_inputs(args, spec, num_workers, task_index)
            options = {"depth_multiplier": args.depth_multiplier} if (
                spec.name == "inception_v3") else {}
            logits, end_points = spec.inference(images, args.num_classes, True, **options)
            total_loss = spec.loss(logits, labels, end_points)

            # the Inception schedule: decay every num_epochs_per_decay epochs, staircase
            batches_per_epoch = num_examples_per_epoch(args, spec) / args.batch_size
            decay_steps = max(1, int(batches_per_epoch * args.num_epochs_per_decay))
            learning_rate = tf.train.exponential_decay(
                args.initial_learning_rate, global_step, decay_steps,
                args.learning_rate_decay_factor, staircase=True)
            opt = make_optimizer(args.optimizer, learning_rate)

            accuracy = tf.reduce_mean(tf.cast(tf.nn.in_top_k(logits, labels, 1), tf.float32),
                                      name="train_accuracy")
            tf.summary.scalar("loss", total_loss)
            tf.summary.scalar("learning_rate", learning_rate)
            tf.summary.scalar("accuracy", accuracy)
            weights = [v for v in tf.trainable_variables() if v.get_shape().ndims > 1]
            for var in weights[:2] + weights[-2:]:
                tf.summary.histogram(var.op.name, var)

            variable_averages = tf.train.ExponentialMovingAverage(args.moving_average_decay,
                                                                  global_step)
            variables_to_average = tf.trainable_variables() + tf.moving_average_variables()
            hooks = [tf.train.StopAtStepHook(last_step=args.max_steps),
                     tf.train.NanTensorHook(total_loss),
                     ExamplesPerSecondHook(args.batch_size,
                                           {"loss": total_loss, "accuracy": accuracy},
                                           args.log_every)]

            if args.sync_replicas:
                replicas = args.replicas_to_aggregate or num_workers
                opt = tf.train.SyncReplicasOptimizer(
                    opt, replicas_to_aggregate=replicas, total_num_replicas=num_workers,
                    variable_averages=variable_averages,
                    variables_to_average=variables_to_average)
                hooks.append(opt.make_session_run_hook(is_chief))

            # batch-normalization statistics update with every step, before the gradients
            update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
            with tf.control_dependencies(update_ops):
                total_loss = tf.identity(total_loss, name="total_loss_with_updates")
            grads = opt.compute_gradients(total_loss)
            apply_op = opt.apply_gradients(grads, global_step=global_step)
            if args.sync_replicas:
                # the chief applies the averages after each aggregated update
                train_op = apply_op
            else:
                with tf.control_dependencies([apply_op]):
                    train_op = variable_averages.apply(variables_to_average)

        save_checkpoint = ({"save_checkpoint_steps": args.save_checkpoint_steps}
                           if args.save_checkpoint_steps
                           else {"save_checkpoint_secs": args.save_checkpoint_secs})
        with tf.train.MonitoredTrainingSession(
                master=master, is_chief=is_chief, checkpoint_dir=args.train_dir, hooks=hooks,
                save_summaries_steps=args.save_summaries_steps,
                log_step_count_steps=args.log_every, config=config, **save_checkpoint) as sess:
            while not sess.should_stop():
                sess.run(train_op)


def _require_cluster_api():
    missing = [name for name in ("ClusterSpec", "Server", "replica_device_setter",
                                 "SyncReplicasOptimizer") if not hasattr(tf.train, name)]
    if missing:
        raise NotImplementedError(
            "The between-graph replicated trainer needs tf.train." + ", tf.train.".join(missing)
            + ", which this tideflow does not provide yet; run without --job_name (and "
            "without TF_CONFIG) to train in one process.")


def train_replicated(args, spec):
    """One task of a between-graph replicated cluster: a ps task serves the variables; a worker
    builds its graph with the variables on the ps tasks and trains (task 0 is the chief)."""
    _require_cluster_api()
    ps_hosts, worker_hosts = _hosts(args.ps_hosts), _hosts(args.worker_hosts)
    if not worker_hosts:
        raise ValueError("--worker_hosts must name at least one worker")
    jobs = {"worker": worker_hosts}
    if ps_hosts:
        jobs["ps"] = ps_hosts
    cluster = tf.train.ClusterSpec(jobs)
    server = tf.train.Server(cluster, job_name=args.job_name, task_index=args.task_id)
    if args.job_name == "ps":
        server.join()
        return
    device_fn = tf.train.replica_device_setter(
        worker_device=f"/job:worker/task:{args.task_id}", cluster=cluster)
    # a worker's sessions see only the ps tasks and itself, so it never waits on other workers
    config = tf.ConfigProto(device_filters=["/job:ps", f"/job:worker/task:{args.task_id}"])
    train(args, spec, master=server.target, is_chief=args.task_id == 0,
          num_workers=len(worker_hosts), task_index=args.task_id, device_fn=device_fn,
          config=config)


def main(argv=None):
    args = parse_args(argv)
    spec = catalog.get(args.model)
    print(f"{spec.name}: {args.image_size}x{args.image_size}x{spec.channels}, "
          f"{args.num_classes} classes, batch {args.batch_size}, {args.optimizer} "
          f"from {args.initial_learning_rate}, train_dir {args.train_dir}")
    if args.job_name:
        train_replicated(args, spec)
    else:
        train(args, spec)


if __name__ == "__main__":
    main()
