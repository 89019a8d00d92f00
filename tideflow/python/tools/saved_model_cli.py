"""``tensorflow.python.tools.saved_model_cli``: what ``saved_model_cli show`` and ``scan`` print
about a SavedModel (its tag-sets, SignatureDef keys, each signature's inputs and outputs), line
for line as TF 1.15. ``run`` and ``convert`` are not provided.

``python -m tideflow.python.tools.saved_model_cli show --dir DIR --all`` runs it from a shell.
"""

import argparse
import sys

from tideflow.framework import meta_graph as meta_graph_lib
from tideflow.protos import types_pb2
from tideflow.python.tools import saved_model_utils

# ops that read or write files outside the model (TF's list)
_OP_BLACKLIST = {"WriteFile", "ReadFile", "PrintV2"}


def _show_tag_sets(saved_model_dir):
    print("The given SavedModel contains the following tag-sets:")
    for tags in sorted(saved_model_utils.get_saved_model_tag_sets(saved_model_dir)):
        print(", ".join(sorted(tags)))


def get_meta_graph_def(saved_model_dir, tag_set):
    """The MetaGraphDef of ``tag_set`` (tags joined by ',')."""
    return saved_model_utils.get_meta_graph_def(saved_model_dir, tag_set)


def get_signature_def_map(saved_model_dir, tag_set):
    """The SignatureDef map of the MetaGraphDef of ``tag_set``."""
    return get_meta_graph_def(saved_model_dir, tag_set).signature_def


def _show_signature_def_map_keys(saved_model_dir, tag_set):
    signatures = get_signature_def_map(saved_model_dir, tag_set)  # (fails before printing)
    print("The given SavedModel MetaGraphDef contains SignatureDefs with the following keys:")
    for key in sorted(signatures):
        print(f'SignatureDef key: "{key}"')


def _dtype_name(enum):
    return types_pb2.DataType.Name(enum) if enum in types_pb2.DataType.values() else str(enum)


def _print_tensor_info(tensor_info, indent=0):
    pad = "  " * indent
    print(f"{pad}    dtype: {_dtype_name(tensor_info.dtype)}")
    shape = tensor_info.tensor_shape
    text = ("unknown_rank" if shape.unknown_rank
            else "(" + ", ".join(str(d.size) for d in shape.dim) + ")")
    print(f"{pad}    shape: {text}")
    print(f"{pad}    name: {tensor_info.name}")


def _show_inputs_outputs(saved_model_dir, tag_set, signature_def_key, indent=0):
    signature = get_meta_graph_def(saved_model_dir, tag_set).signature_def[signature_def_key]
    pad = "  " * indent
    for word, kind, infos in (("input(s)", "inputs", signature.inputs),
                              ("output(s)", "outputs", signature.outputs)):
        print(f"{pad}The given SavedModel SignatureDef contains the following {word}:")
        for key, info in sorted(infos.items()):
            print(f"{pad}  {kind}['{key}'] tensor_info:")
            _print_tensor_info(info, indent + 1)
    print(f"{pad}Method name is: {signature.method_name}")


def _show_all(saved_model_dir):
    for tags in sorted(saved_model_utils.get_saved_model_tag_sets(saved_model_dir)):
        # (the tags as stored, not sorted, as TF prints them here)
        print(f"\nMetaGraphDef with tag-set: '{', '.join(tags)}' contains the following "
              "SignatureDefs:")
        tag_set = ",".join(tags)
        for key in sorted(get_signature_def_map(saved_model_dir, tag_set)):
            print(f"\nsignature_def['{key}']:")
            _show_inputs_outputs(saved_model_dir, tag_set, key, indent=1)


def scan_meta_graph_def(meta_graph_def):
    """Prints whether the graph uses any op of the blacklist."""
    used = _OP_BLACKLIST & set(meta_graph_lib.ops_used_by_graph_def(meta_graph_def.graph_def))
    tags = meta_graph_def.meta_info_def.tags
    if used:
        print(f"MetaGraph with tag set {tags} contains the following blacklisted ops:", used)
    else:
        print(f"MetaGraph with tag set {tags} does not contain blacklisted ops.")


def show(args):
    """``show``: everything (--all), the tag-sets, one tag-set's signature keys, or one
    signature's inputs and outputs."""
    if args.all:
        _show_all(args.dir)
    elif args.tag_set is None:
        _show_tag_sets(args.dir)
    elif args.signature_def is None:
        _show_signature_def_map_keys(args.dir, args.tag_set)
    else:
        _show_inputs_outputs(args.dir, args.tag_set, args.signature_def)


def scan(args):
    """``scan``: the blacklisted ops of one tag-set's graph, or of every graph."""
    if args.tag_set:
        scan_meta_graph_def(saved_model_utils.get_meta_graph_def(args.dir, args.tag_set))
    else:
        for meta_graph_def in saved_model_utils.read_saved_model(args.dir).meta_graphs:
            scan_meta_graph_def(meta_graph_def)


def create_parser():
    """The command line: ``show`` and ``scan`` with TF's options."""
    parser = argparse.ArgumentParser(
        description="saved_model_cli: Command-line interface for SavedModel")
    parser.add_argument("-v", "--version", action="version", version="0.1.0")
    commands = parser.add_subparsers(title="commands", description="valid commands",
                                     help="additional help")
    p_show = commands.add_parser("show", formatter_class=argparse.RawTextHelpFormatter,
                                 description="Show the tag-sets, SignatureDefs and their "
                                             "inputs and outputs of a SavedModel.")
    p_show.add_argument("--dir", type=str, required=True,
                        help="directory containing the SavedModel to inspect")
    p_show.add_argument("--all", action="store_true",
                        help="if set, will output all information in given SavedModel")
    p_show.add_argument("--tag_set", type=str, default=None,
                        help="tag-set of graph in SavedModel to show, separated by ','")
    p_show.add_argument("--signature_def", type=str, default=None, metavar="SIGNATURE_DEF_KEY",
                        help="key of SignatureDef to display input(s) and output(s) for")
    p_show.set_defaults(func=show)
    p_scan = commands.add_parser("scan", formatter_class=argparse.RawTextHelpFormatter,
                                 description="Scan a SavedModel for blacklisted ops.")
    p_scan.add_argument("--dir", type=str, required=True,
                        help="directory containing the SavedModel to execute")
    p_scan.add_argument("--tag_set", type=str,
                        help="tag-set of graph in SavedModel to scan, separated by ','")
    p_scan.set_defaults(func=scan)
    return parser


def main(argv=None):
    parser = create_parser()
    args = parser.parse_args(argv)
    if not hasattr(args, "func"):
        parser.error("too few arguments")
    args.func(args)


if __name__ == "__main__":
    sys.exit(main())
