"""The core suite's `slow` tests (heavier property runs) run only when `-m` names them."""

from __future__ import annotations

from pathlib import Path

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if "slow" in (config.getoption("markexpr") or ""):
        return
    here = Path(__file__).parent
    skip = pytest.mark.skip(reason="slow: run with -m slow")
    for item in items:
        if "slow" in item.keywords and here in item.path.parents:
            item.add_marker(skip)
