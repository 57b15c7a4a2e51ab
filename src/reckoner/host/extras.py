"""Which optional packages a feature needs, whether they are installed, and the one sentence
that names the install command when they are not.

The base install is the engine, the MCP server and the panel. The lookup (``search``) and
the model article writers (``models``) need the provider SDKs, and the lookup also the page
extractor; they are extras of the distribution, so a feature reaches its packages through
``require`` at its boundary (the providers package's ``open_client``, the page extractor)
and a missing one answers ``MissingExtra`` instead of an ImportError. The distribution's
``pyproject.toml`` lists the same packages; a test checks the two agree.
"""

from __future__ import annotations

import importlib.util
from typing import Literal

DISTRIBUTION = "reckoner-mcp"
"""The name on PyPI (``reckoner`` there is another project's); the command stays
``reckoner``."""

Extra = Literal["search", "models"]

EXTRAS: dict[Extra, tuple[str, ...]] = {
    "search": ("anthropic", "openai", "trafilatura"),
    "models": ("anthropic", "openai"),
}
"""Each extra's packages by their import names (here the same as the distribution names)."""

FEATURES: dict[Extra, str] = {
    "search": "the web lookup (the search tool)",
    "models": "a model-written article (the openai and anthropic writers)",
}


class MissingExtra(Exception):
    """A feature whose extra is not installed; ``str()`` is a clause (lower case, no full
    stop) a caller's own sentence embeds, ``sentence`` the same as a sentence of its own."""

    def __init__(self, extra: Extra, missing: tuple[str, ...]) -> None:
        self.extra = extra
        self.missing = missing
        super().__init__(
            f"{FEATURES[extra]} needs the {extra} extra, which is not installed "
            f"({', '.join(missing)} missing); install it with "
            f"{install_command(extra)}"
        )

    @property
    def sentence(self) -> str:
        text = str(self)
        return f"{text[:1].upper()}{text[1:]}."


def install_command(extra: Extra) -> str:
    """The command that installs the ``reckoner`` command with ``extra``."""
    return f"uv tool install '{DISTRIBUTION}[{extra}]'"


def missing(extra: Extra) -> tuple[str, ...]:
    """The extra's packages that cannot be imported here (found without importing them)."""
    absent = []
    for name in EXTRAS[extra]:
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):  # a broken or half-removed install
            found = False
        if not found:
            absent.append(name)
    return tuple(absent)


def require(extra: Extra) -> None:
    """Return when the extra's packages are all installed, else raise MissingExtra."""
    absent = missing(extra)
    if absent:
        raise MissingExtra(extra, absent)
