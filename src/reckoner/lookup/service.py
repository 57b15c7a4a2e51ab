"""The `search` tool as the engine serves it: policy resolved per call, then the pipeline.

Reads the user's override from state.json's ``search`` subtree on every call (through
storage.state_file, the one module that touches the file), so a settings write reaches the
very next lookup. The preset layer is the one search's own preset ships beside its persona,
whichever preset serves the tool.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from importlib import resources
from typing import Any

from reckoner.contract.search import SEARCH_TOOL
from reckoner.host.extras import MissingExtra, require
from reckoner.providers.config import (
    BASE_URL_VARIABLES,
    KEY_VARIABLES,
    MODEL_VARIABLES,
    Kind,
    configured_urls,
    model_for,
    scrub,
)
from reckoner.service.engine import Engine
from reckoner.storage.home import HomeLayout
from reckoner.storage.run_log import RunLog
from reckoner.storage.state_file import StateFile

from . import pipeline
from .cache import LookupCache
from .deadline import Deadline
from .pages import PageFetcher
from .policy import Policy, Resolution, resolve
from .providers import NotConfigured, Provider, choose
from .sdk_provider import SdkProvider

STATE_KEY = "search"


LAYER_PRESET: str = SEARCH_TOOL.own_preset or ""
"""The preset whose file holds search's preset layer: the tool's own, for every preset
that serves it (``reckoner-with-search`` and ``reckoner-with-search-and-compute`` alike)."""


def preset_layer() -> dict[str, Any]:
    """The policy layer search's own preset ships (``presets/<preset>.json``'s ``search``),
    or {}."""
    path = resources.files("reckoner.server") / "presets" / f"{LAYER_PRESET}.json"
    try:
        tree = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    layer = tree.get("search") if isinstance(tree, dict) else None
    return layer if isinstance(layer, dict) else {}


def build_provider(
    name: Kind,
    env: Mapping[str, str],
    *,
    timeout: float | None = None,
    max_retries: int | None = None,
) -> Provider:
    """The provider's client, its key and base URL from ``env`` under the providers
    package's rule (an unset base URL is the provider's own endpoint)."""
    return SdkProvider(name, env, timeout=timeout, retries=max_retries)


class SearchTool:
    """The engine's FactTool for `search` (service.facts.FactTool)."""

    def __init__(
        self,
        state: StateFile,
        preset: Mapping[str, Any],
        log: RunLog,
        *,
        env: Mapping[str, str] | None = None,
        make_provider: Callable[[Kind, Mapping[str, str]], Provider] = build_provider,
    ) -> None:
        self._state = state
        self._preset = preset
        self._log = log
        self._env = env
        self._make_provider = make_provider
        self._providers: dict[tuple[str, ...], Provider] = {}
        self._cache = LookupCache(state.layout)

    def policy(self) -> Resolution:
        """The policy as the next lookup would resolve it; unusable values are logged."""
        resolution = resolve(self._preset, self._state.subtree(STATE_KEY))
        for note in resolution.notes:
            self._log.warn(note)
        return resolution

    def announce(self) -> None:
        """Say in the log which provider a lookup would use now (never its key)."""
        env = os.environ if self._env is None else self._env
        try:
            require("search")
            name = choose(env)
        except (NotConfigured, MissingExtra) as why:
            self._log.warn(f"search is served but unavailable: {why}")
            return
        base = configured_urls(name, env)[0]
        model = model_for(name, "lookup", env)
        self._log.info("search provider", provider=name, model=model, base=base)

    def _provider_for(self, wanted: str | None) -> Provider:
        env = os.environ if self._env is None else self._env
        name = choose(env, wanted)
        # Clients are reused while the variables that shape them stay the same.
        key = (name, *(env.get(v, "") for v in _shaping(name)))
        provider = self._providers.get(key)
        if provider is None:
            provider = self._make_provider(name, env)
            self._providers[key] = provider
        return provider

    def run(
        self, args: dict[str, Any], earlier: list[dict[str, Any]], pending: int
    ) -> tuple[bool, dict[str, Any], dict[str, Any]]:
        question: str = args["question"]
        resolution = self.policy()
        policy: Policy = resolution.policy
        env = os.environ if self._env is None else self._env
        try:
            outcome = pipeline.run(
                pipeline.Request(
                    question,
                    policy,
                    earlier,
                    pending,
                    resolution.notes,
                    lambda: self._cache.recall(question, policy),
                ),
                pipeline.Means(
                    self._provider_for,
                    Deadline(policy.deadline_s),
                    lambda p: PageFetcher(p.allows, p.allow_private_addresses),
                ),
            )
        except Exception as error:  # an SDK or library fault the pipeline did not foresee
            self._log.error("lookup failed", error=scrub(f"{type(error).__name__}: {error}", env))
            outcome = pipeline.unexpected(question, policy, type(error).__name__)
        if outcome.ok and not outcome.content.get("cached"):
            self._cache.keep(question, policy, outcome.content, outcome.receipt)
        for note in outcome.notes:
            self._log.info(scrub(note, env))
        self._log.info(
            "lookup",
            outcome=outcome.content["outcome"],
            tier=policy.tier,
            candidates=len(outcome.content["candidates"]),
            used=len(outcome.content["used"]),
            cached=bool(outcome.content.get("cached")),
            durationMs=outcome.content["durationMs"],
        )
        return outcome.ok, outcome.receipt, outcome.content


def _shaping(name: Kind) -> tuple[str, ...]:
    """The variables a provider's client is built from."""
    return (*KEY_VARIABLES[name], BASE_URL_VARIABLES[name], MODEL_VARIABLES[name])


def attach_search(engine: Engine) -> SearchTool:
    """Serve `search` through ``engine`` under its preset's policy layer; the tool."""
    tool = SearchTool(StateFile(HomeLayout(engine.home)), preset_layer(), engine.log)
    engine.attach("search", tool)
    tool.announce()
    return tool
