"""The model-facing texts shipped inside the package: the two skills and the presets' persona."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources

from reckoner.contract.presets import PURE_PRESET
from reckoner.contract.registry import PRESET_NAMES, added_tools


@dataclass(frozen=True, slots=True)
class Skill:
    """One skill: served as the prompt ``name`` and as the resource ``uri``."""

    name: str
    uri: str
    file: str
    description: str


SKILLS: tuple[Skill, ...] = (
    Skill(
        "reckoner-interface",
        "reckoner://skills/interface",
        "interface.md",
        "The reckoner engine's whole interface for a model: values and dim, receipts, the "
        "formula language, the 35 notations, the dimension rules, the record protocol and "
        "the 19 failure codes with what to do on each.",
    ),
    Skill(
        "reckoner-template",
        "reckoner://skills/template",
        "template.md",
        "How to carry one question through a reckoner record, step by step, with a worked "
        "example: title, conditions in SI, one eval per step with its message, results "
        "read with get, a closing text.",
    ),
)

PRESETS: tuple[str, ...] = PRESET_NAMES
"""The presets `serve --preset` accepts, from the contract: the pure one, one per preset
tool, and the one that serves both."""

_RULE = re.compile(r"^(\d+)\. ", re.MULTILINE)


@cache
def skill_text(skill: Skill) -> str:
    """The Markdown of one skill."""
    return (resources.files("reckoner.server") / "skills" / skill.file).read_text("utf-8")


@cache
def persona(preset: str = PURE_PRESET, switched_off: frozenset[str] = frozenset()) -> str:
    """The server instructions of a preset: the pure persona, then the rules of each tool the
    preset adds, as that tool's own preset ships them.

    A preset serving several tools composes their own texts rather than keeping a copy, and
    numbers their rules on from the rules before them. A tool in ``switched_off`` (compute
    with mode off) is not listed, so its rules are left out too.
    """
    if preset not in PRESETS:
        raise ValueError(f"unknown preset {preset!r}; the presets are: {', '.join(PRESETS)}")
    folder = resources.files("reckoner.server") / "presets"
    text = (folder / f"{PURE_PRESET}.md").read_text("utf-8")
    for tool in added_tools(preset):
        if tool.name in switched_off:
            continue
        rules = (folder / f"{tool.own_preset}.md").read_text("utf-8")
        text = text.rstrip("\n") + "\n\n" + _numbered_after(text, rules)
    return text


def _numbered_after(before: str, rules: str) -> str:
    """``rules`` with its numbered rules renumbered to follow the last rule of ``before``."""
    numbers = itertools.count(max((int(n) for n in _RULE.findall(before)), default=0) + 1)
    return _RULE.sub(lambda match: f"{next(numbers)}. ", rules)
