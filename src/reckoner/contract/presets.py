"""The presets' names: which server a client mounts (the tools each serves: registry)."""

from __future__ import annotations

PURE_PRESET = "reckoner"
"""The preset with the six tools and nothing else: no network, no search, no compute."""

SEARCH_PRESET = "reckoner-with-search"
COMPUTE_PRESET = "reckoner-with-compute"
SEARCH_AND_COMPUTE_PRESET = "reckoner-with-search-and-compute"
"""Both preset tools: their rules are the two one-tool presets' texts, composed."""
