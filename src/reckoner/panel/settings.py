"""The settings view the panel serves (docs/guide/records.md and docs/guide/panel.md) and the checks
on a PUT body.

Only the sections that exist in this build are served; a later section (generation,
search) adds its own entry to ``SECTIONS``. Absence in state.json means the default, so a
stored subtree holds only what the user chose, and keys this build does not know survive.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reckoner.articles.settings import (
    GenerationSettingsError,
    generation_view,
    merge_generation,
)
from reckoner.lookup.policy import (
    FIELDS,
    Unusable,
    effective_value,
    layer_value,
    merge_override,
    resolve,
)
from reckoner.lookup.service import LAYER_PRESET, preset_layer
from reckoner.storage.state_file import StateFile

JsonObject = dict[str, Any]


class SettingsError(ValueError):
    """A PUT body the panel cannot use; the message is the one sentence shown to the user."""


@dataclass(frozen=True, slots=True)
class Section:
    """One remembered subtree: how it is shown with defaults, and how a change merges in."""

    view: Callable[[Mapping[str, Any]], JsonObject]
    merge: Callable[[Mapping[str, Any], object], JsonObject | None]


def _panel_view(stored: Mapping[str, Any]) -> JsonObject:
    show_all = stored.get("showAll")
    return {"showAll": show_all if isinstance(show_all, bool) else False}


_PANEL_FIELDS = ("showAll",)


def _panel_merge(stored: Mapping[str, Any], change: object) -> JsonObject | None:
    if change is None:
        # null clears the whole subtree: every field falls back to its default.
        return None
    if not isinstance(change, dict):
        raise SettingsError(
            f'The panel section must be an object like {{"showAll": true}}, '
            f"not {_describe(change)}."
        )
    merged: JsonObject = dict(stored)
    for key, value in change.items():
        if key not in _PANEL_FIELDS:
            raise SettingsError(
                f"The panel section has no field {key!r}; its fields are: "
                f"{', '.join(_PANEL_FIELDS)}."
            )
        if value is None:
            merged.pop(key, None)
        elif isinstance(value, bool):
            merged[key] = value
        else:
            raise SettingsError(
                f"panel.showAll must be true, false or null (back to the default), "
                f"not {_describe(value)}."
            )
    return merged or None


def _generation_view(stored: Mapping[str, Any]) -> JsonObject:
    return generation_view(stored, str(Path.home()))


def _generation_merge(stored: Mapping[str, Any], change: object) -> JsonObject | None:
    try:
        return merge_generation(stored, change)
    except GenerationSettingsError as refusal:
        raise SettingsError(str(refusal)) from None


def _search_view(stored: Mapping[str, Any]) -> JsonObject:
    """The search policy's three layers per key, with the value a lookup would use now."""
    preset = preset_layer()
    resolution = resolve(preset, stored)
    fields = [
        {
            "key": field.name,
            "meaning": field.meaning,
            "kind": field.kind,
            "choices": list(field.choices),
            "default": list(field.default) if isinstance(field.default, tuple) else field.default,
            "preset": layer_value(preset, field.name),
            "override": layer_value(stored, field.name),
            "effective": effective_value(resolution.policy, field.name),
            "from": resolution.source[field.name],
        }
        for field in FIELDS
    ]
    return {"preset": LAYER_PRESET, "fields": fields, "notes": list(resolution.notes)}


def _search_merge(stored: Mapping[str, Any], change: object) -> JsonObject | None:
    if change is None:
        # Reset all overrides: every key falls back to the preset and the defaults.
        return None
    if not isinstance(change, dict):
        raise SettingsError(
            f'The search section must be an object of policy keys like {{"maxResults": 8, '
            f'"enrich.pages": null}}, or null to reset every override, not {_describe(change)}.'
        )
    try:
        merged = merge_override(stored, change)
    except Unusable as problem:
        raise SettingsError(f"{problem}; nothing was saved.") from None
    return merged or None


SECTIONS: dict[str, Section] = {
    "panel": Section(_panel_view, _panel_merge),
    "generation": Section(_generation_view, _generation_merge),
    "search": Section(_search_view, _search_merge),
}


def _describe(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f"the string {value!r}" if len(value) <= 40 else "a long string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return f"the number {value!r}"


def settings_view(state: StateFile) -> JsonObject:
    """The whole settings view: each section with its defaults filled in, and the flag."""
    view: JsonObject = {
        name: section.view(state.subtree(name)) for name, section in SECTIONS.items()
    }
    view["restartRequired"] = state.restart_required()
    return view


def apply_settings(state: StateFile, body: object) -> list[str]:
    """Validate the whole body first, then write only the sections it names.

    Returns the names of the sections written. Nothing is written when any part fails.
    """
    if not isinstance(body, dict):
        raise SettingsError(
            f"The settings body must be a JSON object naming sections, like "
            f'{{"panel": {{"showAll": true}}}}, not {_describe(body)}.'
        )
    if not body:
        raise SettingsError(
            f"The settings body names no section; name at least one of: {', '.join(SECTIONS)}."
        )
    unknown = [key for key in body if key not in SECTIONS]
    if unknown:
        raise SettingsError(
            f"There is no settings section {unknown[0]!r}; the sections are: {', '.join(SECTIONS)}."
        )
    merged = {
        name: SECTIONS[name].merge(state.subtree(name), change) for name, change in body.items()
    }
    for name, subtree in merged.items():
        state.write_subtree(name, subtree)
    return list(merged)
