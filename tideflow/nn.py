"""``tf.nn``: neural-network ops (explicit re-exports)."""

# --- activations, softmax, losses, normalization, embeddings (nn_ops.py, nn_impl.py) ---

# --- convolution and pooling (conv_ops.py, pooling_ops.py) ---
