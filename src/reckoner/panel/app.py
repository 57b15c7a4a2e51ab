"""The records panel: a Starlette app over a reckoner home (``reckoner.panel.run`` serves it).

The app only reads records through the lock-free ``RecordArchive`` and only writes
settings through ``StateFile``; the engine that appends to the open record may run in
another process at the same time.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from reckoner.compute.archive import read_receipt_file
from reckoner.contract.dimensions import BASE_SYMBOLS, NAME_TABLE
from reckoner.panel.articles_api import ArticlesApi, article_routes
from reckoner.panel.login import PanelDoor
from reckoner.panel.security import GuardMiddleware, HostPolicy
from reckoner.panel.settings import SettingsError, apply_settings, settings_view
from reckoner.panel.typeset import typeset_rows
from reckoner.storage.home import HomeLayout
from reckoner.storage.record_archive import DeleteOutcome, RecordArchive
from reckoner.storage.record_format import is_valid_record_id
from reckoner.storage.run_log import RunLog
from reckoner.storage.state_file import StateFile
from reckoner.units.spelling import spelling_data
from reckoner.wire import dumps, loads

STATIC_DIR = Path(__file__).parent / "static"
API = "/api/reckoner"
DEFAULT_POLL_MS = 5000
# A settings body is a few small objects; anything near this is not one. The guard counts the
# body as it streams in and stops at this, so an over-large one is never held in memory.
MAX_BODY_BYTES = 64 * 1024

_SECURITY_HEADERS = {
    # KaTeX positions glyphs with inline style attributes, hence 'unsafe-inline' for styles
    # only; scripts come from the package alone.
    "content-security-policy": (
        "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
        "font-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; "
        "form-action 'none'; frame-ancestors 'none'"
    ),
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
}


class WireJSONResponse(JSONResponse):
    """JSON in the project's wire form (compact, whole doubles without ``.0``)."""

    def render(self, content: Any) -> bytes:
        return dumps(content)


def _error(status: int, sentence: str, headers: dict[str, str] | None = None) -> Response:
    return WireJSONResponse({"error": sentence}, status_code=status, headers=headers)


def _etag_matches(request: Request, etag: str) -> bool:
    header = request.headers.get("if-none-match")
    if header is None:
        return False
    candidates = {part.strip().removeprefix("W/") for part in header.split(",")}
    return etag in candidates or "*" in candidates


def _invalid_sentence(record_id: str) -> str:
    shown = record_id if len(record_id) <= 60 else record_id[:57] + "..."
    return (
        f"{shown!r} is not a record identifier; an identifier is the millisecond clock "
        "reading, optionally followed by -2, -3 and so on."
    )


def _quoted(fingerprint: str) -> str:
    return f'"{fingerprint}"'


@lru_cache(maxsize=1)
def _name_table_json() -> str:
    rows = [
        {"vector": list(row.vector), "kind": row.kind, "names": list(row.names)}
        for row in NAME_TABLE
    ]
    # The units are spelled from the one table the articles and `reckoner show` use.
    return dumps({"base": list(BASE_SYMBOLS), "rows": rows, "spelling": spelling_data()}).decode()


def _embed(json_text: str) -> str:
    # Inside a <script> element only "</" can end it early; escape it.
    return json_text.replace("</", "<\\/")


class PanelApi:
    """The endpoint handlers, bound to one home.

    The handlers that read files are plain functions, which Starlette runs in its thread
    pool: parsing a large record must not stall the event loop and every other poll with it.
    """

    def __init__(self, home: Path, poll_ms: int, log: RunLog | None) -> None:
        layout = HomeLayout(home)
        self.home = home
        self.archive = RecordArchive(layout)
        self.state = StateFile(layout)
        self.poll_ms = poll_ms
        self.log = log

    def note(self, level: str, message: str, **fields: Any) -> None:
        """A line in the run log (docs/architecture.md), when the panel runs with one."""
        if self.log is not None:
            getattr(self.log, level)(message, **fields)

    def index_page(self, request: Request) -> Response:
        template = (STATIC_DIR / "index.html").read_text(encoding="utf-8")
        config = dumps({"pollMs": self.poll_ms, "api": API}).decode()
        html = template.replace("__NAME_TABLE__", _embed(_name_table_json())).replace(
            "__PANEL_CONFIG__", _embed(config)
        )
        return HTMLResponse(html, headers={"cache-control": "no-store"})

    def records_index(self, request: Request) -> Response:
        etag = _quoted(self.archive.index_fingerprint())
        headers = {"etag": etag, "cache-control": "no-cache"}
        if _etag_matches(request, etag):
            return Response(status_code=304, headers=headers)
        return WireJSONResponse(self.archive.index_json(), headers=headers)

    def record(self, request: Request) -> Response:
        # From the decoded path itself: the router's pattern ends in "$", which also
        # matches before a trailing newline and would silently drop it from the id.
        record_id = str(request.scope["path"]).removeprefix(f"{API}/records/")
        invalid = self._invalid_id(record_id)
        if invalid is not None:
            return invalid
        if request.method == "DELETE":
            return self._delete(record_id)
        return self._under_etag(request, record_id, "", lambda: self.archive.read_json(record_id))

    def record_typeset(self, request: Request) -> Response:
        """``{seq: latex}`` for a record's accepted evals, validated like the record itself.

        A resource of its own so the rows arrive without waiting for thousands of formulas
        to be parsed; the page typesets them when this answer lands.
        """
        record_id = str(request.scope["path"]).removeprefix(f"{API}/record-typeset/")
        invalid = self._invalid_id(record_id)
        if invalid is not None:
            return invalid

        def typeset() -> dict[str, Any] | None:
            view = self.archive.read(record_id)
            return None if view is None else typeset_rows(view.rows)

        return self._under_etag(request, record_id, "-tex", typeset)

    def _under_etag(
        self, request: Request, record_id: str, tag: str, body: Callable[[], Any | None]
    ) -> Response:
        """A resource of one record under an ETag of its fingerprint (``tag`` tells the
        resources apart): 304 when the client holds it, 404 when the record is gone."""
        fingerprint = self.archive.fingerprint(record_id)
        if fingerprint is None:
            return self._missing(record_id)
        etag = _quoted(f"{fingerprint}{tag}")
        headers = {"etag": etag, "cache-control": "no-cache"}
        if _etag_matches(request, etag):
            return Response(status_code=304, headers=headers)
        answer = body()
        if answer is None:
            return self._missing(record_id)
        return WireJSONResponse(answer, headers=headers)

    def compute_receipt(self, request: Request) -> Response:
        """The receipt a record's compute row names, as text (issue 12's link on the card)."""
        record_id = str(request.path_params["record_id"])
        invalid = self._invalid_id(record_id)
        if invalid is not None:
            return invalid
        view = self.archive.read(record_id)
        if view is None:
            return self._missing(record_id)
        seq = request.path_params["seq"]
        row = next((r for r in view.rows if r.get("seq") == seq), None)
        content = row.get("content") if row is not None and row.get("tool") == "compute" else None
        path = content.get("receiptAbs") if isinstance(content, dict) else None
        found = read_receipt_file(path) if isinstance(path, str) else None
        if found is None:
            return _error(
                404,
                f"Row {seq} of record {record_id!r} names no readable compute receipt; the "
                "project's Computation folder may have moved.",
            )
        text, media = found
        return Response(text, media_type=f"{media}; charset=utf-8")

    def _invalid_id(self, record_id: str) -> Response | None:
        # Checked before the id comes anywhere near a path.
        if is_valid_record_id(record_id):
            return None
        return _error(400, _invalid_sentence(record_id))

    def _missing(self, record_id: str) -> Response:
        return _error(
            404,
            f"There is no record {record_id!r}; it may have been deleted, so reload the list.",
        )

    def _delete(self, record_id: str) -> Response:
        try:
            outcome = self.archive.delete(record_id)
        except OSError as failure:
            self.note("error", "panel: record delete failed", record=record_id, error=str(failure))
            # The sentence names the folder inside the home, never a path of this machine.
            return _error(
                500,
                f"Record {record_id!r} could not be deleted "
                f"({failure.strerror or type(failure).__name__}); check the permissions of "
                "the home's records folder.",
            )
        if outcome is DeleteOutcome.DELETED:
            self.note("info", "panel: record deleted", record=record_id)
            return WireJSONResponse({"deleted": record_id})
        if outcome is DeleteOutcome.IS_OPEN:
            return _error(
                409,
                f"Record {record_id!r} is still open and cannot be deleted; end it with "
                "record_end first.",
            )
        if outcome is DeleteOutcome.INVALID_ID:
            return _error(400, _invalid_sentence(record_id))
        return self._missing(record_id)

    async def settings(self, request: Request) -> Response:
        if request.method == "GET":
            view = await run_in_threadpool(settings_view, self.state)
            return WireJSONResponse(view, headers={"cache-control": "no-store"})
        if request.method != "PUT":
            return _error(
                405,
                f"The settings endpoint takes GET or PUT, not {request.method}.",
                headers={"allow": "GET, PUT"},
            )
        raw = await request.body()  # the guard stops it at MAX_BODY_BYTES (413)
        try:
            body = loads(raw)
        except ValueError:
            return _error(
                400,
                "The settings body is not valid JSON; send an object like "
                '{"panel": {"showAll": true}}.',
            )
        try:
            saved = await run_in_threadpool(apply_settings, self.state, body)
        except SettingsError as refusal:
            return _error(400, str(refusal))
        except OSError as failure:
            self.note("error", "panel: settings save failed", error=str(failure))
            return _error(
                500,
                "The settings could not be saved to the home's state.json "
                f"({failure.strerror or type(failure).__name__}); make the home writable.",
            )
        self.note("info", "panel: settings saved", sections=saved)
        view = await run_in_threadpool(settings_view, self.state)
        return WireJSONResponse({"saved": saved, "settings": view})

    def api_not_found(self, request: Request) -> Response:
        return _error(
            404,
            f"There is no panel endpoint {request.url.path!r}; the endpoints are "
            f"{API}/records-index, {API}/records/<id>, {API}/record-typeset/<id>, "
            f"{API}/settings, {API}/pitfalls and {API}/pitfalls/<id>.",
        )


class _SecurityHeaders:
    """Adds the fixed security headers to every response."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self._headers = [(k.encode(), v.encode()) for k, v in _SECURITY_HEADERS.items()]

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                message = dict(message)
                message["headers"] = [*message.get("headers", []), *self._headers]
            await send(message)

        await self.app(scope, receive, send_with_headers)


@dataclass(frozen=True, slots=True)
class PanelOptions:
    """How one panel answers: only to ``bound_host:bound_port`` and only to requests that
    carry ``token`` (see ``reckoner.panel.login``).

    ``poll_ms`` is how often the page polls the list and an open record (5 s by default;
    tests shorten it). ``log`` receives deletions, saved settings and endpoint failures.
    ``pitfalls_project`` is the project whose pitfalls library the Pitfalls tab reads first
    (``reckoner panel`` passes its working directory; None: the global library only).
    """

    bound_host: str
    bound_port: int
    token: str
    poll_ms: int = DEFAULT_POLL_MS
    log: RunLog | None = None
    pitfalls_project: Path | None = None


def _exception_handlers(api: PanelApi) -> dict[Any, Any]:
    """Every failure as one JSON sentence for the page, naming no path of this machine."""

    async def internal_error(request: Request, exc: Exception) -> Response:
        # An OSError's text carries its file name; the log keeps what happened.
        api.note("error", "panel: endpoint failed", path=request.url.path, error=repr(exc))
        return _error(
            500,
            f"The panel could not answer this request (internal error: {type(exc).__name__}); "
            "its run log in the home's logs folder has the details.",
        )

    async def http_error(request: Request, exc: Exception) -> Response:
        # The router's own refusals (a wrong method) as JSON sentences like every other.
        assert isinstance(exc, HTTPException)
        return _error(
            exc.status_code,
            f"The panel cannot answer {request.method} {request.url.path}: {exc.detail}.",
            headers=dict(exc.headers) if exc.headers else None,
        )

    async def client_gone(request: Request, exc: Exception) -> Response:
        # One line, not a traceback: a client that hangs up mid-request is not a fault.
        api.note(
            "info", "panel: the client hung up before its request was read", path=request.url.path
        )
        return Response(status_code=499)

    return {HTTPException: http_error, ClientDisconnect: client_gone, Exception: internal_error}


def _routes(api: PanelApi, articles: ArticlesApi, pitfalls_project: Path | None) -> list[Any]:
    from reckoner.panel.pitfalls import pitfalls_routes

    return [
        Route("/", api.index_page, methods=["GET"]),
        *pitfalls_routes(API, api.home, api.note, pitfalls_project),
        Route(f"{API}/records-index", api.records_index, methods=["GET"]),
        # ``path`` so an id with an encoded slash still reaches the validator (400), rather
        # than falling through the router.
        Route(f"{API}/records/{{record_id:path}}", api.record, methods=["GET", "DELETE"]),
        Route(f"{API}/record-typeset/{{record_id:path}}", api.record_typeset, methods=["GET"]),
        Route(
            f"{API}/compute-receipt/{{record_id}}/{{seq:int}}",
            api.compute_receipt,
            methods=["GET"],
        ),
        Route(
            f"{API}/settings",
            api.settings,
            methods=["GET", "PUT", "POST", "DELETE", "PATCH"],
        ),
        *article_routes(API, articles),
        Route(f"{API}/{{rest:path}}", api.api_not_found),
        Mount("/static", app=StaticFiles(directory=STATIC_DIR), name="static"),
    ]


def create_app(home: Path, options: PanelOptions) -> Starlette:
    """The panel app for one home, answering as ``options`` say."""
    api = PanelApi(home, options.poll_ms, options.log)
    articles = ArticlesApi(api.archive, api.state, api.note)
    # An older build's flat article keys become the generation tree once (docs/guide/records.md).
    api.state.migrate_legacy()
    app = Starlette(
        routes=_routes(api, articles, options.pitfalls_project),
        exception_handlers=_exception_handlers(api),
        middleware=[
            Middleware(_SecurityHeaders),
            Middleware(
                GuardMiddleware,
                policy=HostPolicy(options.bound_host, options.bound_port),
                max_body_bytes=MAX_BODY_BYTES,
                body_advice="send only the settings sections you change",
            ),
            Middleware(PanelDoor, token=options.token, port=options.bound_port),
        ],
    )
    # Exposed so tests and benchmarks can observe what the endpoints read.
    app.state.archive = api.archive
    app.state.article_jobs = articles.jobs
    return app
