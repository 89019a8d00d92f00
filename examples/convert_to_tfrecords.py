"""Writes an image data set as sharded TFRecord files of ``tf.train.Example`` protos
(``train-00000-of-00004``, ...), for ``image_train.py`` and ``image_eval.py``.

    python examples/convert_to_tfrecords.py --dataset digits --output_dir /tmp/digits
    python examples/convert_to_tfrecords.py --train_directory imgs/train \\
        --validation_directory imgs/val --output_dir /tmp/imgs

A folder holds one sub-folder of PNG/JPEG images per class; labels are the sorted class names'
indices (plus ``--label_offset``), and ``labels.txt`` in the output lists the classes.
"""

import argparse
import os

import tideflow as tf
from tideflow.models import tfrecords


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dataset", choices=["digits", "folder"], default="folder")
    ap.add_argument("--output_dir", required=True)
    ap.add_argument("--train_directory", help="class sub-folders of training images")
    ap.add_argument("--validation_directory", help="class sub-folders of validation images")
    ap.add_argument("--train_shards", type=int, default=4)
    ap.add_argument("--validation_shards", type=int, default=2)
    ap.add_argument("--label_offset", type=int, default=0,
                    help="added to each class index (1 keeps 0 for a background class)")
    args = ap.parse_args(argv)

    if args.dataset == "digits":
        counts = tfrecords.convert_digits(args.output_dir, args.train_shards,
                                          args.validation_shards)
        labels = [str(i) for i in range(10)]
    else:
        if not args.train_directory:
            ap.error("--train_directory is required for --dataset folder")
        _, _, texts = tfrecords.find_image_files(args.train_directory)
        labels = sorted(set(texts))
        counts = {"train": tfrecords.convert_image_folder(
            args.train_directory, args.output_dir, "train", args.train_shards, labels,
            args.label_offset)}
        if args.validation_directory:
            counts["validation"] = tfrecords.convert_image_folder(
                args.validation_directory, args.output_dir, "validation",
                args.validation_shards, labels, args.label_offset)
    with tf.gfile.GFile(os.path.join(args.output_dir, "labels.txt"), "w") as f:
        f.write("".join(f"{label}\n" for label in labels))
    for name, count in counts.items():
        print(f"{name}: {count} examples")


if __name__ == "__main__":
    main()
