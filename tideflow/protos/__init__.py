"""TensorFlow-wire-compatible protocol buffers (package ``tideflow``) and their generated modules."""
