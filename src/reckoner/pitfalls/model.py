"""A lesson as data: its fields, their limits and how input is normalised (pure).

Over-long text is cut to its limit, never refused; every cut is reported as one sentence so
the caller can say so.
"""

from __future__ import annotations

from reckoner.contract.lessons import PITFALL_STATUSES
from reckoner.contract.limits import (
    MAX_PITFALL_BODY,
    MAX_PITFALL_LINE,
    MAX_PITFALL_NOTES,
    MAX_PITFALL_TAG,
    MAX_PITFALL_TAGS,
)

TYPE_CHECKING = False  # not typing's: the hook loads this module and must start fast
if TYPE_CHECKING:
    from typing import Any

FORMAT_VERSION = 1
LINE_FIELDS: tuple[str, ...] = ("title", "area")
BODY_FIELDS: tuple[str, ...] = ("symptom", "cause", "solution", "evidence")
TEXT_FIELDS: tuple[str, ...] = LINE_FIELDS + BODY_FIELDS
DEFAULT_STATUS = PITFALL_STATUSES[0]
STATUS_LABELS: dict[str, dict[str, str]] = {
    "en": {"solved": "solved", "workaround": "workaround", "open": "open"},
    "zh": {"solved": "已解决", "workaround": "已绕过", "open": "未解决"},
}


def limit_of(key: str) -> int:
    return MAX_PITFALL_LINE if key in LINE_FIELDS else MAX_PITFALL_BODY


class Cleaned:
    """Normalised fields and the sentences saying what was cut or changed."""

    __slots__ = ("changes", "fields")

    def __init__(self, fields: dict[str, Any], changes: list[str] | None = None) -> None:
        self.fields = fields
        self.changes = [] if changes is None else changes


def clean_text(key: str, raw: str, changes: list[str]) -> str:
    """Trimmed, and cut to the field's limit (reported)."""
    text = raw.strip()
    limit = limit_of(key) if key != "note" else MAX_PITFALL_BODY
    if len(text) > limit:
        changes.append(f"{key} was cut to its limit of {limit} characters")
        text = text[:limit].rstrip()
    return text


def clean_tags(raw: list[str], changes: list[str]) -> list[str]:
    """Trimmed, empty ones dropped, each cut to 24 characters, de-duplicated, at most 16."""
    tags: list[str] = []
    seen: set[str] = set()
    cut = False
    for item in raw:
        tag = " ".join(item.split())
        if len(tag) > MAX_PITFALL_TAG:
            tag, cut = tag[:MAX_PITFALL_TAG].rstrip(), True
        if tag and tag.lower() not in seen:
            seen.add(tag.lower())
            tags.append(tag)
    if cut:
        changes.append(f"a tag was cut to its limit of {MAX_PITFALL_TAG} characters")
    if len(tags) > MAX_PITFALL_TAGS:
        changes.append(f"only the first {MAX_PITFALL_TAGS} tags were kept")
        tags = tags[:MAX_PITFALL_TAGS]
    return tags


def clean_status(raw: Any, changes: list[str] | None = None) -> str:
    """One of solved, workaround, open; anything else is solved (most lessons are)."""
    if isinstance(raw, str) and raw.strip().lower() in PITFALL_STATUSES:
        return raw.strip().lower()
    if changes is not None and raw is not None:
        changes.append(
            f"status {str(raw)[:40]!r} is not one of {', '.join(PITFALL_STATUSES)}; "
            f"stored as {DEFAULT_STATUS}"
        )
    return DEFAULT_STATUS


def keep_notes(
    notes: list[dict[str, str]], changes: list[str] | None = None
) -> list[dict[str, str]]:
    """At most 50 notes; the oldest go first."""
    if len(notes) <= MAX_PITFALL_NOTES:
        return notes
    if changes is not None:
        changes.append(
            f"only the newest {MAX_PITFALL_NOTES} notes are kept; the oldest was dropped"
        )
    return notes[-MAX_PITFALL_NOTES:]


def clean_fields(given: dict[str, Any]) -> Cleaned:
    """The text fields, tags and status of a record or an update, normalised."""
    cleaned = Cleaned({})
    for key in TEXT_FIELDS:
        if isinstance(given.get(key), str):
            cleaned.fields[key] = clean_text(key, given[key], cleaned.changes)
    if isinstance(given.get("tags"), list):
        tags = [t for t in given["tags"] if isinstance(t, str)]
        cleaned.fields["tags"] = clean_tags(tags, cleaned.changes)
    if "status" in given and given["status"] is not None:
        cleaned.fields["status"] = clean_status(given["status"], cleaned.changes)
    return cleaned


def normalise_entry(raw: dict[str, Any]) -> dict[str, Any] | None:
    """A stored snapshot as an entry, or None when it is not one (no id, not v 1)."""
    entry_id = raw.get("id")
    if raw.get("v") != FORMAT_VERSION or not isinstance(entry_id, str) or not entry_id:
        return None
    ignored: list[str] = []
    entry: dict[str, Any] = {"v": FORMAT_VERSION, "id": entry_id}
    for key in TEXT_FIELDS:
        value = raw.get(key)
        entry[key] = clean_text(key, value, ignored) if isinstance(value, str) else ""
    tags = raw.get("tags")
    entry["tags"] = (
        clean_tags([t for t in tags if isinstance(t, str)], ignored)
        if isinstance(tags, list)
        else []
    )
    entry["status"] = clean_status(raw.get("status"))
    notes = raw.get("notes")
    entry["notes"] = keep_notes(
        [
            {"at": str(n.get("at", "")), "text": str(n["text"])}
            for n in (notes if isinstance(notes, list) else [])
            if isinstance(n, dict) and isinstance(n.get("text"), str)
        ]
    )
    for key in ("created", "updated"):
        value = raw.get(key)
        entry[key] = value if isinstance(value, str) else ""
    if not entry["updated"]:
        entry["updated"] = entry["created"]
    return entry


def new_entry(entry_id: str, now_iso: str, fields: dict[str, Any]) -> dict[str, Any]:
    """A fresh entry from cleaned fields."""
    entry: dict[str, Any] = {"v": FORMAT_VERSION, "id": entry_id}
    for key in TEXT_FIELDS:
        entry[key] = fields.get(key, "")
    entry["tags"] = fields.get("tags", [])
    entry["status"] = fields.get("status", DEFAULT_STATUS)
    entry["notes"] = []
    entry["created"] = now_iso
    entry["updated"] = now_iso
    return entry


def applied(
    entry: dict[str, Any], cleaned: Cleaned, note: str | None, now_iso: str
) -> dict[str, Any]:
    """The entry after an update: fields replaced, a note appended, updated stamped."""
    result = {**entry, **cleaned.fields, "updated": now_iso}
    notes = list(entry.get("notes", []))
    if note:
        notes.append({"at": now_iso, "text": note})
    result["notes"] = keep_notes(notes, cleaned.changes)
    return result


def merged_copies(first: dict[str, Any], second: dict[str, Any]) -> dict[str, Any]:
    """One lesson from its project and global copies, so an edit made through either tier is
    kept: each field from the copy updated last where the two differ (a field only one copy
    has is kept), and the notes of both, each (time, text) once, in time order."""
    older, newer = sorted((first, second), key=lambda copy: str(copy.get("updated") or ""))
    result = {**older, **newer}
    seen: set[tuple[str, str]] = set()
    notes: list[dict[str, str]] = []
    for note in [*older.get("notes", []), *newer.get("notes", [])]:
        key = (str(note.get("at", "")), str(note.get("text", "")))
        if key not in seen:
            seen.add(key)
            notes.append(note)
    notes.sort(key=lambda note: str(note.get("at", "")))  # stable: same-second notes keep order
    result["notes"] = keep_notes(notes)
    return result


def folded_into(kept: dict[str, Any], duplicate: dict[str, Any], now_iso: str) -> dict[str, Any]:
    """The kept lesson after a merge: its own fields win, a field it left empty takes the
    duplicate's, the tags of both (kept first, each once, within the limit), the notes of
    both in time order, and a note naming the duplicate."""
    result = {**kept, "updated": now_iso}
    for key in TEXT_FIELDS:
        if not result.get(key) and duplicate.get(key):
            result[key] = duplicate[key]
    tags = list(kept.get("tags", []))
    for tag in duplicate.get("tags", []):
        if tag.lower() not in {t.lower() for t in tags}:
            tags.append(tag)
    result["tags"] = clean_tags(tags, [])
    merged = merged_copies({**kept, "updated": ""}, {**duplicate, "updated": ""})["notes"]
    note = f"merged from {duplicate['id']}: {duplicate.get('title') or '(untitled)'}"
    result["notes"] = keep_notes([*merged, {"at": now_iso, "text": note}])
    return result


def entry_id_for(stamp: str, suffix: str) -> str:
    """``p-YYYYMMDD-HHMMSS-xxxx`` from a ``YYYYMMDD-HHMMSS`` stamp and 4 hex digits."""
    return f"p-{stamp}-{suffix}"


def is_entry_id(text: str) -> bool:
    parts = text.split("-")
    return (
        len(parts) == 4
        and parts[0] == "p"
        and len(parts[1]) == 8
        and parts[1].isdigit()
        and len(parts[2]) == 6
        and parts[2].isdigit()
        and len(parts[3]) == 4
        and all(c in "0123456789abcdef" for c in parts[3])
    )
