"""The remembered article settings (docs/guide/records.md and docs/guide/panel.md): their defaults
and how a change merges.

``generation.markdown {directory, language}``, ``generation.latex {directory, language,
compile}`` and ``generation.writer {kind, model, baseUrl}``. Each format saves on its own: a
change names one ``format`` (or the ``writer``) and touches nothing else. Absence means the
default, so only what someone chose is stored. No I/O here: the caller reads and writes
state.json through ``StateFile``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reckoner.articles.language import LANGUAGES
from reckoner.articles.writers.base import WRITERS

JsonObject = dict[str, Any]
_FORMAT_FIELDS = {
    "markdown": ("directory", "language"),
    "latex": ("directory", "language", "compile"),
}
# Each format's name and its file extension name it, in any case: one vocabulary for the
# settings, the generate endpoint and the command line.
_FORMAT_SPELLINGS = {"markdown": "markdown", "md": "markdown", "latex": "latex", "tex": "latex"}
_WRITER_FIELDS = ("kind", "model", "baseUrl")
MAX_TEXT = 4096
# What ``reckoner article`` takes from the remembered generation settings when its flag is
# left out: (setting, flag). The command's help is built from this, and a test runs each.
REMEMBERED = (
    ("the format's directory", "--out"),
    ("the format's language", "--language"),
    ("LaTeX's compile", "--compile/--no-compile"),
    ("the writer", "--writer"),
    ("the writer's model", "--model"),
    ("the writer's base URL", "--base-url"),
)


class GenerationSettingsError(ValueError):
    """A change that cannot be saved; the message is one sentence."""


def format_named(requested: object) -> str | None:
    """The format a spelling names (``markdown`` or ``md``, ``latex`` or ``tex``), or None."""
    return _FORMAT_SPELLINGS.get(requested.lower()) if isinstance(requested, str) else None


def generation_view(stored: Mapping[str, Any], default_directory: str) -> JsonObject:
    """The generation settings with every default filled in."""
    view: JsonObject = {}
    for format_name, fields in _FORMAT_FIELDS.items():
        chosen = stored.get(format_name)
        chosen = chosen if isinstance(chosen, dict) else {}
        directory = chosen.get("directory")
        language = chosen.get("language")
        entry: JsonObject = {
            "directory": directory
            if isinstance(directory, str) and directory
            else default_directory,
            "language": language if language in LANGUAGES else "auto",
        }
        if "compile" in fields:
            entry["compile"] = (
                chosen.get("compile") if isinstance(chosen.get("compile"), bool) else False
            )
        view[format_name] = entry
    writer = stored.get("writer")
    writer = writer if isinstance(writer, dict) else {}
    kind = writer.get("kind")
    view["writer"] = {
        "kind": kind if kind in WRITERS else "template",
        "model": writer.get("model") if isinstance(writer.get("model"), str) else None,
        "baseUrl": writer.get("baseUrl") if isinstance(writer.get("baseUrl"), str) else None,
    }
    return view


def merge_generation(stored: Mapping[str, Any], change: object) -> JsonObject | None:
    """The new ``generation`` subtree after one change; unknown keys stored before survive."""
    if change is None:
        return None
    if not isinstance(change, dict):
        raise GenerationSettingsError(
            'The generation section must be an object like {"format": "markdown", '
            '"directory": "/home/you/articles"}.'
        )
    merged: JsonObject = {key: value for key, value in stored.items()}
    if "writer" in change:
        if set(change) != {"writer"}:
            raise GenerationSettingsError(
                'Save the writer on its own, as {"writer": {...}}, not together with a format.'
            )
        merged["writer"] = _merge_writer(stored.get("writer"), change["writer"])
        if not merged["writer"]:
            del merged["writer"]
        return merged or None
    format_name = format_named(change.get("format"))
    if format_name is None:
        raise GenerationSettingsError(
            f"The generation change must name its format, markdown (md) or latex (tex) (or "
            f'save the writer as {{"writer": {{...}}}}), not {change.get("format")!r}.'
        )
    fields = _FORMAT_FIELDS[format_name]
    entry = stored.get(format_name)
    entry = dict(entry) if isinstance(entry, dict) else {}
    for key, value in change.items():
        if key == "format":
            continue
        if key not in fields:
            raise GenerationSettingsError(
                f"generation.{format_name} has no field {key!r}; its fields are: "
                f"{', '.join(fields)}."
            )
        if value is None:
            entry.pop(key, None)
        elif (
            (key == "directory" and isinstance(value, str) and 0 < len(value) <= MAX_TEXT)
            or (key == "language" and value in LANGUAGES)
            or (key == "compile" and isinstance(value, bool))
        ):
            entry[key] = value
        else:
            expected = {
                "directory": "a path",
                "language": "auto, en or zh-CN",
                "compile": "true or false",
            }[key]
            raise GenerationSettingsError(
                f"generation.{format_name}.{key} must be {expected} (or null for the default), "
                f"not {value!r}."[:300]
            )
    if entry:
        merged[format_name] = entry
    else:
        merged.pop(format_name, None)
    return merged or None


def _merge_writer(stored: object, change: object) -> JsonObject:
    entry = dict(stored) if isinstance(stored, dict) else {}
    if change is None:
        return {}
    if not isinstance(change, dict):
        raise GenerationSettingsError(
            'generation.writer must be an object like {"kind": "openai", "model": "gpt-4o-mini"}.'
        )
    for key, value in change.items():
        if key not in _WRITER_FIELDS:
            raise GenerationSettingsError(
                f"generation.writer has no field {key!r}; its fields are: "
                f"{', '.join(_WRITER_FIELDS)}. API keys come only from the environment."
            )
        if value is None or value == "":
            entry.pop(key, None)
        elif (
            (key == "kind" and value in WRITERS)
            or (
                key == "baseUrl"
                and isinstance(value, str)
                and value.startswith(("http://", "https://"))
                and len(value) <= MAX_TEXT
            )
            or (key == "model" and isinstance(value, str) and len(value) <= 200)
        ):
            entry[key] = value
        else:
            expected = {
                "kind": ", ".join(WRITERS),
                "model": "a model name",
                "baseUrl": "an http:// or https:// URL",
            }[key]
            raise GenerationSettingsError(
                f"generation.writer.{key} must be {expected} (or null), not {value!r}."[:300]
            )
    return entry
