"""The extractive step's prompt and the reading of its reply (docs/guide/lookup.md, step 4). Pure.

The reply must be one JSON object, ``{"answer", "used", "insufficient"}``; anything else is
a technical failure whose raw text stays in the record and never reaches the model.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

PROMPT_VERSION = "search-extract/1"

SYSTEM_PROMPT = """\
You extract one fact from the numbered material below, and nothing else (prompt search-extract/1).

Rules:
- Use the material alone. Do not use anything you know from elsewhere.
- Quote the number with its unit exactly as the material writes it. Never convert a unit, \
round, compute or derive a value, not even a simple one.
- If the material does not state the fact asked for, say so: set "insufficient" to true.
- Answer in one or two sentences.

Reply with exactly one JSON object and no other text:
{"answer": "<the fact as the material states it, or an empty string>", \
"used": [<the numbers of the material items the answer relies on>], \
"insufficient": <true or false>}"""


@dataclass(frozen=True, slots=True)
class Material:
    """One item the extractive step reads: a source's title, snippet and any page text."""

    url: str
    title: str | None
    snippet: str | None
    page_text: str | None


def user_message(question: str, items: list[Material]) -> str:
    """The question and the numbered material, as the extractive call's one user turn."""
    lines = [f"Question: {question}", "", "Material:"]
    for index, item in enumerate(items):
        lines.append(f"[{index}] {item.title or '(untitled)'} <{item.url}>")
        if item.snippet:
            lines.append(f"Snippet: {item.snippet}")
        if item.page_text:
            lines.append(f"Page text: {item.page_text}")
        lines.append("")
    return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class Extraction:
    """A reply read as the agreed object."""

    answer: str
    used: tuple[int, ...]
    insufficient: bool


class UnreadableReply(ValueError):
    """A reply that is not the agreed object; the message says how, in a clause."""


def _unfenced(text: str) -> str:
    body = text.strip()
    # One Markdown code fence around the object is the only wrapping accepted.
    if body.startswith("```") and body.endswith("```") and len(body) >= 6:
        inner = body[3:-3]
        first_newline = inner.find("\n")
        if first_newline >= 0 and inner[:first_newline].strip() in ("", "json"):
            return inner[first_newline + 1 :].strip()
    return body


def read_reply(text: str, item_count: int) -> Extraction:
    """The reply as an Extraction, or UnreadableReply; indices must fall within the material."""
    try:
        reply = json.loads(_unfenced(text))
    except (ValueError, RecursionError):
        raise UnreadableReply("the extractive reply is not a JSON object") from None
    if not isinstance(reply, dict):
        raise UnreadableReply("the extractive reply is JSON but not an object")
    if set(reply) != {"answer", "used", "insufficient"}:
        raise UnreadableReply(
            "the extractive reply does not carry exactly answer, used and insufficient"
        )
    answer, used, insufficient = reply["answer"], reply["used"], reply["insufficient"]
    if type(insufficient) is not bool:
        raise UnreadableReply("the extractive reply's insufficient is not true or false")
    if type(answer) is not str:
        raise UnreadableReply("the extractive reply's answer is not a string")
    if not isinstance(used, list) or any(type(i) is not int for i in used):
        raise UnreadableReply("the extractive reply's used is not a list of item numbers")
    outside = [i for i in used if not 0 <= i < item_count]
    if outside:
        raise UnreadableReply(
            f"the extractive reply cites item {outside[0]}, outside the {item_count} "
            f"item(s) of material"
        )
    indices = tuple(dict.fromkeys(used))
    if not insufficient:
        if not answer.strip():
            raise UnreadableReply("the extractive reply answers with an empty text")
        if not indices:
            raise UnreadableReply("the extractive reply answers without citing any material")
    return Extraction(answer.strip(), indices, insufficient)


def cut(answer: str, limit: int) -> str:
    """The answer cut to ``limit`` characters, marked with an ellipsis when cut."""
    if len(answer) <= limit:
        return answer
    return answer[: max(limit - 1, 0)].rstrip() + "…"
