"""``tensorflow.python.ops.ragged``: the modules of TF's ragged package that programs and TF's
string tests import (factory functions, the RaggedTensor class, the ragged string ops)."""
