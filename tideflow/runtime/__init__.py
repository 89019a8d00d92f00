"""tideflow.runtime layer (see DESIGN.md)."""
