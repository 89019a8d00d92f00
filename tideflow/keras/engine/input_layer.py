"""``InputLayer`` and ``Input``: the placeholder a functional model starts from."""

from tideflow.framework import dtypes, ops
from tideflow.keras import backend as K
from tideflow.keras.engine.base_layer import Layer


class InputLayer(Layer):
    """Holds the model's input placeholder (``input_1``, ``input_2``... by default), or wraps
    ``input_tensor``."""

    def __init__(self, input_shape=None, batch_size=None, dtype=None, input_tensor=None,
                 sparse=False, name=None, ragged=False, **kwargs):
        batch_input_shape = kwargs.pop("batch_input_shape", None)
        if kwargs:
            raise ValueError(f"Unrecognized keyword arguments: {list(kwargs)}")
        if input_shape is not None and batch_input_shape is not None:
            raise ValueError("Only provide the input_shape OR batch_input_shape argument to "
                             "InputLayer, not both at the same time.")
        if not name:
            name = f"input_{K.get_uid('input')}"
        if dtype is None:
            dtype = input_tensor.dtype.base_dtype.name if input_tensor is not None else K.floatx()
        super().__init__(dtype=dtype, name=name)
        self.built = True
        self.sparse = sparse
        self.ragged = ragged
        if input_tensor is None:
            if batch_input_shape is None:
                if input_shape is None:
                    raise ValueError("Please provide to Input either a `shape` or a `tensor` "
                                     "argument.")
                batch_input_shape = (batch_size,) + tuple(input_shape)
            batch_input_shape = tuple(batch_input_shape)
            with ops.name_scope(""):
                # (sparse: TF 1.x's SparseTensor placeholder, its indices, values and shape)
                input_tensor = K.placeholder(shape=batch_input_shape, dtype=dtype, name=self.name,
                                             sparse=sparse, ragged=ragged)
            self.is_placeholder = True
        else:
            if not isinstance(input_tensor, ops.Tensor):
                raise ValueError(f"InputLayer(input_tensor=...) needs a Tensor, got "
                                 f"{input_tensor!r}")
            shape = input_tensor.get_shape()
            batch_input_shape = None if shape.ndims is None else tuple(shape.as_list())
            self.is_placeholder = False
        self._batch_input_shape = batch_input_shape
        self._dtype = dtypes.as_dtype(dtype).base_dtype.name
        self._add_node([], input_tensor, {}, ([], []))

    # As in TF, the input layer's node takes its placeholder in and gives it out, so
    # ``input`` / ``input_shape`` are ``output`` / ``output_shape`` (the node itself
    # keeps no inbound tensors: nothing feeds it inside a model's graph).
    @property
    def input(self):
        return self.output

    @property
    def input_shape(self):
        return self.output_shape

    @property
    def output_shape(self):
        # TF 1.15's node holds the placeholder in a list: the layer's shape is a list of one
        # (``get_output_shape_at`` unwraps it)
        return [super().output_shape]

    def get_input_at(self, node_index):
        return self.get_output_at(node_index)

    def get_input_shape_at(self, node_index):
        return self.get_output_shape_at(node_index)

    def get_config(self):
        return {"batch_input_shape": self._batch_input_shape, "dtype": self.dtype,
                "sparse": self.sparse, "ragged": self.ragged, "name": self.name}


def Input(shape=None, batch_size=None, name=None, dtype=None, sparse=False, tensor=None,
          ragged=False, **kwargs):
    """A symbolic input: the placeholder of a new ``InputLayer`` (``shape`` excludes the batch
    axis; ``batch_shape=`` gives the full shape)."""
    batch_shape = kwargs.pop("batch_shape", None)
    if shape is not None and batch_shape is not None:
        raise ValueError("Only provide the shape OR batch_shape argument to Input, not both at "
                         "the same time.")
    if kwargs:
        raise ValueError(f"Unrecognized keyword arguments: {list(kwargs)}")
    if shape is None and tensor is None and batch_shape is None:
        raise ValueError("Please provide to Input either a `shape` or a `tensor` argument. "
                         "Note that `shape` does not include the batch dimension.")
    if isinstance(shape, int):
        shape = (shape,)
    layer = InputLayer(input_shape=shape if batch_shape is None else None, batch_size=batch_size,
                       name=name, dtype=dtype, sparse=sparse, ragged=ragged, input_tensor=tensor,
                       batch_input_shape=batch_shape)
    return layer._inbound_nodes[0].output_tensors[0]
