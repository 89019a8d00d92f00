"""tideflow.ops layer (see DESIGN.md)."""
