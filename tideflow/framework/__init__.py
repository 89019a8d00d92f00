"""tideflow.framework layer (see DESIGN.md)."""
