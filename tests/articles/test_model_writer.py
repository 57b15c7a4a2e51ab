"""The model writer (issue 10) against local fake providers on loopback, with the official
openai and anthropic SDKs as clients."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from article_helpers import HAND_ID, hand_rows
from fake_providers import FakeProvider, Reply

from reckoner.articles.facts import collect_facts
from reckoner.articles.jobs import Job, JobRequest, JobRunner
from reckoner.articles.writers.base import WriterFailure
from reckoner.articles.writers.choose import writer_for
from reckoner.articles.writers.model import PROMPT_VERSION, ModelWriter
from reckoner.providers.chat import ChatProvider
from reckoner.storage.home import HomeLayout
from reckoner.storage.record_archive import RecordArchive

KEY = "sk-test-DO-NOT-LEAK-4242"
KINDS = ["openai", "anthropic"]
GOOD_MD = (
    "# Heating a 4.7 kOhm resistor\n\nThe resistor has $R_1 = 4712.1235$ ohm and the "
    "probe gives 12 V, so the current is $I = 0.0025$ A and the power is 30559.123 W.\n"
)
INVENTED_MD = GOOD_MD + "\nThis is about 17.5 % more than last year.\n"
GOOD_TEX = "\\section*{Heating}\nThe current is $I = 0.0025$ A.\n"
HOSTILE_TEX = "\\documentclass{article}\n\\begin{document}hi\\end{document}"


@pytest.fixture(autouse=True)
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in ("OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)


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


def run_job(
    home: Path, out: Path, kind: str, fake: FakeProvider, notes: list[str], **extra: Any
) -> Job:
    runner = JobRunner(
        RecordArchive(HomeLayout(home)),
        writer_for,
        lambda level, message, **fields: notes.append(f"{message} {fields}"),
    )
    request = JobRequest(
        record_id=HAND_ID,
        format=extra.pop("format", "markdown"),
        directory=str(out),
        writer=kind,
        model="fake-model",
        configured_base_url=fake.url_for(kind),
        **extra,
    )
    return runner.run(request)


@pytest.mark.parametrize("kind", KINDS)
def test_model_writer_sends_the_rules_and_cut_facts_and_reports_the_prompt_version(
    home: Path, out: Path, kind: str, fakes: list[FakeProvider]
) -> None:
    """Spec: docs/guide/articles.md (article generation)."""
    fake = serve(fakes, Reply(GOOD_MD))
    notes: list[str] = []
    job = run_job(home, out, kind, fake, notes)
    assert job.status == "done", job.error
    assert job.writer == f"{kind}:fake-model" and job.prompt_version == PROMPT_VERSION
    assert job.unmatched == []
    assert Path(job.path or "").read_text() == GOOD_MD
    sent = fake.requests[0]
    if kind == "openai":
        assert sent["path"] == "/v1/chat/completions"
        assert sent["headers"]["authorization"] == f"Bearer {KEY}"
        system, user = (m["content"] for m in sent["json"]["messages"])
    else:
        assert sent["path"] == "/v1/messages"
        # The SDK sends the key as x-api-key or as a bearer token, by version.
        assert KEY in (sent["headers"].get("x-api-key") or sent["headers"]["authorization"])
        system, user = sent["json"]["system"], sent["json"]["messages"][0]["content"]
    assert "Never invent, recompute" in system
    # The version travels in the job result, never in the text a model might echo.
    assert PROMPT_VERSION not in system and "reckoner" not in system.lower()
    facts = json.loads(user)
    assert facts["title"] == "Heating a 4.7 kOhm resistor"
    assert facts["conditions"]["R1"] == {
        "value": "4712.123456",  # a given keeps its written digits
        "unit": "ohm",
        "dim": [2, 1, -3, -2, 0, 0, 0],
    }
    kinds = [entry["kind"] for entry in facts["sequence"]]
    assert kinds == ["explanation", "authorNote", "explanation", "step", "step"]
    step = facts["sequence"][3]
    assert step["relation"].startswith("I = \\frac") and "@" not in json.dumps(facts)
    assert KEY not in " ".join(notes)


@pytest.mark.parametrize("kind", KINDS)
def test_an_invented_number_is_listed_by_the_audit(
    home: Path, out: Path, kind: str, fakes: list[FakeProvider]
) -> None:
    """Spec: docs/guide/articles.md (article generation)."""
    job = run_job(home, out, kind, serve(fakes, Reply(INVENTED_MD)), [])
    assert job.status == "done"
    assert [(f.text, f.line) for f in job.unmatched] == [("17.5", 5)]
    sidecar = json.loads(Path(job.path or "").with_suffix(".audit.json").read_text())
    assert sidecar["unmatched"][0]["text"] == "17.5"
    assert sidecar["promptVersion"] == PROMPT_VERSION
    assert job.snapshot()["warnings"] == [
        "line 5, column 15: '17.5' matches no number in the record"
    ]


@pytest.mark.parametrize("kind", KINDS)
def test_a_hostile_latex_body_is_refused_retried_once_with_the_reason_then_fails(
    home: Path, out: Path, kind: str, fakes: list[FakeProvider]
) -> None:
    """Spec: docs/guide/articles.md (article generation)."""
    fake = serve(fakes, Reply(HOSTILE_TEX), Reply(HOSTILE_TEX))
    job = run_job(home, out, kind, fake, [], format="latex")
    assert job.status == "failed"
    assert "refused twice" in (job.error or "") and "\\documentclass" in (job.error or "")
    assert len(fake.requests) == 2
    retry = json.dumps(fake.requests[1]["json"])
    assert "The host refused that body" in retry and "documentclass" in retry
    assert list(out.iterdir()) == []


@pytest.mark.parametrize("kind", KINDS)
def test_a_refused_body_corrected_on_the_retry_is_accepted(
    home: Path, out: Path, kind: str, fakes: list[FakeProvider]
) -> None:
    """Spec: docs/guide/articles.md (article generation)."""
    fake = serve(fakes, Reply("unbalanced {"), Reply("```latex\n" + GOOD_TEX + "```"))
    job = run_job(home, out, kind, fake, [], format="latex")
    assert job.status == "done" and job.attempts == 2
    tex = Path(job.path or "").read_text()
    assert "\\section*{Heating}" in tex and "```" not in tex


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(
    ("status", "phrase"),
    [(401, "refused the API key"), (429, "rate-limiting"), (500, "server error")],
)
def test_provider_errors_are_one_sentence_without_the_key(
    home: Path, out: Path, kind: str, status: int, phrase: str, fakes: list[FakeProvider]
) -> None:
    """Spec: docs/guide/articles.md (article generation)."""
    notes: list[str] = []
    job = run_job(home, out, kind, serve(fakes, Reply(status=status)), notes)
    assert job.status == "failed" and phrase in (job.error or ""), job.error
    assert f"HTTP {status}" in (job.error or "")
    assert KEY not in json.dumps(job.snapshot()) and KEY not in " ".join(notes)
    assert list(out.iterdir()) == []


@pytest.mark.parametrize("kind", KINDS)
def test_a_slow_provider_times_out_with_one_sentence(kind: str, fakes: list[FakeProvider]) -> None:
    """Spec: docs/guide/articles.md (article generation)."""
    fake = serve(fakes, Reply(GOOD_MD, delay=3))
    writer = ModelWriter(ChatProvider(kind, "m", configured=(fake.url_for(kind),), timeout=0.5))
    facts = collect_facts(HAND_ID, hand_rows(), is_open=False)
    with pytest.raises(WriterFailure, match=r"did not answer in time \(within 0\.5 s\)"):
        writer.write(facts, "en", "md", lambda: False)


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.parametrize("kind", KINDS)
def test_an_unreachable_provider_is_one_sentence(kind: str) -> None:
    """Spec: docs/guide/articles.md (article generation)."""
    base = f"http://127.0.0.1:{closed_port()}" + ("/v1" if kind == "openai" else "")
    writer = ModelWriter(ChatProvider(kind, "m", configured=(base,), timeout=5))
    facts = collect_facts(HAND_ID, hand_rows(), is_open=False)
    with pytest.raises(WriterFailure, match="could not be reached"):
        writer.write(facts, "en", "md", lambda: False)


@pytest.mark.parametrize("kind", KINDS)
def test_an_answer_that_is_not_an_article_fails_the_job(
    home: Path, out: Path, kind: str, fakes: list[FakeProvider]
) -> None:
    """Spec: docs/guide/articles.md (article generation)."""
    job = run_job(home, out, kind, serve(fakes, Reply("   ")), [])
    assert job.status == "failed" and "no article text" in (job.error or "")
    assert list(out.iterdir()) == []


@pytest.mark.parametrize("kind", KINDS)
def test_a_missing_key_without_a_base_url_is_one_sentence(
    kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Spec: docs/guide/articles.md (article generation)."""
    monkeypatch.delenv("OPENAI_API_KEY")
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    writer = ModelWriter(ChatProvider(kind, "m"))
    facts = collect_facts(HAND_ID, hand_rows(), is_open=False)
    with pytest.raises(WriterFailure, match="_API_KEY is set in the environment"):
        writer.write(facts, "en", "md", lambda: False)


def test_a_job_waiting_on_the_model_can_be_cancelled(
    home: Path, out: Path, fakes: list[FakeProvider]
) -> None:
    """Spec: docs/guide/articles.md (article generation)."""
    fake = serve(fakes, Reply(GOOD_MD, delay=20))
    runner = JobRunner(RecordArchive(HomeLayout(home)), writer_for)
    job = runner.start(
        JobRequest(
            HAND_ID, "markdown", str(out), writer="openai", configured_base_url=fake.openai_url
        )
    )
    deadline = time.monotonic() + 20
    while job.phase != "generate" and time.monotonic() < deadline:
        time.sleep(0.02)
    runner.cancel(job.id)
    while job.status == "running" and time.monotonic() < deadline:
        time.sleep(0.02)
    assert job.status == "cancelled"
    assert time.monotonic() < deadline - 10  # it did not wait for the 20 s reply
    assert list(out.iterdir()) == []
