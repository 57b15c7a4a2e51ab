"""The Pitfalls tab's endpoints: search and read lessons, change a status, add a note,
delete a lesson, merge a duplicate into the lesson that stays.

Under ``/api/reckoner/pitfalls`` and behind the same token and guard as every endpoint (own
Host only, own Origin for changes, JSON bodies). Every change goes through the same
``pitfall_update``, ``pitfall_delete`` and ``pitfall_merge`` a model calls, so the checks,
the snapshots and the sentences are the memory's own: the panel is never a second writer.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from reckoner.contract.codes import PitfallCode
from reckoner.pitfalls import render
from reckoner.pitfalls.tiers import Pitfalls
from reckoner.pitfalls.tools import Answer, PitfallTools
from reckoner.wire import dumps, loads

MAX_EDIT_BYTES = 64 * 1024
PANEL_LIMIT = 20
Note = Callable[..., None]


def _json(body: Any, status: int = 200) -> Response:
    return Response(
        dumps(body),
        status_code=status,
        media_type="application/json",
        headers={"cache-control": "no-store"},
    )


def _error(status: int, sentence: str) -> Response:
    return _json({"error": sentence}, status)


class PitfallsEndpoints:
    """The handlers over one home's memory, with the project's library first when given."""

    def __init__(self, home: Path, note: Note, project: Path | None) -> None:
        self.tools = PitfallTools(Pitfalls.open(home, project=project))
        self.note = note

    def _lessons(self, query: str, tag: str | None, status: str | None) -> dict[str, Any]:
        warnings: list[str] = []
        hits = self.tools.pitfalls.search(
            query, tag=tag, status=status, limit=PANEL_LIMIT, warnings=warnings
        )
        return {
            "lessons": [
                {
                    **h.entry,
                    "tier": "project"
                    if h.library is not self.tools.pitfalls.global_library
                    else "global",
                    "score": round(h.score, 3),
                }
                for h in hits
            ],
            "warnings": warnings,
        }

    async def search(self, request: Request) -> Response:
        params = request.query_params
        status = params.get("status") or None
        body = await run_in_threadpool(
            self._lessons, params.get("q", ""), params.get("tag") or None, status
        )
        return _json(body)

    async def lesson(self, request: Request) -> Response:
        lesson_id = request.path_params["lesson_id"]
        if request.method == "GET":
            found = await run_in_threadpool(self.tools.pitfalls.find, lesson_id)
            if found is None:
                return _error(404, f"There is no lesson {lesson_id[:60]!r}; search for it first.")
            entry, library = found
            card = str(library.card_path(entry["id"]))
            return _json({"lesson": entry, "card": card, "markdown": render.card(entry)})
        body = await _json_body(request, "edit", '{"status": ..., "note": ...}')
        if isinstance(body, Response):
            return body
        if not isinstance(body, dict) or not body.keys() <= {"status", "note"}:
            return _error(400, 'The panel edits only status and note: send {"status", "note"}.')
        answer = await run_in_threadpool(
            self.tools.call, "pitfall_update", {"id": lesson_id, **body}
        )
        if not answer.ok:
            return _refused(answer)
        self.note("info", "panel: lesson updated", id=lesson_id)
        return _json({"lesson": answer.data["lesson"], "warnings": answer.data.get("warnings", [])})

    async def delete(self, request: Request) -> Response:
        lesson_id = request.path_params["lesson_id"]
        answer = await run_in_threadpool(self.tools.call, "pitfall_delete", {"id": lesson_id})
        if not answer.ok:
            return _refused(answer)
        self.note("info", "panel: lesson deleted", id=lesson_id)
        return _json({"deleted": answer.data["id"]})

    async def merge(self, request: Request) -> Response:
        """``{"id": kept, "duplicate": folded}``: the tool's own arguments, nothing else."""
        body = await _json_body(request, "merge", '{"id": ..., "duplicate": ...}')
        if isinstance(body, Response):
            return body
        if not isinstance(body, dict) or body.keys() != {"id", "duplicate"}:
            return _error(
                400,
                "A merge names the lesson that stays and the one folded into it: send "
                '{"id": kept, "duplicate": folded} and nothing else.',
            )
        answer = await run_in_threadpool(self.tools.call, "pitfall_merge", body)
        if not answer.ok:
            return _refused(answer)
        self.note("info", "panel: lessons merged", id=answer.data["id"], merged=body["duplicate"])
        return _json(
            {
                "lesson": answer.data["lesson"],
                "merged": answer.data["merged"],
                "warnings": answer.data.get("warnings", []),
            }
        )


async def _json_body(request: Request, what: str, shape: str) -> Any:
    """The request's JSON body, or the refusal that says why it is none."""
    raw = await request.body()
    if len(raw) > MAX_EDIT_BYTES:
        return _error(
            413,
            f"The {what} is {len(raw)} bytes, over the limit of {MAX_EDIT_BYTES}; send only "
            f"{shape}.",
        )
    try:
        return loads(raw)
    except ValueError:
        return _error(400, f"The {what} is not valid JSON; send {shape}.")


def _refused(answer: Answer) -> Response:
    """A tool's refusal as HTTP: its sentence, with the status its code stands for."""
    code = answer.data["code"]
    status_code = {PitfallCode.NOT_FOUND: 404, PitfallCode.WRITE_FAILED: 500}.get(code, 400)
    return _error(status_code, answer.data["error"])


def pitfalls_routes(api_prefix: str, home: Path, note: Note, project: Path | None) -> list[Route]:
    endpoints = PitfallsEndpoints(home, note, project)
    return [
        Route(f"{api_prefix}/pitfalls", endpoints.search, methods=["GET"]),
        # Before the lesson route, so "merge" is never read as a lesson's id.
        Route(f"{api_prefix}/pitfalls/merge", endpoints.merge, methods=["POST"]),
        Route(f"{api_prefix}/pitfalls/{{lesson_id}}", endpoints.lesson, methods=["GET", "PATCH"]),
        Route(f"{api_prefix}/pitfalls/{{lesson_id}}", endpoints.delete, methods=["DELETE"]),
    ]
