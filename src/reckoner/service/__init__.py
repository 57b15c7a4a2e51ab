"""The service layer: the `Engine` a host runs on top of the pure core and the storage."""

from .engine import Engine

__all__ = ["Engine"]
