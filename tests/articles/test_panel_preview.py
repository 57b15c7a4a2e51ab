"""A LaTeX article's preview image (issue 23) over real HTTP on loopback: the first page of
the compiled PDF drawn by pdftoppm, behind the panel's token, refused for any file a job did
not compile, cut at its deadline and its output cap."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from article_helpers import HAND_ID, hand_rows, write_record
from panel_jobs import API, generate

from panel_access import http_client
from process_census import new_marker, wait_until_none_with
from reckoner.articles import preview
from reckoner.panel.background import BackgroundPanel

PNG = b"\x89PNG\r\n\x1a\n"


def compiled(http: httpx.Client, out: Path, **body: Any) -> dict[str, Any]:
    job = generate(http, format="latex", directory=str(out), fileName="x", **body)
    assert job["status"] == "done", job
    return job


def fake_pdftoppm(folder: Path, monkeypatch: pytest.MonkeyPatch, body: str) -> None:
    """A ``pdftoppm`` first on PATH that runs ``body`` (a shell line) instead of drawing."""
    folder.mkdir()
    script = folder / "pdftoppm"
    script.write_text(f"#!/bin/sh\n{body}\n")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")


def one_sentence(response: httpx.Response, status: int, phrase: str) -> None:
    assert response.status_code == status, response.text
    sentence = response.json()["error"]
    assert phrase in sentence and "Traceback" not in sentence and "\n" not in sentence


@pytest.mark.tex
def test_a_compiled_latex_job_previews_its_first_page_as_a_png_cached_beside_the_pdf(
    http: httpx.Client, out: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Spec: docs/guide/articles.md (issue 23)."""
    job = compiled(http, out, compile=True)
    drawn = http.get(f"{API}/article-preview", params={"path": job["pdf"]})
    assert drawn.status_code == 200, drawn.text
    assert drawn.headers["content-type"] == "image/png" and drawn.content.startswith(PNG)
    cache = out / "x" / "x.preview.png"
    assert cache.read_bytes() == drawn.content
    # The cache answers the next request, even with a pdftoppm that draws nothing.
    fake_pdftoppm(tmp_path / "bin", monkeypatch, "exit 3")
    again = http.get(f"{API}/article-preview", params={"path": job["pdf"]})
    assert again.content == drawn.content


def test_a_latex_job_without_compile_carries_its_source_as_the_preview(
    http: httpx.Client, out: Path
) -> None:
    """Spec: docs/guide/articles.md (issue 23)."""
    job = compiled(http, out, compile=False)
    assert job["pdf"] is None
    assert job["preview"] == (out / "x" / "x.tex").read_text(encoding="utf-8")
    assert "\\begin{document}" in job["preview"]


@pytest.fixture(scope="module")
def one_compiled_job(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[BackgroundPanel, httpx.Client, Path, dict[str, Any]]]:
    """One panel that compiled one job, for the checks that only send it requests and change
    nothing in its folder (each compile costs XeLaTeX two passes). None of them may leave a
    preview drawn: each checks that none is."""
    root = tmp_path_factory.mktemp("one-compiled-job")
    write_record(root / "home", HAND_ID, hand_rows())
    (root / "out").mkdir()
    with (
        BackgroundPanel(root / "home", poll_ms=300) as panel,
        http_client(panel, timeout=60) as http,
    ):
        job = compiled(http, root / "out", compile=True)
        yield panel, http, root / "out", job


@pytest.mark.tex
def test_the_preview_needs_the_panels_token(
    one_compiled_job: tuple[BackgroundPanel, httpx.Client, Path, dict[str, Any]],
) -> None:
    """Spec: docs/guide/articles.md (issue 23)."""
    panel, _, out, job = one_compiled_job
    stranger = httpx.get(
        panel.url.rstrip("/") + f"{API}/article-preview", params={"path": job["pdf"]}, timeout=30
    )
    assert stranger.status_code == 401
    assert not stranger.content.startswith(PNG)
    assert not (out / "x" / "x.preview.png").exists()


@pytest.mark.tex
@pytest.mark.parametrize(
    "hostile",
    [
        "{out}/x/../x/x.pdf",
        "{out}/../out/x/x.pdf",
        "/etc/passwd",
        "{out}/x/x.tex",
        "",
    ],
)
def test_the_preview_refuses_any_path_no_job_compiled_with_one_sentence(
    one_compiled_job: tuple[BackgroundPanel, httpx.Client, Path, dict[str, Any]], hostile: str
) -> None:
    """Spec: docs/guide/articles.md (issue 23)."""
    _, http, out, _ = one_compiled_job
    refused = http.get(f"{API}/article-preview", params={"path": hostile.format(out=out)})
    one_sentence(refused, 400, "draws only a PDF this panel compiled")
    assert not (out / "x" / "x.preview.png").exists()  # nothing drawn for any of them


@pytest.mark.tex
def test_a_pdf_swapped_for_a_link_out_of_the_folder_is_refused(
    http: httpx.Client, out: Path, tmp_path: Path
) -> None:
    """Spec: docs/guide/articles.md (issue 23)."""
    job = compiled(http, out, compile=True)
    pdf = Path(job["pdf"])
    outside = tmp_path / "secret.pdf"
    outside.write_bytes(pdf.read_bytes())
    pdf.unlink()
    pdf.symlink_to(outside)
    refused = http.get(f"{API}/article-preview", params={"path": job["pdf"]})
    one_sentence(refused, 409, "symbolic link")
    assert not (out / "x" / "x.preview.png").exists()


@pytest.mark.tex
def test_a_folder_swapped_for_a_link_is_refused(
    http: httpx.Client, out: Path, tmp_path: Path
) -> None:
    """Spec: docs/guide/articles.md (issue 23)."""
    job = compiled(http, out, compile=True)
    moved = tmp_path / "elsewhere"
    (out / "x").rename(moved)
    (out / "x").symlink_to(moved)
    refused = http.get(f"{API}/article-preview", params={"path": job["pdf"]})
    one_sentence(refused, 409, "symbolic link")
    assert not (moved / "x.preview.png").exists()


@pytest.mark.tex
def test_a_cache_name_linked_out_of_the_folder_is_never_written_through(
    http: httpx.Client, out: Path, tmp_path: Path
) -> None:
    """Spec: docs/guide/articles.md (issue 23)."""
    job = compiled(http, out, compile=True)
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    (out / "x" / "x.preview.png").symlink_to(victim)
    answer = http.get(f"{API}/article-preview", params={"path": job["pdf"]})
    one_sentence(answer, 409, "symbolic link")
    assert victim.read_text() == "keep me"


@pytest.mark.tex
def test_a_pdftoppm_that_hangs_is_stopped_at_the_deadline_with_one_sentence(
    one_compiled_job: tuple[BackgroundPanel, httpx.Client, Path, dict[str, Any]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Spec: docs/guide/articles.md (issue 23)."""
    _, http, out, job = one_compiled_job
    marker = new_marker()
    fake_pdftoppm(tmp_path / "bin", monkeypatch, f"exec sleep {marker}")
    monkeypatch.setattr(preview, "PREVIEW_TIMEOUT_MS", 1500)
    began = time.monotonic()
    refused = http.get(f"{API}/article-preview", params={"path": job["pdf"]})
    one_sentence(refused, 409, "did not draw the PDF's first page within 1.5 s")
    assert time.monotonic() - began < 30  # a generous bound against a hang, not a timing
    assert wait_until_none_with(marker) == []
    assert not (out / "x" / "x.preview.png").exists()


@pytest.mark.tex
def test_a_pdftoppm_that_prints_without_end_is_cut_at_the_cap_with_one_sentence(
    one_compiled_job: tuple[BackgroundPanel, httpx.Client, Path, dict[str, Any]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Spec: docs/guide/articles.md (issue 23)."""
    _, http, out, job = one_compiled_job
    fake_pdftoppm(tmp_path / "bin", monkeypatch, "exec yes")
    monkeypatch.setattr(preview, "MAX_PREVIEW_BYTES", 64 * 1024)
    refused = http.get(f"{API}/article-preview", params={"path": job["pdf"]})
    one_sentence(refused, 409, "passed the cap of 65536 bytes")
    assert not (out / "x" / "x.preview.png").exists()
