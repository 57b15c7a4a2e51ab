"""The engine's argument parsing: names, texts, reading options, extra keys, preset arguments.

Each check raises the one `Refusal` naming what was wrong, the limit and the fix; the order
of the checks is part of the contract (an argument's own refusal before an extra key's).
"""

from __future__ import annotations

from functools import partial
from typing import Any

from reckoner import wire
from reckoner.contract.checks import describe_json, envelope_problem, no_such_argument
from reckoner.contract.engine import READ_KEYS
from reckoner.contract.engine import TOOLS as CONTRACT
from reckoner.contract.limits import MAX_READINGS
from reckoner.contract.refusal import Refusal
from reckoner.contract.registry import PRESET_TOOL_BY_NAME
from reckoner.core import ErrorCode, Failure
from reckoner.core.api import check_name, guarded
from reckoner.core.rendering import RenderOptions, builds_many_objects, render
from reckoner.core.values import Value
from reckoner.host.collector import collector_paused
from reckoner.units import resolve_unit

# Derived from the one contract (reckoner.contract): each tool's argument keys, in order.
TOOLS: dict[str, tuple[str, ...]] = {tool.name: tool.keys for tool in CONTRACT}
_ALLOWED_KEYS = {tool: frozenset(keys) for tool, keys in TOOLS.items()}
EVAL_KEYS = _ALLOWED_KEYS["eval"]


def refused(failure: Failure) -> Refusal:
    """A core failure (data) as the refusal a call raises."""
    return Refusal(failure.code, failure.message)


def settled(result: Any) -> Any:
    """Raise a core Failure as a refusal; pass a value through."""
    if isinstance(result, Failure):
        raise refused(result)
    return result


def name_arg(args: dict[str, Any], key: str, role: str) -> str:
    raw = args.get(key)
    if raw is None:
        # Missing and null alike are a missing argument; only a non-string is an identifier.
        raise Refusal(
            ErrorCode.INVALID_ARGS,
            f'{role} is missing; pass the bare slot name as a string, such as "R1"',
        )
    failure = check_name(raw, role)
    if failure is not None:
        raise refused(failure)
    name: str = raw
    return name


def text_arg(args: dict[str, Any], key: str, tool: str) -> str:
    """A required text argument: a string holding more than whitespace."""
    raw = args.get(key)
    if type(raw) is not str or not raw.strip():
        what = "missing" if raw is None else describe_json(raw)
        raise Refusal(
            ErrorCode.INVALID_ARGS,
            f"{tool}'s {key} must be a non-empty string, but it is {what}"
            + ("" if type(raw) is not str else " (only whitespace)")
            + "; write a short sentence",
        )
    return raw


def no_extra(args: dict[str, Any], tool: str) -> None:
    if args.keys() <= _ALLOWED_KEYS[tool]:  # the common case, decided in C
        return
    allowed = TOOLS[tool]
    extra = next(key for key in args if key not in allowed)
    raise Refusal(ErrorCode.INVALID_ARGS, no_such_argument(tool, allowed, extra))


# Options read often (a get with no options, or with dim "degC") are checked once: the key
# holds only None, strings and numbers, each beside its type (2**70 digits is accepted, the
# equal float 2.0**70 refused), and a RenderOptions is never changed once built.
_KNOWN_OPTIONS: dict[tuple[Any, ...], RenderOptions] = {}
_KNOWN_OPTIONS_LIMIT = 512
_HASHABLE_OPTION = (type(None), str, int, float)


def read_options(source: dict[str, Any], where: str) -> RenderOptions:
    """get's reading options (form, digits, dim, unit), checked in that order."""
    form, digits, dim, unit = (source.get(key) for key in READ_KEYS)
    key = (where, type(form), form, type(digits), digits, type(dim), dim)
    known = (
        unit is None
        and type(form) in _HASHABLE_OPTION
        and type(digits) in _HASHABLE_OPTION
        and type(dim) in _HASHABLE_OPTION
    )
    if known:
        found = _KNOWN_OPTIONS.get(key)
        if found is not None:
            return found

    def build() -> RenderOptions:
        options = RenderOptions(form, digits, dim, None, where)
        if unit is None:
            return options
        return RenderOptions(form, digits, dim, resolve_unit(unit, f"{where} unit"), where)

    built: RenderOptions = settled(guarded(build))
    if known and len(_KNOWN_OPTIONS) < _KNOWN_OPTIONS_LIMIT:
        _KNOWN_OPTIONS[key] = built
    return built


# What the `read` of set and eval asked for: the options of each reading, in order, and
# whether they came as a list (a single object answers a single value, as before lists).
Readings = tuple[tuple[RenderOptions, ...], bool]
NOT_READ = object()  # no read asked for (a reading may itself be any JSON value)
_READ_EXAMPLE = '{"digits": 4, "unit": "mW"}'
_READ_WHERE = {"set": "set's read", "eval": "eval's read"}  # named once, not per call


def readings(read: Any, tool: str) -> Readings:
    """set's and eval's read: an object of get's options, or a list of 1 to MAX_READINGS."""
    where = _READ_WHERE[tool]
    if isinstance(read, dict):
        return (read_options(_read_object(read, where), where),), False
    if not isinstance(read, list):
        raise Refusal(
            ErrorCode.INVALID_ARGS,
            f"{where} must be an object of get's options ({', '.join(READ_KEYS)}), such as "
            f"{_READ_EXAMPLE}, or a list of 1 to {MAX_READINGS} of them (MAX_READINGS), but it "
            f"is {describe_json(read)}",
        )
    if not read or len(read) > MAX_READINGS:
        count = "an empty list" if not read else f"a list of {len(read)} readings"
        raise Refusal(
            ErrorCode.INVALID_ARGS,
            f"{where} is {count}, but a list holds 1 to {MAX_READINGS} readings "
            f"(MAX_READINGS); "
            + (
                f"give at least one object of get's options, such as [{_READ_EXAMPLE}], or "
                f"leave read out"
                if not read
                else f"read the first {MAX_READINGS} here and the rest with get"
            ),
        )
    options = []
    for index, item in enumerate(read):
        at = f"{where}[{index}]"
        options.append(read_options(_read_object(item, at), at))
    return tuple(options), True


def _read_object(read: Any, where: str) -> dict[str, Any]:
    """One reading: an object of get's options and nothing else."""
    if not isinstance(read, dict):
        raise Refusal(
            ErrorCode.INVALID_ARGS,
            f"{where} must be an object of get's options ({', '.join(READ_KEYS)}), such as "
            f"{_READ_EXAMPLE}, but it is {describe_json(read)}",
        )
    extra = [key for key in read if key not in READ_KEYS]
    if extra:
        raise Refusal(
            ErrorCode.INVALID_ARGS,
            f"{where} has no option {str(extra[0])[:40]!r}; its options are "
            f"{', '.join(READ_KEYS)}, as for get",
        )
    return read


def rendered(value: Value, options: RenderOptions) -> Any:
    """The value rendered as a reading; the cycle collector waits while a large array's
    elements are built (`builds_many_objects`), since none of them is in a cycle."""
    if not builds_many_objects(value):
        return render(value, options)
    with collector_paused():
        return render(value, options)


def reading(value: Any, asked: Readings, tool: str) -> Any:
    """The value as get renders it with each reading's options: one, or a list in order. A
    listed reading that cannot be rendered is named by its place, so the model knows which
    of its units to change."""
    options, listed = asked
    if not listed:
        return settled(guarded(partial(rendered, value, options[0])))
    shown = []
    for index, each in enumerate(options):
        outcome = guarded(partial(rendered, value, each))
        if isinstance(outcome, Failure):
            where = f"{_READ_WHERE[tool]}[{index}]"
            raise Refusal(outcome.code, f"{where}: {outcome.message}")
        shown.append(outcome)
    return shown


def fact_args(tool: str, args: object) -> dict[str, Any]:
    """A preset tool's arguments checked against the contract: keys, required text, length."""
    spec = PRESET_TOOL_BY_NAME[tool]
    problem = envelope_problem(spec, args)
    if problem is not None:
        raise Refusal(ErrorCode.INVALID_ARGS, problem)
    assert isinstance(args, dict)
    for argument in spec.arguments:
        if argument.shape.get("type") != "string" or not argument.required:
            continue
        text = text_arg(args, argument.key, tool)
        limit = argument.shape.get("maxLength")
        if isinstance(limit, int) and len(text) > limit:
            raise Refusal(
                ErrorCode.INVALID_ARGS,
                f"{tool}'s {argument.key} is {len(text)} characters, over the limit of {limit}; "
                f"ask for one fact in one sentence",
            )
    return args


def units_written(raw: Any) -> Any:
    """The units a tagged value was written in, as the row keeps them (None when none)."""
    if not isinstance(raw, dict):
        return None
    fields = raw.get("object")
    if isinstance(fields, dict):
        written = {name: units_written(field) for name, field in fields.items()}
        kept = {name: unit for name, unit in written.items() if unit is not None}
        return kept or None
    unit = raw.get("unit")
    return unit if type(unit) is str else None


def unstorable_key(args: dict[str, Any]) -> str:
    """The argument whose text the record file could not hold, for the refusal."""
    for key, value in args.items():
        if type(value) is str and wire.holds_split_pair(value):
            return str(key)[:40]
    return "row"
