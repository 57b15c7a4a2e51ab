"""Issue 21, cases 10 and 11 (the key part): a cut-off model reply is no article, facts over
the token budget are never sent, and a key from the environment reaches only its provider's
configured base URL. Through `reckoner article` as a subprocess and the panel's generate
endpoint over real HTTP, against loopback fakes of each provider's wire protocol with the
official SDKs as the clients."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from article_helpers import HAND_ID, OHM, row, write_record
from fake_providers import FakeProvider, Reply

from reckoner.panel.background import BackgroundPanel
from reckoner.providers.budget import ARTICLE_OUTPUT_TOKENS, FACTS_TOKEN_BUDGET

API = "/api/reckoner"
ENV_KEY = "sk-env-DO-NOT-SEND-ELSEWHERE-9931"
TYPED_KEY = "sk-typed-for-this-server-5518"
KINDS = ["openai", "anthropic"]
KEY_VARIABLE = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
ARTICLE = (
    "# Heating a 4.7 kOhm resistor\n\nThe resistor has $R_1 = 4712.1235$ ohm, so the power "
    "is 30559.123 W.\n"
)
CUT = "# Heating a 4.7 kOhm resistor\n\nThe resistor has $R_1 = 4712.1235$ ohm, so the"
LIMIT_WORDS = f"output limit of {ARTICLE_OUTPUT_TOKENS:,} tokens"
BIG_ID = "1700000000777"


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in (
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_AUTH_TOKEN",
        "OPENAI_BASE_URL",
        "ANTHROPIC_BASE_URL",
        "OPENAI_MODEL",
        "ANTHROPIC_MODEL",
    ):
        monkeypatch.delenv(variable, raising=False)


@pytest.fixture
def fakes() -> Iterator[list[FakeProvider]]:
    started: list[FakeProvider] = []
    yield started
    for fake in started:
        fake.close()


def serve(fakes: list[FakeProvider], *replies: Reply) -> FakeProvider:
    fake = FakeProvider(list(replies))
    fakes.append(fake)
    return fake


def reckoner_article(home: Path, out: Path, kind: str, url: str, record: str = HAND_ID) -> Any:
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_BASE_URL"))}
    env.update({KEY_VARIABLE[kind]: ENV_KEY, "COLUMNS": "400"})
    return subprocess.run(
        [
            *(sys.executable, "-m", "reckoner", "article", record, "--home", str(home)),
            *("--out", str(out), "--writer", kind, "--model", "fake-model", "--base-url", url),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


def sent_output_limit(kind: str, body: dict[str, Any]) -> int:
    return int(body["max_completion_tokens"] if kind == "openai" else body["max_tokens"])


@pytest.mark.parametrize("kind", KINDS)
def test_a_cut_off_reply_is_retried_once_then_reckoner_article_fails_naming_the_limit(
    home: Path, out: Path, kind: str, fakes: list[FakeProvider]
) -> None:
    """Issue 21 case 10: finish_reason "length" / stop_reason "max_tokens" is not an article."""
    fake = serve(fakes, Reply(CUT, cut_off=True))
    done = reckoner_article(home, out, kind, fake.url_for(kind))
    assert done.returncode == 1, done.stdout + done.stderr
    assert LIMIT_WORDS in done.stderr and "nothing was written" in done.stderr
    assert "Traceback" not in done.stderr
    assert [p.name for p in out.iterdir()] == []
    asked = fake.requests
    assert len(asked) == 2  # the first reply and one retry, no more
    assert all(sent_output_limit(kind, r["json"]) == ARTICLE_OUTPUT_TOKENS for r in asked)
    retry = json.dumps(asked[1]["json"])
    assert "stopped at the output limit" in retry and "shorter" in retry


@pytest.mark.parametrize("kind", KINDS)
def test_a_cut_off_reply_followed_by_a_whole_one_writes_the_whole_one(
    home: Path, out: Path, kind: str, fakes: list[FakeProvider]
) -> None:
    fake = serve(fakes, Reply(CUT, cut_off=True), Reply(ARTICLE))
    done = reckoner_article(home, out, kind, fake.url_for(kind))
    assert done.returncode == 0, done.stderr
    assert Path(done.stdout.strip()).read_text(encoding="utf-8") == ARTICLE
    assert len(fake.requests) == 2


def big_record(home: Path, rows: int = 4_000) -> None:
    """A 4,000-row record: one set per row, each a resistance of its own."""
    body = [row(1, "record_start", {"title": "Four thousand resistors", "record": BIG_ID})]
    body += [
        row(i + 2, "set", {"name": f"R{i}", "value": {"num": 4700.123456 + i, "dim": OHM}})
        for i in range(rows)
    ]
    body.append(row(rows + 2, "record_end", {"text": "All measured.", "record": BIG_ID}))
    write_record(home, BIG_ID, body)


@pytest.mark.parametrize("kind", KINDS)
def test_facts_over_the_token_budget_are_refused_with_their_size_and_the_fix_before_any_request(
    home: Path, out: Path, kind: str, fakes: list[FakeProvider]
) -> None:
    """Issue 21 case 10: a 4,000-row record's facts are never sent whole."""
    big_record(home)
    fake = serve(fakes, Reply(ARTICLE))
    done = reckoner_article(home, out, kind, fake.url_for(kind), record=BIG_ID)
    assert done.returncode == 1, done.stdout
    assert f"over the {FACTS_TOKEN_BUDGET:,}-token budget" in done.stderr
    assert "bytes of JSON" in done.stderr and "template writer" in done.stderr
    assert "fewer rows" in done.stderr and "nothing was sent" in done.stderr
    assert fake.requests == []
    assert [p.name for p in out.iterdir()] == []
    # The same record through the template writer is an article.
    template = subprocess.run(
        [sys.executable, "-m", "reckoner", "article", BIG_ID, "--home", str(home), "--out", out],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert template.returncode == 0, template.stderr


# --- the panel's generate endpoint over real HTTP -------------------------------------


@pytest.fixture
def http(home: Path) -> Iterator[httpx.Client]:
    with (
        BackgroundPanel(home) as running,
        httpx.Client(
            base_url=running.url.rstrip("/"), headers=running.headers, timeout=30
        ) as client,
    ):
        yield client


def generate(http: httpx.Client, out: Path, **body: Any) -> dict[str, Any]:
    response = http.post(
        f"{API}/generate",
        json={"recordId": HAND_ID, "format": "markdown", "directory": str(out), **body},
    )
    assert response.status_code == 202, response.text
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        job: dict[str, Any] = http.get(
            f"{API}/generate-progress", params={"jobId": response.json()["jobId"]}
        ).json()
        if job["status"] != "running":
            return job
        time.sleep(0.05)
    raise AssertionError("the job did not end")


@pytest.mark.parametrize("kind", KINDS)
def test_the_panel_fails_a_job_whose_reply_is_cut_off_twice_naming_the_limit(
    http: httpx.Client, out: Path, kind: str, fakes: list[FakeProvider]
) -> None:
    fake = serve(fakes, Reply(CUT, cut_off=True))
    job = generate(
        http, out, writer=kind, model="fake-model", baseUrl=fake.url_for(kind), apiKey=TYPED_KEY
    )
    assert job["status"] == "failed" and LIMIT_WORDS in (job["error"] or ""), job
    assert len(fake.requests) == 2 and list(out.iterdir()) == []


@pytest.mark.parametrize(
    ("kind", "variable"),
    [("openai", "API_KEY"), ("anthropic", "API_KEY"), ("anthropic", "AUTH_TOKEN")],
)
def test_an_environment_key_never_reaches_a_base_url_typed_into_generate(
    http: httpx.Client,
    out: Path,
    kind: str,
    variable: str,
    fakes: list[FakeProvider],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 21 case 11: a local process posting its own baseUrl gets no key and no facts."""
    monkeypatch.setenv(f"{kind.upper()}_{variable}", ENV_KEY)
    foreign = serve(fakes, Reply(ARTICLE))
    job = generate(http, out, writer=kind, model="m", baseUrl=foreign.url_for(kind))
    assert job["status"] == "failed", job
    error = job["error"] or ""
    assert "is not the" in error and "configured one" in error and "nothing was sent" in error
    assert "type the key for that server" in error and ENV_KEY not in error
    assert foreign.requests == []  # no Authorization, no x-api-key, no facts
    assert list(out.iterdir()) == []


@pytest.mark.parametrize("kind", KINDS)
def test_a_key_typed_with_a_typed_base_url_goes_there_and_is_never_stored_or_echoed(
    home: Path,
    http: httpx.Client,
    out: Path,
    kind: str,
    fakes: list[FakeProvider],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(KEY_VARIABLE[kind], ENV_KEY)
    other = serve(fakes, Reply(ARTICLE))
    job = generate(http, out, writer=kind, model="m", baseUrl=other.url_for(kind), apiKey=TYPED_KEY)
    assert job["status"] == "done", job
    fake = other.openai if kind == "openai" else other.anthropic
    assert fake.key_sent(0) == TYPED_KEY
    assert ENV_KEY not in json.dumps(fake.headers)
    assert TYPED_KEY not in json.dumps(job)
    stored = "".join(p.read_text("utf-8", "replace") for p in home.rglob("*") if p.is_file())
    assert TYPED_KEY not in stored and ENV_KEY not in stored  # state.json, logs, records


@pytest.mark.parametrize("kind", KINDS)
def test_the_environment_key_goes_to_the_saved_base_url(
    http: httpx.Client,
    out: Path,
    kind: str,
    fakes: list[FakeProvider],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(KEY_VARIABLE[kind], ENV_KEY)
    saved = serve(fakes, Reply(ARTICLE))
    writer = {"kind": kind, "model": "m", "baseUrl": saved.url_for(kind)}
    answer = http.put(f"{API}/settings", json={"generation": {"writer": writer}})
    assert answer.status_code == 200, answer.text
    job = generate(http, out)
    assert job["status"] == "done", job
    fake = saved.openai if kind == "openai" else saved.anthropic
    assert fake.key_sent(0) == ENV_KEY
    # The dialog sends the saved URL back, with a trailing slash: the same endpoint.
    again = generate(http, out, baseUrl=saved.url_for(kind) + "/")
    assert again["status"] == "done", again
