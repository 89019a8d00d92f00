"""``tf.saved_model.load_v2`` in TF 1.15's graph mode: a SavedModel as an object whose
``signatures`` are callables.

Loading reads the variables' saved values (through a private session) and makes a variable
for each in the default graph, initialized to its value, so ``tf.global_variables_initializer``
restores the model. Calling a signature adds the ops its outputs need, reading the given
tensors and those variables, and returns its outputs by key (through one IdentityN named as
TF's call op, ``StatefulPartitionedCall``).
"""

from tideflow.framework import dtypes, ops
from tideflow.framework.tensor_shape import TensorShape


def _spec(info, name):
    from tideflow.ops.function_ops import TensorSpec

    shape = (TensorShape(None) if info.tensor_shape.unknown_rank else
             TensorShape([None if d.size < 0 else d.size for d in info.tensor_shape.dim]))
    return TensorSpec(shape, dtypes.as_dtype(info.dtype), name)


class _SignatureFunction:
    """One signature of a loaded SavedModel, called on tensors (by keyword, or positionally
    in its inputs' sorted order); returns ``{output key: tensor}``."""

    def __init__(self, loaded, key, signature_def):
        self._loaded, self.name, self._signature = loaded, key, signature_def
        self._input_keys = sorted(signature_def.inputs)
        self.structured_input_signature = ((), {
            k: _spec(signature_def.inputs[k], k) for k in self._input_keys})
        self.structured_outputs = {k: _spec(v, k) for k, v in signature_def.outputs.items()}

    @property
    def inputs(self):
        return list(self.structured_input_signature[1].values())

    def __call__(self, *args, **kwargs):
        from tideflow.framework import graph_util_impl, importer
        from tideflow.ops import array_ops

        if len(args) > len(self._input_keys):
            raise TypeError(f"{self.name} takes at most {len(self._input_keys)} positional "
                            f"arguments, got {len(args)}")
        given = dict(zip(self._input_keys, args))
        for k, v in kwargs.items():
            if k not in self._signature.inputs or k in given:
                raise TypeError(f"{self.name} got an unexpected or repeated argument {k!r}")
            given[k] = v
        missing = [k for k in self._input_keys if k not in given]
        if missing:
            raise TypeError(f"{self.name} missing required arguments: {', '.join(missing)}")
        input_map = {}
        for k, v in given.items():
            spec = self.structured_input_signature[1][k]
            t = ops.convert_to_tensor(v, dtype=spec.dtype)
            if not spec.shape.is_compatible_with(t.get_shape()):
                raise ValueError(f"{self.name}: argument {k}={t} is not compatible with "
                                 f"{spec}")
            input_map[self._signature.inputs[k].name] = t
        keys = sorted(self._signature.outputs)
        names = [self._signature.outputs[k].name for k in keys]
        graph_def = graph_util_impl.extract_sub_graph(
            self._loaded._meta_graph.graph_def, sorted({n.split(":")[0] for n in names}))
        present = {n.name for n in graph_def.node}
        input_map.update({f"{name}:0": ref for name, ref in self._loaded._refs.items()
                          if name in present})
        with ops.name_scope(None):
            outs = importer.import_graph_def(
                graph_def, input_map=input_map, return_elements=names,
                name=ops.get_default_graph().unique_name(self.name, mark_as_used=False))
        outs = array_ops.identity_n(outs, name="StatefulPartitionedCall") if outs else []
        return dict(zip(keys, outs))

    def __repr__(self):
        return f"<ConcreteFunction {self.name}>"


class _Loaded:
    """A loaded SavedModel: ``signatures`` ({key: callable}) and its ``variables``."""

    def __init__(self, meta_graph, variables, refs):
        self._meta_graph, self._refs = meta_graph, refs
        self.variables = variables
        self.trainable_variables = [v for v in variables if v.trainable]
        self.signatures = {k: _SignatureFunction(self, k, s)
                           for k, s in meta_graph.signature_def.items()
                           if not k.startswith("__")}


def _saved_values(export_dir, tags):
    """``{variable op name: (value, trainable, is a resource variable)}`` of the tagged
    MetaGraph's restored variables."""
    from tideflow.ops import state_ops
    from tideflow.ops import variables as variables_lib
    from tideflow.ops.saved_model_impl import SavedModelLoader
    from tideflow.runtime.session import Session

    graph = ops.Graph()
    with graph.as_default(), Session(graph=graph) as sess:
        SavedModelLoader(export_dir).load(sess, tags)
        trainable = {id(v) for v in graph.get_collection("trainable_variables")}
        found = graph.get_collection("variables")
        # only the variables the SavedModel's checkpoint restored (a graph may list others)
        restored = sess.run([state_ops.is_variable_initialized(v) for v in found])
        found = [v for v, ok in zip(found, restored) if ok]
        values = sess.run([v.value() if hasattr(v, "value") else v for v in found])
        return {v.op.name: (value, id(v) in trainable,
                            isinstance(v, variables_lib.ResourceVariable))
                for v, value in zip(found, values)}


def load_v2(export_dir, tags=None):
    """Loads the SavedModel in ``export_dir`` (its MetaGraph tagged ``tags``, or its only one)
    into the default graph: see the module docstring."""
    from tideflow.ops import variables as variables_lib
    from tideflow.ops.saved_model_impl import SavedModelLoader

    loader = SavedModelLoader(export_dir)
    metas = loader.saved_model.meta_graphs
    if tags is None:
        if len(metas) != 1:
            raise ValueError(
                "Importing a SavedModel with tf.saved_model.load requires a 'tags=' argument "
                f"if there is more than one MetaGraph. Got 'tags=None', but there are "
                f"{len(metas)} MetaGraphs in the SavedModel with tag sets "
                f"{[list(m.meta_info_def.tags) for m in metas]}. Pass a 'tags=' argument to "
                "load this SavedModel.")
        tags = list(metas[0].meta_info_def.tags)
    elif isinstance(tags, str):
        tags = [tags]
    meta = loader.get_meta_graph_def_from_tags(tags)
    made, refs = [], {}
    for name, (value, trainable, resource) in _saved_values(export_dir, tags).items():
        with ops.name_scope(None):
            var = variables_lib.VariableV1(value, trainable=trainable, name=name,
                                           use_resource=resource)
        made.append(var)
        refs[name] = var.handle if resource else var._variable
    return _Loaded(meta, made, refs)


__all__ = ["load_v2"]
