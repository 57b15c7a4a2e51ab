"""The providers package (issue 21): the one owner of the model SDKs, their variables,
defaults and the rule on where a key may go."""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from reckoner.providers.chat import open_client
from reckoner.providers.config import (
    DEFAULT_BASE_URLS,
    PROVIDERS,
    Kind,
    endpoint,
    model_for,
)
from reckoner.providers.failures import ProviderFailure

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "reckoner"
SDK_OWNERS = {"anthropic": "providers/anthropic_api.py", "openai": "providers/openai_api.py"}
KEY = "sk-env-key-7731"


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in (
        "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN",
        "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL", "OPENAI_MODEL", "ANTHROPIC_MODEL",
    ):  # fmt: skip
        monkeypatch.delenv(variable, raising=False)


def test_the_template_writer_and_the_lookups_pure_modules_never_import_a_provider_sdk() -> None:
    probe = (
        "import sys\n"
        "import reckoner.articles.writers.template, reckoner.articles.writers.choose\n"
        "import reckoner.lookup.policy, reckoner.lookup.extraction, reckoner.lookup.pipeline\n"
        "import reckoner.lookup.fact, reckoner.lookup.service, reckoner.providers.chat\n"
        "print(sorted(m for m in ('anthropic', 'openai') if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip() == "[]", done.stderr


def _imported_roots(path: Path) -> set[str]:
    roots: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


def test_each_sdk_is_imported_by_its_own_module_of_the_package_and_nowhere_else() -> None:
    for path in sorted(SRC.rglob("*.py")):
        name = path.relative_to(SRC).as_posix()
        for sdk in _imported_roots(path) & set(SDK_OWNERS):
            assert name == SDK_OWNERS[sdk], f"{name} imports {sdk}"
    for sdk, owner in SDK_OWNERS.items():
        assert sdk in _imported_roots(SRC / owner)
    assert not (SRC / "lookup" / "anthropic_provider.py").exists()
    assert not (SRC / "lookup" / "openai_provider.py").exists()


def test_the_contracts_put_the_package_below_the_lookup_and_keep_both_callers_off_the_sdks() -> (
    None
):
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["importlinter"][
        "contracts"
    ]
    layers = next(c for c in contracts if c["type"] == "layers" and "containers" not in c)["layers"]
    assert (
        layers.index("reckoner.articles")
        < layers.index("reckoner.lookup")
        < layers.index("reckoner.providers")
        < layers.index("reckoner.service | reckoner.compute")
    )
    sdk = next(c for c in contracts if c["name"].startswith("One module per provider SDK"))
    assert {"reckoner.articles", "reckoner.lookup"} <= set(sdk["source_modules"])
    assert set(sdk["forbidden_modules"]) == {"anthropic", "openai"}


@pytest.mark.parametrize("kind", PROVIDERS)
def test_with_no_override_the_real_sdk_clients_go_to_the_providers_own_urls(kind: Kind) -> None:
    import anthropic
    import openai

    own = anthropic.Anthropic(api_key="x") if kind == "anthropic" else openai.OpenAI(api_key="x")
    client = open_client(endpoint(kind, {f"{kind.upper()}_API_KEY": KEY}), "article")
    try:
        sdk_client = client._client  # type: ignore[attr-defined]
        assert type(sdk_client) is type(own)
        assert str(sdk_client.base_url).rstrip("/") == str(own.base_url).rstrip("/")
        assert str(own.base_url).rstrip("/") == DEFAULT_BASE_URLS[kind]
    finally:
        client.close()
        own.close()


@pytest.mark.parametrize("kind", PROVIDERS)
def test_an_environment_key_is_given_only_for_a_configured_url(kind: Kind) -> None:
    variable = f"{kind.upper()}_API_KEY"
    env = {variable: KEY, f"{kind.upper()}_BASE_URL": "http://127.0.0.1:4000/v1"}
    assert endpoint(kind, env).key == KEY
    assert endpoint(kind, env, typed_url="HTTP://127.0.0.1:4000/v1/").key == KEY
    assert endpoint(kind, {variable: KEY}).base_url == DEFAULT_BASE_URLS[kind]
    saved = endpoint(kind, {variable: KEY}, configured=["http://10.0.0.5/"], typed_url=None)
    assert saved.base_url == "http://10.0.0.5/" and saved.key == KEY
    with pytest.raises(ProviderFailure, match="nothing was sent") as refused:
        endpoint(kind, env, typed_url="http://evil.example/v1")
    assert KEY not in str(refused.value)
    typed = endpoint(kind, env, typed_url="http://evil.example/v1", typed_key="sk-own")
    assert typed.key == "sk-own" and KEY not in repr(typed)
    # No key anywhere: a keyless local server gets the placeholder, the default URL a refusal.
    assert endpoint(kind, {}, typed_url="http://127.0.0.1:11434/v1").key == "unused"
    with pytest.raises(ProviderFailure, match=f"no {variable} is set"):
        endpoint(kind, {})


def test_anthropic_auth_token_is_accepted_by_every_caller_and_sent_as_a_bearer_token() -> None:
    token = endpoint("anthropic", {"ANTHROPIC_AUTH_TOKEN": KEY})
    assert token.bearer and token.key == KEY and token.key_variable == "ANTHROPIC_AUTH_TOKEN"
    client = open_client(token, "lookup")
    try:
        sdk_client = client._client  # type: ignore[attr-defined]
        assert sdk_client.auth_token == KEY and sdk_client.api_key is None
    finally:
        client.close()


def test_one_table_of_default_models_keyed_by_purpose() -> None:
    assert model_for("anthropic", "lookup", {}) != model_for("anthropic", "article", {})
    assert model_for("openai", "article", {"OPENAI_MODEL": "local-7b"}) == "local-7b"
    assert model_for("openai", "article", {"OPENAI_MODEL": "local-7b"}, "chosen") == "chosen"
