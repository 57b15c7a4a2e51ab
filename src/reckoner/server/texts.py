"""The model-facing texts shipped inside the package: the two skills and the presets' persona."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import resources


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

PRESETS: tuple[str, ...] = ("reckoner", "reckoner-with-compute")
"""The presets `serve --preset` accepts; only ``reckoner-with-compute`` serves compute."""


@cache
def skill_text(skill: Skill) -> str:
    """The Markdown of one skill."""
    return (resources.files("reckoner.server") / "skills" / skill.file).read_text("utf-8")


@cache
def persona(preset: str = "reckoner") -> str:
    """The server instructions of a preset: the pure rules, then what the preset adds."""
    if preset not in PRESETS:
        raise ValueError(f"unknown preset {preset!r}; the presets are: {', '.join(PRESETS)}")
    folder = resources.files("reckoner.server") / "presets"
    pure = (folder / "reckoner.md").read_text("utf-8")
    if preset == "reckoner":
        return pure
    return pure.rstrip("\n") + "\n\n" + (folder / f"{preset}.md").read_text("utf-8")
