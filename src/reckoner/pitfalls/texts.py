"""What a model reads about the memory: the prevention rule and the tools' texts."""

from __future__ import annotations

_RULES = """\
## Pitfalls memory

You have a memory of lessons learned from failed tool calls, shared across sessions \
(pitfall_search, pitfall_record, pitfall_update, pitfall_list, pitfall_merge, \
pitfall_delete). On a pitfall, record it; \
before starting, search:

1. Before starting a task, call pitfall_search with its key words (tool names, commands, \
file names, error codes) and follow any lesson that applies.
2. When a call failed and you found what works, or you hit a trap worth remembering, call \
pitfall_record once: a title you would search for next time, the solution, the error text \
as evidence, tags such as the tool name and the error code.
3. When a lesson helped again or its fix changed, add a note with pitfall_update; when two \
lessons say the same, fold one into the other with pitfall_merge; delete one that proved \
wrong with pitfall_delete.
"""

REMINDER_RULE = """\
4. When the same tool fails twice in a row, a reminder naming matching lessons may follow \
the failing result; read it before the next attempt.
"""

PREVENTION_RULE = _RULES + REMINDER_RULE
"""The rule of `serve --pitfalls`, whose server sees every tool's result and so can remind."""

STANDALONE_RULE = _RULES
"""The rule of `reckoner pitfalls serve`: it serves only the memory's tools, never sees
another tool fail, and so promises no reminder."""

TITLES: dict[str, str] = {
    "pitfall_record": "Record a lesson from a failure",
    "pitfall_search": "Search the lessons learned",
    "pitfall_update": "Update a lesson or add a note",
    "pitfall_list": "List recent lessons",
    "pitfall_delete": "Delete a lesson",
    "pitfall_merge": "Merge a duplicate lesson into another",
}

_FAILURE = (
    ' On failure: {"ok": false, "code": "PITFALL_...", "error": "<one sentence>"}; a refused '
    "call writes nothing."
)

DESCRIPTIONS: dict[str, str] = {
    "pitfall_record": (
        "Record one lesson learned from a failure, so this and later sessions avoid it: a "
        "searchable title, where it happens (area), symptom, cause, solution, the error text "
        "as evidence, tags (tool names, error codes) and status (solved, workaround, open). "
        "Record once the fix is known; over-long fields are cut to their limits and the "
        'answer says so. Answers {"ok": true, "id", "lesson", "card"} and, when the project '
        "library could not be written, warnings. A title nearly matching a recorded lesson's "
        "is refused with PITFALL_DUPLICATE naming that lesson: update it instead." + _FAILURE
    ),
    "pitfall_search": (
        "Search the lessons learned before starting a task or after a failure: words of the "
        "task or the error (tool names, commands, file names, error codes; English or "
        "Chinese). Lexical, not semantic: use the words the error uses. The project's lessons "
        "come first. An id as the query answers that lesson. Answers "
        '{"ok": true, "count", "lessons": [{"id", "title", "status", "solution", ...}]}; '
        "an empty list means nothing matched." + _FAILURE
    ),
    "pitfall_update": (
        "Update a recorded lesson by id: append a dated note (it happened again, the fix "
        "changed) and/or replace fields or the status. Answers "
        '{"ok": true, "id", "lesson", "card"}; PITFALL_NOT_FOUND when no lesson has the id.'
        + _FAILURE
    ),
    "pitfall_list": (
        "List the most recent lessons, optionally only one status or one tag. Answers "
        '{"ok": true, "count", "lessons": [...]}.' + _FAILURE
    ),
    "pitfall_delete": (
        "Delete a lesson by id, from the project and the global library: one that proved "
        "wrong or no longer applies. The history keeps it (a deletion is a snapshot of its "
        'own), but no search, list or reminder shows it again. Answers {"ok": true, "id", '
        '"deleted": true}; PITFALL_NOT_FOUND when no lesson has the id.' + _FAILURE
    ),
    "pitfall_merge": (
        "Merge a duplicate lesson into the one that stays: the kept lesson gains the "
        "duplicate's notes and tags and any field it lacks (its own fields win), with a note "
        "naming the duplicate; the duplicate is then deleted. Answers "
        '{"ok": true, "id", "lesson", "card", "merged"}.' + _FAILURE
    ),
}
