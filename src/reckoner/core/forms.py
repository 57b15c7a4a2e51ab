"""The JSON shapes of a value at the tool boundary, one alias per payload kind.

A tool's argument arrives as decoded JSON whose shape is not yet checked (`JSON`); what the
engine writes back has precise shapes: a number, a complex pair, an array of elements, the
`dim` spelling and the tagged object that holds them.
"""

from __future__ import annotations

from typing import Any, TypeAlias

JSON: TypeAlias = Any
"""Decoded JSON not yet checked: the shape is what the parsing decides."""

JSONNumber: TypeAlias = int | float
"""A number as the engine writes it: a whole double below 2**63 as an int."""

ComplexForm: TypeAlias = dict[str, JSONNumber]
"""A complex element or reading: {re, im} or {mag, ang}."""

ElementForm: TypeAlias = "JSONNumber | ComplexForm | list[ElementForm]"
"""One element of an array as written: a bare number, a complex pair or a nested array."""

ArrayForm: TypeAlias = list[ElementForm]
"""The elements of an `{array}` value."""

DimForm: TypeAlias = str | list[int]
"""`dim` as written: a table name or the 7 integers."""

Tagged: TypeAlias = dict[str, JSON]
"""A tagged value: one tag ({num}, {re, im}, {mag, ang}, {array}, {object}) with its dim,
unit and text; its fields mix the kinds above (and a row's numpy array), so they stay JSON."""

TextForm: TypeAlias = "str | list[TextForm]"
"""A reading's quotable `text`: one string for a number or a complex, and for an array a
string per element in the array's own nesting."""
