"""Evaluates the checkpoints ``image_train.py`` writes: restores the moving averages of the
weights, runs the model over the validation TFRecords once and reports precision@1 (and @5 with
five or more classes), then waits for the next checkpoint (or stops, with ``--once``).

    python examples/image_eval.py --model digits_cnn --data_dir /tmp/digits \\
        --checkpoint_dir /tmp/digits_train --once
"""

import argparse
import time

import tideflow as tf
from tideflow.models import catalog, inputs


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--checkpoint_dir", "--train_dir", dest="checkpoint_dir",
                    default="/tmp/image_train", help="where image_train.py writes checkpoints")
    ap.add_argument("--eval_dir", help="event files (default: <checkpoint_dir>/eval)")
    ap.add_argument("--data_dir", required=True, help="TFRecord shards <subset>-*-of-*")
    ap.add_argument("--subset", default="validation")
    ap.add_argument("--model", choices=catalog.MODEL_NAMES, default="inception_v3")
    ap.add_argument("--image_size", type=int, help="model input side (default: the model's)")
    ap.add_argument("--depth_multiplier", type=float, default=1.0)
    ap.add_argument("--num_classes", type=int, help="default: the model's")
    ap.add_argument("--batch_size", type=int, default=100)
    ap.add_argument("--moving_average_decay", type=float,
                    help="as in training (default: the model's)")
    ap.add_argument("--once", action="store_true", help="evaluate the latest checkpoint, stop")
    ap.add_argument("--eval_interval_secs", type=float, default=300,
                    help="seconds between looks for a new checkpoint")
    args = ap.parse_args(argv)
    spec = catalog.get(args.model)
    if args.image_size is None:
        args.image_size = spec.image_size
    if args.num_classes is None:
        args.num_classes = spec.num_classes
    if args.moving_average_decay is None:
        args.moving_average_decay = spec.defaults["moving_average_decay"]
    if args.eval_dir is None:
        args.eval_dir = args.checkpoint_dir.rstrip("/") + "/eval"
    return args


def eval_once(saver, checkpoint_path, iterator, top_k_ops, summary_writer):
    """Runs one pass over the data with the weights of ``checkpoint_path``; returns
    (global step, {name: precision}, number of examples)."""
    global_step = int(checkpoint_path.split("-")[-1])
    correct = {name: 0 for name in top_k_ops}
    count = 0
    with tf.Session() as sess:
        saver.restore(sess, checkpoint_path)
        sess.run(iterator.initializer)
        while True:
            try:
                results = sess.run(top_k_ops)
            except tf.errors.OutOfRangeError:
                break
            for name, hits in results.items():
                correct[name] += int(hits.sum())
            count += len(next(iter(results.values())))
    precision = {name: c / max(count, 1) for name, c in correct.items()}
    summary = tf.summary.Summary()
    for name, value in precision.items():
        summary.value.add(tag=name, simple_value=value)
    summary_writer.add_summary(summary, global_step)
    summary_writer.flush()
    return global_step, precision, count


def evaluate(args):
    spec = catalog.get(args.model)
    with tf.Graph().as_default():
        files = inputs.data_files(args.data_dir, args.subset)
        iterator, (images, labels) = inputs.batched_inputs(
            files, args.batch_size,
            lambda image, is_training: spec.preprocess(image, args.image_size, is_training),
            spec.channels, is_training=False, num_epochs=1, one_shot=False)
        options = {"depth_multiplier": args.depth_multiplier} if (
            spec.name == "inception_v3") else {}
        logits, _ = spec.inference(images, args.num_classes, False, **options)
        top_k_ops = {"precision @ 1": tf.nn.in_top_k(logits, labels, 1)}
        if args.num_classes >= 5:
            top_k_ops["precision @ 5"] = tf.nn.in_top_k(logits, labels, 5)

        # evaluate with the moving averages of the weights in place of the weights
        variable_averages = tf.train.ExponentialMovingAverage(args.moving_average_decay)
        saver = tf.train.Saver(variable_averages.variables_to_restore())
        summary_writer = tf.summary.FileWriter(args.eval_dir)

        last_evaluated = None
        while True:
            checkpoint_path = tf.train.latest_checkpoint(args.checkpoint_dir)
            if checkpoint_path is None:
                print(f"No checkpoint in {args.checkpoint_dir} yet")
            elif checkpoint_path != last_evaluated:
                step, precision, count = eval_once(saver, checkpoint_path, iterator,
                                                   top_k_ops, summary_writer)
                last_evaluated = checkpoint_path
                shown = ", ".join(f"{name} = {value:.4f}"
                                  for name, value in sorted(precision.items()))
                print(f"step {step}: {shown} [{count} examples]", flush=True)
            if args.once:
                summary_writer.close()
                return
            time.sleep(args.eval_interval_secs)


def main(argv=None):
    evaluate(parse_args(argv))


if __name__ == "__main__":
    main()
