"""The ``pitfall_*`` tools: arguments checked against the one contract, one answer each.

An answer is ``{"ok": true, ...}`` with the lessons, or ``{"ok": false, "code", "error"}``
with one sentence naming what was wrong, the limit and the fix. A refused call writes
nothing. ``text`` is the same answer as a model reads it best: id, title, status, the
solution first.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from reckoner.contract.checks import CheckOptions, argument_problem
from reckoner.contract.codes import PitfallCode
from reckoner.contract.pitfalls import OPTION_TOOL_BY_NAME, PITFALL_TOOLS
from reckoner.contract.refusal import Refusal

from . import render
from .library import LibraryError, now_stamp
from .model import TEXT_FIELDS, clean_fields, clean_text
from .search import STOPWORDS
from .tiers import Hit, NotFound, Outcome, Pitfalls

TOOL_NAMES: tuple[str, ...] = tuple(tool.name for tool in PITFALL_TOOLS)
DEFAULT_SEARCH_LIMIT = 5
DEFAULT_LIST_LIMIT = 10


NEAR_TITLE_OVERLAP = 0.8
"""Two titles whose informative words overlap this much (shared over all, Jaccard) name the
same lesson: "npm install -g fails with EACCES" and "npm install -g fails: EACCES"."""


@dataclass(frozen=True, slots=True)
class Answer:
    data: dict[str, Any]
    text: str

    @property
    def ok(self) -> bool:
        return self.data.get("ok") is True


_OPTIONS: dict[str, CheckOptions] = {
    # A lesson's status is normalised, never refused: anything but the three is stored as
    # solved and the answer says so. A filter is checked (pitfall_list: it stores nothing).
    name: CheckOptions(normalised=frozenset({"status"}))
    for name in ("pitfall_record", "pitfall_update")
}


def check_arguments(tool: str, args: Any) -> dict[str, Any]:
    """The arguments with null-as-absent keys dropped, or a refusal, as the contract says."""
    spec = OPTION_TOOL_BY_NAME[tool]
    problem = argument_problem(spec, args, _OPTIONS.get(tool))
    if problem is not None:
        raise Refusal(PitfallCode.INVALID_ARGS, problem)
    assert isinstance(args, dict)  # argument_problem refuses anything else
    return {a.key: args[a.key] for a in spec.arguments if args.get(a.key) is not None}


class PitfallTools:
    """The tools over one memory."""

    def __init__(self, pitfalls: Pitfalls) -> None:
        self.pitfalls = pitfalls

    def call(self, tool: str, args: Any) -> Answer:
        """One call in, one answer out; never raises."""
        try:
            checked = check_arguments(tool, args)
            handler: Callable[[dict[str, Any]], Answer] = getattr(self, f"_{tool}")
            return handler(checked)
        except Refusal as refusal:
            return _refused(refusal)
        except LibraryError as error:
            return _refused(Refusal(PitfallCode.WRITE_FAILED, str(error)))

    def _pitfall_record(self, args: dict[str, Any]) -> Answer:
        cleaned = clean_fields(args)
        if not cleaned.fields.get("title"):
            raise Refusal(
                PitfallCode.INVALID_ARGS,
                "pitfall_record's title is empty; write the lesson in one line, such as "
                "'eval refuses 2x: write 2*@x'",
            )
        twin = self._near_title(str(cleaned.fields["title"]))
        if twin is not None:
            raise Refusal(
                PitfallCode.DUPLICATE,
                f"lesson {twin['id']} already has nearly this title ({twin['title'][:80]!r}), "
                "so nothing was recorded; add to it with pitfall_update (a note, or the fields "
                "that changed), or give this lesson a title that says how it differs",
            )
        outcome = self.pitfalls.record(cleaned)
        return _written("recorded", outcome)

    def _near_title(self, title: str) -> dict[str, Any] | None:
        """A recorded lesson whose title is this one's but for case, punctuation, stopwords
        or a word in five (``NEAR_TITLE_OVERLAP``); None when there is none."""
        words = _title_words(title)
        if not words:
            return None
        for hit in self.pitfalls.search(title, limit=5):
            theirs = _title_words(str(hit.entry.get("title") or ""))
            if theirs and len(words & theirs) / len(words | theirs) >= NEAR_TITLE_OVERLAP:
                return hit.entry
        return None

    def _pitfall_update(self, args: dict[str, Any]) -> Answer:
        entry_id = args["id"].strip()
        changes: list[str] = []
        note = clean_text("note", args["note"], changes) if "note" in args else None
        cleaned = clean_fields(args)
        cleaned.changes[:0] = changes
        if "title" in cleaned.fields and not cleaned.fields["title"]:
            raise Refusal(
                PitfallCode.INVALID_ARGS,
                "pitfall_update's title is empty; leave title out to keep it, or give a line",
            )
        if not note and not cleaned.fields:
            keys = ", ".join(("note", *TEXT_FIELDS, "tags", "status"))
            raise Refusal(
                PitfallCode.INVALID_ARGS,
                f"pitfall_update changes nothing; give at least one of {keys}",
            )
        try:
            outcome = self.pitfalls.update(entry_id, cleaned, note or None, now_stamp()[0])
        except NotFound:
            raise _not_found(entry_id) from None
        return _written("updated", outcome)

    def _pitfall_delete(self, args: dict[str, Any]) -> Answer:
        entry_id = args["id"].strip()
        try:
            self.pitfalls.delete(entry_id, now_stamp()[0])
        except NotFound:
            raise _not_found(entry_id) from None
        return Answer({"ok": True, "id": entry_id, "deleted": True}, f"Lesson deleted: {entry_id}")

    def _pitfall_merge(self, args: dict[str, Any]) -> Answer:
        keep, duplicate = args["id"].strip(), args["duplicate"].strip()
        if keep == duplicate:
            raise Refusal(
                PitfallCode.INVALID_ARGS,
                f"pitfall_merge's id and duplicate are both {keep[:40]!r}; give the lesson "
                "that stays as id and the one to fold into it as duplicate",
            )
        for entry_id in (keep, duplicate):
            if self.pitfalls.find(entry_id) is None:
                raise _not_found(entry_id)
        outcome = self.pitfalls.merge(keep, duplicate, now_stamp()[0])
        answer = _written("merged", outcome)
        answer.data["merged"] = duplicate
        return Answer(answer.data, answer.text + f"\nMerged and deleted: {duplicate}")

    def _pitfall_search(self, args: dict[str, Any]) -> Answer:
        warnings: list[str] = []
        hits = self.pitfalls.search(
            args.get("query", ""),
            tag=args.get("tag"),
            limit=args.get("limit", DEFAULT_SEARCH_LIMIT),
            warnings=warnings,
        )
        return _listing(hits, warnings, "no recorded lesson matches; if you solve this, record it")

    def _pitfall_list(self, args: dict[str, Any]) -> Answer:
        warnings: list[str] = []
        # The status filter was checked against its values: "Solved" would match nothing.
        status, tag = args.get("status"), args.get("tag")
        hits = self.pitfalls.search(
            "",
            tag=tag,
            status=status,
            limit=args.get("limit", DEFAULT_LIST_LIMIT),
            warnings=warnings,
        )
        return _listing(hits, warnings, self._nothing_listed(status, tag))

    def _nothing_listed(self, status: str | None, tag: str | None) -> str:
        """Why a listing is empty: no lesson at all, or none that passes the filters."""
        if (status is None and tag is None) or not self.pitfalls.search("", limit=1):
            return "no lessons recorded yet"
        wanted = [
            f"status {status!r}" if status is not None else "",
            f"the tag {tag!r}" if tag else "",
        ]
        return (
            f"no lesson has {' and '.join(w for w in wanted if w)}; lessons are recorded, "
            "pitfall_list without the filter lists the most recent"
        )


def _not_found(entry_id: str) -> Refusal:
    return Refusal(
        PitfallCode.NOT_FOUND,
        f"no lesson has the id {entry_id[:40]!r}; find it with pitfall_search or "
        "pitfall_list (ids look like p-20261201-070000-a3f9)",
    )


def _title_words(title: str) -> set[str]:
    # Every word and number, one digit included ("step 1" is not "step 2"), minus stopwords.
    return {word for word in re.findall(r"\w+", title.lower()) if word not in STOPWORDS}


def _refused(refusal: Refusal) -> Answer:
    return Answer(refusal.receipt(), f"{refusal.code.value}: {refusal.sentence}")


def _public(entry: dict[str, Any]) -> dict[str, Any]:
    """The lesson as a model gets it: id, title, status and the solution first."""
    order = ("id", "title", "status", "solution", "area", "symptom", "cause", "evidence")
    shown = {key: entry[key] for key in order if entry.get(key) or key in ("id", "title")}
    for key in ("tags", "notes", "created", "updated"):
        if entry.get(key):
            shown[key] = entry[key]
    return shown


def _written(verb: str, outcome: Outcome) -> Answer:
    card = outcome.library.card_path(outcome.entry["id"])
    data: dict[str, Any] = {"ok": True, "id": outcome.entry["id"], "lesson": _public(outcome.entry)}
    data["card"] = str(card)
    lines = [f"Lesson {verb}: {outcome.entry['id']} ({card})", render.brief(outcome.entry)]
    if outcome.changes:
        data["changes"] = outcome.changes
        lines.append("Changed on the way in: " + "; ".join(outcome.changes) + ".")
    if outcome.warnings:
        data["warnings"] = outcome.warnings
        lines.append("Note: " + "; ".join(outcome.warnings) + ".")
    return Answer(data, "\n".join(lines))


def _listing(hits: list[Hit], warnings: list[str], empty: str) -> Answer:
    data: dict[str, Any] = {
        "ok": True,
        "count": len(hits),
        "lessons": [
            {**_public(h.entry), "card": str(h.library.card_path(h.entry["id"]))} for h in hits
        ],
    }
    lines = [render.brief(h.entry) for h in hits] or [empty[0].upper() + empty[1:] + "."]
    if hits:
        lines.append("Full card: the card path in each lesson, or pitfall_search with the id.")
    if warnings:
        data["warnings"] = warnings
        lines.append("Note: " + "; ".join(warnings) + ".")
    return Answer(data, "\n".join(lines))
