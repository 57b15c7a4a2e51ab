"""MkDocs hook: the Decisions section of the nav is every file in docs/decisions/.

A decision file added by any change joins the site's nav without an edit to mkdocs.yml, in
the order the index (docs/decisions/README.md) links them, any file it does not link yet
after those, by name. `mkdocs build --strict` still fails on a link that does not resolve.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

SECTION = "Decisions"
INDEX = "decisions/README.md"


def decision_pages(docs_dir: Path) -> list[str]:
    """The decision pages, index first, then in the index's order, then the rest by name."""
    folder = docs_dir / "decisions"
    files = sorted(p.name for p in folder.glob("*.md") if p.name != "README.md")
    linked = re.findall(r"\]\(([\w.-]+\.md)\)", (folder / "README.md").read_text("utf-8"))
    ordered = [name for name in dict.fromkeys(linked) if name in files]
    return [f"decisions/{name}" for name in ordered + [f for f in files if f not in ordered]]


def on_config(config: Any) -> Any:
    pages = decision_pages(Path(config["docs_dir"]))
    for entry in config["nav"]:
        if isinstance(entry, dict) and SECTION in entry:
            entry[SECTION] = [{"Index": INDEX}, *pages]
    return config
