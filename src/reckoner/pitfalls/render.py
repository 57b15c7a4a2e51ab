"""How lessons read: a card per lesson, the library's index, tool results and reminders."""

from __future__ import annotations

from .model import BODY_FIELDS, STATUS_LABELS

TYPE_CHECKING = False  # not typing's: the hook loads this module and must start fast
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

_HEADINGS = {
    "solution": "Solution",
    "symptom": "Symptom",
    "cause": "Cause",
    "evidence": "Evidence",
}
# The solution first: it is what a reader came for.
_CARD_ORDER = ("solution", "symptom", "cause", "evidence")
SNIPPET = 240


def status_label(status: str, language: str = "en") -> str:
    labels = STATUS_LABELS.get(language, STATUS_LABELS["en"])
    return labels.get(status, labels["solved"])


def _one_line(text: str, limit: int = SNIPPET) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def card(entry: dict[str, Any]) -> str:
    """``cards/<id>.md``: the whole lesson in Markdown."""
    lines = [f"# {entry['title'] or '(untitled)'}", ""]
    lines.append(f"- id: `{entry['id']}`")
    lines.append(f"- status: {status_label(entry['status'])}")
    if entry.get("area"):
        lines.append(f"- area: {entry['area']}")
    if entry.get("tags"):
        lines.append("- tags: " + ", ".join(f"`{t}`" for t in entry["tags"]))
    lines.append(f"- created: {entry.get('created', '')}")
    lines.append(f"- updated: {entry.get('updated', '')}")
    assert set(_CARD_ORDER) == set(BODY_FIELDS)
    for key in _CARD_ORDER:
        if entry.get(key):
            fence = "```" if key == "evidence" else ""
            body = f"{fence}\n{entry[key]}\n{fence}" if fence else entry[key]
            lines += ["", f"## {_HEADINGS[key]}", "", body]
    if entry.get("notes"):
        lines += ["", "## Notes", ""]
        lines += [f"- {n.get('at', '')}: {_one_line(n['text'], 100_000)}" for n in entry["notes"]]
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    return _one_line(text, 120).replace("|", "\\|")


def index(entries: Sequence[dict[str, Any]]) -> str:
    """``INDEX.md``: every lesson, newest first, linking its card."""
    ordered = sorted(entries, key=lambda e: str(e.get("updated", "")), reverse=True)
    lines = [
        "# Pitfalls",
        "",
        f"{len(ordered)} lesson{'s' if len(ordered) != 1 else ''}, newest first. "
        "`entries.jsonl` is the source of truth; this page and `cards/` are rewritten "
        "from it.",
        "",
        "| updated | status | title | area | tags |",
        "| --- | --- | --- | --- | --- |",
    ]
    for e in ordered:
        lines.append(
            f"| {e.get('updated', '')[:10]} | {status_label(e['status'])} | "
            f"[{_cell(e['title'] or '(untitled)')}](cards/{e['id']}.md) | {_cell(e['area'])} | "
            f"{_cell(', '.join(e['tags']))} |"
        )
    return "\n".join(lines) + "\n"


def brief(entry: dict[str, Any]) -> str:
    """One lesson for a model: id, title, status, then the solution first."""
    head = f"[{entry['id']}] {entry['title'] or '(untitled)'} ({status_label(entry['status'])})"
    lines = [head]
    if entry.get("solution"):
        lines.append(f"  solution: {_one_line(entry['solution'])}")
    for key in ("area", "symptom", "cause"):
        if entry.get(key):
            lines.append(f"  {key}: {_one_line(entry[key])}")
    if entry.get("tags"):
        lines.append(f"  tags: {', '.join(entry['tags'])}")
    return "\n".join(lines)


def reminder(
    entries: Sequence[dict[str, Any]], tool: str, cards: Sequence[object] = ()
) -> str | None:
    """The reminder after repeated failures, naming matching lessons; None when none match."""
    if not entries:
        return None
    lines = [
        f"Pitfalls memory: {tool} failed twice in a row, and these recorded lessons look "
        "related. Check them before trying again:"
    ]
    for i, entry in enumerate(entries):
        solution = _one_line(entry.get("solution") or "(no solution recorded)", 200)
        card = f", card {cards[i]}" if i < len(cards) else ""
        lines.append(f"- {entry['title'] or '(untitled)'}: {solution} (id {entry['id']}{card})")
    lines.append(
        "Read a full card at its path, with pitfall_search and the id as the query, or with "
        "`reckoner pitfalls show ID`. If this is a new pitfall, record it with pitfall_record "
        "once solved."
    )
    return "\n".join(lines)


def session_start(entries: Sequence[dict[str, Any]], cards: Sequence[object] = ()) -> str | None:
    """What a new session is told of its project's lessons; None when it has none."""
    if not entries:
        return None
    lines = [
        "Pitfalls memory: lessons recorded in this project, the most recent first. Follow one "
        "that applies; pitfall_search finds the others:"
    ]
    for i, entry in enumerate(entries):
        solution = _one_line(entry.get("solution") or "(no solution recorded)", 200)
        card = f", card {cards[i]}" if i < len(cards) else ""
        lines.append(f"- {entry['title'] or '(untitled)'}: {solution} (id {entry['id']}{card})")
    return "\n".join(lines)
