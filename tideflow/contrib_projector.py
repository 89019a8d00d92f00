"""``tf.contrib.tensorboard.plugins.projector``: the embedding projector's config.

``ProjectorConfig`` (with ``EmbeddingInfo`` and ``SpriteMetadata``) is TensorBoard's
``projector_config.proto``, built here from its field list at import time (it is small and
only ever written as text); ``visualize_embeddings`` writes it as ``projector_config.pbtxt``
next to a summary writer's event files, where TensorBoard's projector looks for it.
"""

import os

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory, text_format

__all__ = ["EmbeddingInfo", "ProjectorConfig", "SpriteMetadata", "visualize_embeddings"]

PROJECTOR_FILENAME = "projector_config.pbtxt"

_FIELDS = {
    "SpriteMetadata": [("image_path", 1, "string", False),
                       ("single_image_dim", 2, "uint32", True)],
    "EmbeddingInfo": [("tensor_name", 1, "string", False),
                      ("metadata_path", 2, "string", False),
                      ("bookmarks_path", 3, "string", False),
                      ("tensor_shape", 4, "uint32", True),
                      ("sprite", 5, ".tensorboard.SpriteMetadata", False),
                      ("tensor_path", 6, "string", False)],
    "ProjectorConfig": [("model_checkpoint_path", 1, "string", False),
                        ("embeddings", 2, ".tensorboard.EmbeddingInfo", True),
                        ("model_checkpoint_dir", 3, "string", False)],
}
_SCALARS = {"string": descriptor_pb2.FieldDescriptorProto.TYPE_STRING,
            "uint32": descriptor_pb2.FieldDescriptorProto.TYPE_UINT32}


def _build_classes():
    file_proto = descriptor_pb2.FileDescriptorProto(
        name="tideflow/contrib/projector_config.proto", package="tensorboard", syntax="proto3")
    for message_name, fields in _FIELDS.items():
        message = file_proto.message_type.add(name=message_name)
        for name, number, kind, repeated in fields:
            field = message.field.add(
                name=name, number=number,
                label=(descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED if repeated
                       else descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL))
            if kind in _SCALARS:
                field.type = _SCALARS[kind]
            else:
                field.type = descriptor_pb2.FieldDescriptorProto.TYPE_MESSAGE
                field.type_name = kind
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file_proto)
    return [message_factory.GetMessageClass(pool.FindMessageTypeByName(f"tensorboard.{name}"))
            for name in _FIELDS]


SpriteMetadata, EmbeddingInfo, ProjectorConfig = _build_classes()


def visualize_embeddings(summary_writer, config):
    """Writes ``config`` as text to ``projector_config.pbtxt`` in ``summary_writer``'s
    log directory."""
    logdir = summary_writer.get_logdir()
    if logdir is None:
        raise ValueError("Summary writer must have a logdir")
    os.makedirs(logdir, exist_ok=True)
    with open(os.path.join(logdir, PROJECTOR_FILENAME), "w", encoding="utf-8") as f:
        f.write(text_format.MessageToString(config))
