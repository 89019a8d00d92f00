"""``tensorflow.python.tools.saved_model_utils``: read a SavedModel's MetaGraphDefs."""

import os

from tideflow.ops.saved_model_impl import parse_saved_model


def read_saved_model(saved_model_dir):
    """The SavedModel proto of ``saved_model_dir`` (IOError when there is none, naming the
    directory only, as TF 1.15's tool does)."""
    if not any(os.path.exists(os.path.join(os.fsdecode(saved_model_dir), f))
               for f in ("saved_model.pbtxt", "saved_model.pb")):
        raise OSError(f"SavedModel file does not exist at: {os.fsdecode(saved_model_dir)}")
    return parse_saved_model(saved_model_dir)


def get_saved_model_tag_sets(saved_model_dir):
    """The tag set (a list of tags) of each MetaGraphDef of the SavedModel."""
    return [list(mg.meta_info_def.tags) for mg in read_saved_model(saved_model_dir).meta_graphs]


def get_meta_graph_def(saved_model_dir, tag_set):
    """The MetaGraphDef whose tags are exactly ``tag_set`` (comma-separated string);
    RuntimeError naming the tag set when none has them."""
    wanted = set(tag_set.split(","))
    for meta_graph_def in read_saved_model(saved_model_dir).meta_graphs:
        if set(meta_graph_def.meta_info_def.tags) == wanted:
            return meta_graph_def
    raise RuntimeError("MetaGraphDef associated with tag-set " + tag_set +
                       " could not be found in SavedModel")
