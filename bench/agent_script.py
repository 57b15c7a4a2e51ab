"""The calls a careful agent writes, as the scripted agent benchmark (`agent_tasks.py`)
spells its questions: one builder per call, and `Task`, one question written both ways."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

Call = tuple[str, dict[str, Any]]


def start(title: str) -> Call:
    return ("record_start", {"title": title})


def note(text: str) -> Call:
    return ("record_message", {"text": text})


def end(text: str) -> Call:
    return ("record_end", {"text": text})


def given(
    name: str,
    num: float | list[float],
    unit: str | None = None,
    read: dict[str, Any] | None = None,
) -> Call:
    """A given quantity, transcribed with the unit it was given in; with `read` options when
    the question only asks for it in another unit (a pure conversion, read by the set)."""
    tag = "array" if isinstance(num, list) else "num"
    value: dict[str, Any] = {tag: num}
    if unit is not None:
        value["unit"] = unit
    args: dict[str, Any] = {"name": name, "value": value}
    if read:
        args["read"] = read
    return ("set", args)


def si(name: str, num: float | list[float], dim: str | list[int] | None = None) -> Call:
    """A quantity the agent converted to SI itself, with its dim (the manual's only way)."""
    tag = "array" if isinstance(num, list) else "num"
    value: dict[str, Any] = {tag: num}
    if dim is not None:
        value["dim"] = dim
    return ("set", {"name": name, "value": value})


def step(
    why: str, formula: str, target: str, *readings: dict[str, Any], **read: Any
) -> tuple[Call, Call]:
    """One step as the persona asks for it (rule 3): a message saying what the step does,
    then its eval, with `read` options when the result is shown in the same call, or a list
    of readings (`readings`) when it is asked in several units."""
    args: dict[str, Any] = {"formula": formula, "target": target}
    assert not (readings and read), "one reading as options, or several as a list"
    if readings:
        args["read"] = list(readings)
    elif read:
        args["read"] = read
    return note(why), ("eval", args)


def get(name: str, **options: Any) -> Call:
    return ("get", {"name": name, **options})


@dataclass(frozen=True)
class Task:
    """One question: its two call sequences and the answers both must reach."""

    area: str
    question: str
    with_units: list[Call]
    without: list[Call]
    answers: tuple[float, ...]  # in the units the question asks for
    hand_made_units: tuple[str, ...] = ()  # unit slots the run without `unit` needs
    stops: bool = False  # a quantity is missing: the run must stop at SLOT_NOT_FOUND
    missing: tuple[str, ...] = ()  # the slots the one refusal of a stopping run must name
    shown: list[str] = field(default_factory=list)
