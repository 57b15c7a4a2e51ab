"""panel."""
