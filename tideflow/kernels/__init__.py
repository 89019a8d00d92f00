"""tideflow.kernels layer (see DESIGN.md)."""
