"""An engine with `search` attached, its environment pointing the SDKs at the fakes."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from fakes import FakeAnthropic, FakeOpenAI
from mcp.client.stdio import StdioServerParameters

from home_rows import record_rows
from reckoner import Engine
from reckoner.lookup.service import SearchTool, build_provider
from reckoner.storage.home import HomeLayout
from reckoner.storage.state_file import StateFile

ANTHROPIC_KEY = "sk-ant-test-SECRET-4f2a9c"
OPENAI_KEY = "sk-openai-test-SECRET-77b1"


class Lookups:
    """One home: an engine, its search tool and the environment the tool reads."""

    def __init__(self, home: Path, anthropic: FakeAnthropic, openai: FakeOpenAI) -> None:
        self.home = home
        self.anthropic = anthropic
        self.openai = openai
        self.env: dict[str, str] = {
            "ANTHROPIC_API_KEY": ANTHROPIC_KEY,
            "ANTHROPIC_BASE_URL": anthropic.root,
        }
        self.preset: dict[str, Any] = {"tier": "strict"}
        self.make_provider: Any = _quick_provider
        self.engine: Engine | None = None
        self.open()

    def use_openai_only(self) -> None:
        self.env.clear()
        self.env.update({"OPENAI_API_KEY": OPENAI_KEY, "OPENAI_BASE_URL": self.openai.root + "/v1"})

    def open(self) -> Engine:
        self.engine = Engine(self.home)
        tool = SearchTool(
            StateFile(HomeLayout(self.home)),
            self.preset,
            self.engine.log,
            env=self.env,
            make_provider=self.make_provider,
        )
        self.engine.attach("search", tool)
        return self.engine

    def with_shipped_timeouts(self) -> None:
        """Clients with the lookup's own timeout (45 s) and retry, as the server opens them."""
        self.make_provider = build_provider
        self.restart()

    def restart(self) -> Engine:
        self.close()
        return self.open()

    def close(self) -> None:
        if self.engine is not None:
            self.engine.close()
            self.engine = None

    def call(self, tool: str, args: Any) -> dict[str, Any]:
        assert self.engine is not None
        return self.engine.call(tool, args)

    def start(self, title: str = "Copper bar") -> None:
        assert self.call("record_start", {"title": title}) == {"ok": True}

    def search(self, question: str = "What is the density of copper?") -> dict[str, Any]:
        return self.call("search", {"question": question})

    def override(self, subtree: dict[str, Any] | None) -> None:
        StateFile(HomeLayout(self.home)).write_subtree("search", subtree)

    def rows(self) -> list[dict[str, Any]]:
        return record_rows(self.home)

    def search_rows(self) -> list[dict[str, Any]]:
        return [row for row in self.rows() if row["tool"] == "search"]

    def log_text(self) -> str:
        return "".join(p.read_text("utf-8") for p in sorted((self.home / "logs").glob("*.log")))


def serve_params(
    home: Path, preset: str, fake: FakeAnthropic, *extra: str
) -> StdioServerParameters:
    """``reckoner serve --preset PRESET`` over stdio, its SDK pointed at the fake provider by
    the provider's own variables (the rest of the environment is the SDK's default)."""
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "reckoner", "serve", "--home", str(home), "--preset", preset, *extra],
        env={"ANTHROPIC_API_KEY": ANTHROPIC_KEY, "ANTHROPIC_BASE_URL": fake.root},
    )


def _quick_provider(name: str, env: Mapping[str, str]) -> Any:
    # No retries and a short timeout, so a refused or silent fake answers at once.
    return build_provider(name, env, timeout=2.0, max_retries=0)
