"""stub."""

__all__ = []
