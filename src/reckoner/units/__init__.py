"""Units in and out of SI: the unit catalogue is pint's default registry, read lazily.

The only package that imports pint (an import-linter contract holds it to that). The core
receives resolved units as data (`reckoner.core.conversion.UnitSpec`), so it stays free of I/O.
"""

from .catalogue import resolve_unit

__all__ = ["resolve_unit"]
