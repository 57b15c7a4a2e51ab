"""The panel's article endpoints (docs/guide/panel.md and docs/guide/records.md; issue 10) over real
HTTP on loopback."""

from __future__ import annotations

import json
import os
import stat
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from article_helpers import HAND_ID, hand_rows, row, write_record
from panel_jobs import API, generate, wait_for

from panel_access import http_client
from reckoner.panel.background import BackgroundPanel


def test_generate_markdown_reports_path_preview_and_a_clean_audit(
    http: httpx.Client, out: Path
) -> None:
    """Spec: docs/guide/panel.md (the host endpoints)."""
    job = generate(http, format="markdown", directory=str(out))
    assert job["status"] == "done" and job["percent"] == 100, job
    assert job["path"] == str(out / "reckoner-17000000.md")
    assert job["preview"].startswith("# Heating a 4.7 kOhm resistor")
    assert job["audit"] == [] and job["writer"] == "template" and job["language"] == "en"


@pytest.mark.tex
def test_generate_latex_compiles_a_pdf(http: httpx.Client, out: Path) -> None:
    """Spec: docs/guide/panel.md (the host endpoints)."""
    job = generate(http, format="latex", directory=str(out), compile=True, fileName="x")
    assert job["status"] == "done", job
    assert job["path"] == str(out / "x" / "x.tex") and job["pdf"] == str(out / "x" / "x.pdf")
    assert job["compileError"] is None


@pytest.mark.parametrize("spelled", ["markdown", "md", "Markdown", "LaTeX", "TEX"])
def test_generate_uses_the_remembered_settings_of_its_format(
    http: httpx.Client, out: Path, spelled: str
) -> None:
    """9.1: a job takes its format's remembered directory and language, whichever spelling
    of the format it names.
    Spec: docs/guide/records.md (the home directory and state.json)."""
    canonical = "latex" if "tex" in spelled.lower() else "markdown"
    remembered = {"format": canonical, "directory": str(out), "language": "zh-CN"}
    saved = http.put(f"{API}/settings", json={"generation": remembered})
    assert saved.status_code == 200, saved.text
    job = generate(http, format=spelled, compile=False)
    latex = out / "reckoner-17000000" / "reckoner-17000000.tex"
    expected = latex if canonical == "latex" else out / "reckoner-17000000.md"
    assert job["path"] == str(expected) and job["language"] == "zh-CN", job


@pytest.mark.parametrize(
    ("body", "sentence"),
    [
        ({"directory": "/nonexistent/x"}, "does not exist"),
        ({"fileName": "a/b"}, "path separator"),
        ({"format": "docx"}, "not one of markdown (md) or latex (tex)"),
        ({"language": "fr"}, "not one of auto, en or zh-CN"),
        ({"recordId": "1799999999999"}, "no readable record"),
        ({"writer": "gemini"}, "not one of template, openai, anthropic"),
    ],
)
def test_bad_input_fails_the_job_with_one_sentence_and_the_panel_stays_usable(
    http: httpx.Client, out: Path, body: dict[str, Any], sentence: str
) -> None:
    """Spec: docs/guide/articles.md (article generation)."""
    job = generate(http, **{"directory": str(out), **body})
    assert job["status"] == "failed" and sentence in job["error"], job
    assert list(out.iterdir()) == []
    assert http.get(f"{API}/records-index").status_code == 200


def test_the_open_record_fails_its_job(home: Path, http: httpx.Client, out: Path) -> None:
    """Spec: docs/guide/articles.md (article generation)."""
    write_record(
        home,
        "1800000000000",
        [row(1, "record_start", {"title": "t", "record": "1800000000000"})],
        open_=True,
    )
    response = http.post(
        f"{API}/generate", json={"recordId": "1800000000000", "directory": str(out)}
    )
    job = wait_for(http, response.json()["jobId"])
    assert job["status"] == "failed" and "still open" in job["error"]


def big_record(home: Path, record_id: str, steps: int) -> None:
    rows = [row(1, "record_start", {"title": "long", "record": record_id})]
    for seq in range(2, steps):
        rows.append(
            row(
                seq,
                "eval",
                {
                    "formula": "$sqrt(@a) / (@b + 2)",
                    "target": f"x{seq}",
                    "rev": 1,
                    "vars": {"a": {"num": seq, "dim": [0] * 7}, "b": {"num": 1, "dim": [0] * 7}},
                    "result": {"num": seq**0.5 / 3, "dim": [0] * 7},
                },
            )
        )
    rows.append(row(steps, "record_end", {"record": record_id}))
    write_record(home, record_id, rows)


def test_cancel_during_the_compile_leaves_nothing_behind(
    home: Path, http: httpx.Client, out: Path
) -> None:
    """Spec: docs/guide/articles.md (article generation)."""
    big_record(home, "1700000000001", 3000)
    response = http.post(
        f"{API}/generate",
        json={
            "recordId": "1700000000001",
            "format": "latex",
            "directory": str(out),
            "compile": True,
        },
    )
    job_id = response.json()["jobId"]
    wait_for(http, job_id, until="compile")
    cancelled = http.post(f"{API}/generate-cancel", json={"jobId": job_id})
    assert cancelled.status_code == 200
    job = wait_for(http, job_id)
    assert job["status"] == "cancelled" and "nothing was written" in job["error"]
    assert list(out.iterdir()) == []


def test_progress_and_cancel_of_an_unknown_job_are_404(http: httpx.Client) -> None:
    """Spec: docs/guide/panel.md (the host endpoints)."""
    assert http.get(f"{API}/generate-progress", params={"jobId": "job-999"}).status_code == 404
    assert http.post(f"{API}/generate-cancel", json={"jobId": "job-999"}).status_code == 404


@pytest.mark.tex
def test_capability_probes_the_toolchain_and_shells(http: httpx.Client) -> None:
    """Spec: docs/guide/panel.md (the host endpoints)."""
    found = http.get(f"{API}/generate-capability").json()
    assert found["latexmk"] and found["xelatex"] and found["ctex"] and found["fontspec"]
    assert found["shells"] == {"en": True, "zh-CN": True}


def test_directory_browser_lists_directories_only(http: httpx.Client, out: Path) -> None:
    """Spec: docs/guide/panel.md (the host endpoints)."""
    (out / "b-dir").mkdir()
    (out / "a-dir").mkdir()
    (out / ".hidden").mkdir()
    (out / "secret.txt").write_text("never listed")
    roots = http.get(f"{API}/list-roots").json()["roots"]
    assert {"name": "Home", "path": str(Path.home())} in roots
    listing = http.get(f"{API}/list-dirs", params={"path": str(out)}).json()
    assert [d["name"] for d in listing["dirs"]] == ["a-dir", "b-dir"]
    assert listing["parent"] == str(out.parent)
    assert "never listed" not in json.dumps(listing) and "secret" not in json.dumps(listing)
    missing = http.get(f"{API}/list-dirs", params={"path": str(out / "nope")})
    assert missing.status_code == 400 and "does not exist" in missing.json()["error"]
    relative = http.get(f"{API}/list-dirs", params={"path": "relative"})
    assert relative.status_code == 400


def fake_opener(folder: Path) -> Path:
    log = folder / "opened.txt"
    script = folder / "bin" / "xdg-open"
    script.parent.mkdir()
    script.write_text(f'#!/bin/sh\necho "$1" >> {log}\n')
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return log


def test_reveal_opens_the_folder_of_a_generated_file_and_nothing_else(
    http: httpx.Client, out: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Spec: docs/guide/panel.md (the host endpoints)."""
    log = fake_opener(tmp_path)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    job = generate(http, directory=str(out))
    opened = http.post(f"{API}/reveal", json={"path": job["path"]})
    assert opened.status_code == 200 and opened.json()["opened"] == str(out)
    deadline = time.monotonic() + 10
    while not log.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert log.read_text().strip() == str(out)
    refused = http.post(f"{API}/reveal", json={"path": "/etc/passwd"})
    assert (
        refused.status_code == 400
        and "only an article this panel generated" in refused.json()["error"]
    )


def test_reveal_without_an_opener_is_one_sentence(
    http: httpx.Client, out: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Spec: docs/guide/panel.md (the host endpoints)."""
    job = generate(http, directory=str(out))
    monkeypatch.setenv("PATH", str(out / "empty"))
    response = http.post(f"{API}/reveal", json={"path": job["path"]})
    assert response.status_code == 409
    assert "no file opener" in response.json()["error"] and job["path"] in response.json()["error"]


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({"Origin": "http://evil.example"}, 403),
        ({"Content-Type": "text/plain"}, 415),
        ({"Host": "evil.example"}, 421),
        ({"Sec-Fetch-Site": "cross-site"}, 403),
    ],
)
@pytest.mark.parametrize("endpoint", ["generate", "generate-cancel", "reveal"])
def test_security_article_endpoints_keep_the_panels_host_origin_and_json_rules(
    http: httpx.Client, out: Path, headers: dict[str, str], status: int, endpoint: str
) -> None:
    body = json.dumps({"recordId": HAND_ID, "directory": str(out)})
    response = http.post(
        f"{API}/{endpoint}",
        content=body,
        headers={"Content-Type": "application/json", **headers},
    )
    assert response.status_code == status
    assert list(out.iterdir()) == []


def test_an_unusable_generate_body_is_400(http: httpx.Client) -> None:
    """Spec: docs/guide/panel.md (the host endpoints)."""
    for body, phrase in [
        (b"[1]", "must be a JSON object"),
        (b"not json", "not valid JSON"),
        (b'{"recordId": 5}', "must be a string"),
        (b'{"recordId": "1", "compile": "yes"}', "true or false"),
        (b'{"recordId": "1", "secret": "sk-x"}', "no field 'secret'"),
        (b'{"recordId": "1", "apiKey": 5}', "generate's apiKey must be a string"),
    ]:
        response = http.post(
            f"{API}/generate", content=body, headers={"Content-Type": "application/json"}
        )
        assert response.status_code == 400 and phrase in response.json()["error"]


def test_each_format_saves_on_its_own(home: Path, http: httpx.Client, out: Path) -> None:
    """Spec: docs/guide/panel.md (the Settings tab)."""
    http.put(
        f"{API}/settings",
        json={"generation": {"format": "latex", "directory": str(out), "compile": True}},
    )
    http.put(f"{API}/settings", json={"generation": {"format": "markdown", "language": "en"}})
    http.put(f"{API}/settings", json={"generation": {"writer": {"kind": "openai", "model": "m1"}}})
    stored = json.loads((home / "state.json").read_text())["generation"]
    assert stored == {
        "latex": {"directory": str(out), "compile": True},
        "markdown": {"language": "en"},
        "writer": {"kind": "openai", "model": "m1"},
    }
    bad = http.put(f"{API}/settings", json={"generation": {"format": "markdown", "compile": True}})
    assert bad.status_code == 400 and "has no field 'compile'" in bad.json()["error"]
    key = http.put(f"{API}/settings", json={"generation": {"writer": {"apiKey": "sk-secret"}}})
    assert key.status_code == 400 and "sk-secret" not in (home / "state.json").read_text()


def test_older_flat_keys_migrate_into_both_formats_at_mount(out: Path) -> None:
    """Spec: docs/guide/records.md (the home directory and state.json)."""
    home = out / "old"
    write_record(home, HAND_ID, hand_rows())
    (home / "state.json").write_text(
        json.dumps(
            {
                "generateDir": "/old/out",
                "generateLanguage": "zh-CN",
                "generateCompile": True,
                "generateFormat": "md",
            }
        )
    )
    with BackgroundPanel(home) as running, http_client(running) as http:
        view = http.get(f"{API}/settings").json()["generation"]
    assert view["markdown"] == {"directory": "/old/out", "language": "zh-CN"}
    assert view["latex"] == {"directory": "/old/out", "language": "zh-CN", "compile": True}
    stored = json.loads((home / "state.json").read_text())
    assert "generateDir" not in stored and "generateFormat" not in stored
