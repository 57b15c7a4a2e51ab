"""The panel's article endpoints (docs/guide/panel.md): generate, progress, cancel, capability, the
directory browser, reveal and a LaTeX article's preview image.

Every one sits behind the same guard as the rest of the panel (Host, Origin, JSON bodies).
A job's failure is a sentence in its progress, never an HTTP error: the page polls a job and
shows what happened. An unusable request body is a 400 with one sentence.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from reckoner.articles import compiler, files
from reckoner.articles.fact_model import ArticleRefusal
from reckoner.articles.jobs import JobRequest, JobRunner
from reckoner.articles.preview import preview_png
from reckoner.articles.reveal import reveal
from reckoner.articles.settings import format_named, generation_view
from reckoner.articles.writers.choose import writer_for
from reckoner.storage.record_archive import RecordArchive
from reckoner.storage.state_file import GENERATION_KEY, StateFile
from reckoner.wire import dumps, loads

MAX_BODY_BYTES = 16 * 1024
_GENERATE_FIELDS = {
    "recordId": str,
    "format": str,
    "directory": str,
    "fileName": str,
    "language": str,
    "compile": bool,
    "writer": str,
    "model": str,
    "baseUrl": str,
    "apiKey": str,
}


class _Json(JSONResponse):
    def render(self, content: Any) -> bytes:
        return dumps(content)


def _error(status: int, sentence: str) -> Response:
    return _Json({"error": sentence}, status_code=status)


class ArticlesApi:
    """The article endpoints over one home."""

    def __init__(self, archive: RecordArchive, state: StateFile, note: Callable[..., None]) -> None:
        self.state = state
        self.jobs = JobRunner(archive, writer_for, note)

    async def _body(self, request: Request) -> dict[str, Any] | Response:
        raw = await request.body()
        if len(raw) > MAX_BODY_BYTES:
            return _error(413, f"The body is {len(raw)} bytes, over the limit of {MAX_BODY_BYTES}.")
        try:
            body = loads(raw)
        except ValueError:
            return _error(400, "The body is not valid JSON; send one JSON object.")
        if not isinstance(body, dict):
            return _error(400, "The body must be a JSON object.")
        return body

    async def generate(self, request: Request) -> Response:
        body = await self._body(request)
        if isinstance(body, Response):
            return body
        for key, value in body.items():
            expected = _GENERATE_FIELDS.get(key)
            if expected is None:
                return _error(
                    400,
                    f"generate takes no field {key!r}; its fields are: "
                    f"{', '.join(_GENERATE_FIELDS)}.",
                )
            if value is not None and not isinstance(value, expected):
                kind = "true or false" if expected is bool else "a string"
                return _error(400, f"generate's {key} must be {kind}.")
        if not isinstance(body.get("recordId"), str):
            return _error(400, "generate needs the recordId of a closed record.")
        format_name = body.get("format") or "markdown"
        settings = await run_in_threadpool(self._settings)
        # Any spelling of a format takes its remembered settings; an unknown one fails the
        # job with the job's own sentence.
        chosen = settings.get(format_named(format_name) or "markdown", {})
        writer = settings["writer"]
        job_request = JobRequest(
            record_id=body["recordId"],
            format=format_name,
            directory=body.get("directory") or chosen.get("directory", ""),
            file_name=body.get("fileName"),
            language=body.get("language") or chosen.get("language", "auto"),
            compile=bool(body["compile"]) if "compile" in body else bool(chosen.get("compile")),
            writer=body.get("writer") or writer["kind"],
            model=body.get("model") or writer["model"],
            base_url=body.get("baseUrl") or None,
            configured_base_url=writer["baseUrl"],
            api_key=body.get("apiKey") or None,
        )
        job = self.jobs.start(job_request)
        return _Json(job.snapshot(), status_code=202)

    def _settings(self) -> dict[str, Any]:
        return generation_view(self.state.subtree(GENERATION_KEY), str(Path.home()))

    def progress(self, request: Request) -> Response:
        job = self.jobs.get(request.query_params.get("jobId", ""))
        if job is None:
            return _error(404, "There is no such article job; start one with generate.")
        return _Json(job.snapshot(), headers={"cache-control": "no-store"})

    async def cancel(self, request: Request) -> Response:
        body = await self._body(request)
        if isinstance(body, Response):
            return body
        job = self.jobs.cancel(str(body.get("jobId", "")))
        if job is None:
            return _error(404, "There is no such article job to cancel.")
        return _Json(job.snapshot())

    async def capability(self, request: Request) -> Response:
        found = await run_in_threadpool(compiler.capability)
        return _Json(found)

    def list_roots(self, request: Request) -> Response:
        return _Json({"roots": files.list_roots()})

    def list_dirs(self, request: Request) -> Response:
        try:
            listing = files.list_dirs(request.query_params.get("path", ""))
        except ArticleRefusal as refusal:
            return _error(400, str(refusal))
        return _Json(listing)

    async def reveal(self, request: Request) -> Response:
        body = await self._body(request)
        if isinstance(body, Response):
            return body
        path = body.get("path")
        # Only what a job of this panel produced: reveal is not a general file opener.
        if not isinstance(path, str) or path not in self.jobs.produced():
            return _error(400, "reveal opens only an article this panel generated; give its path.")
        try:
            opened = await run_in_threadpool(
                reveal, Path(path), folder=body.get("folder", True) is not False
            )
        except ArticleRefusal as refusal:
            return _error(409, str(refusal))
        return _Json({"opened": opened})

    async def preview(self, request: Request) -> Response:
        path = request.query_params.get("path", "")
        # Only a PDF a job of this panel compiled: the preview is not a general file reader,
        # and "../" or another spelling of the path is not the path the job reported.
        if not path.endswith(".pdf") or path not in self.jobs.produced():
            return _error(
                400, "article-preview draws only a PDF this panel compiled; give its path."
            )
        try:
            png = await run_in_threadpool(preview_png, Path(path))
        except ArticleRefusal as refusal:
            return _error(409, str(refusal))
        return Response(png, media_type="image/png", headers={"cache-control": "no-store"})


def article_routes(api_root: str, articles: ArticlesApi) -> list[Route]:
    """The article endpoints under ``api_root``."""
    return [
        Route(f"{api_root}/generate", articles.generate, methods=["POST"]),
        Route(f"{api_root}/generate-progress", articles.progress, methods=["GET"]),
        Route(f"{api_root}/generate-cancel", articles.cancel, methods=["POST"]),
        Route(f"{api_root}/generate-capability", articles.capability, methods=["GET"]),
        Route(f"{api_root}/list-roots", articles.list_roots, methods=["GET"]),
        Route(f"{api_root}/list-dirs", articles.list_dirs, methods=["GET"]),
        Route(f"{api_root}/reveal", articles.reveal, methods=["POST"]),
        Route(f"{api_root}/article-preview", articles.preview, methods=["GET"]),
    ]
