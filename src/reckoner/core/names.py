"""The name rule shared by slots, targets, object fields and bound variables
(docs/guide/formulas.md)."""

import re

NAME = "[A-Za-z_][A-Za-z0-9_]*"
NAME_PATTERN = re.compile(NAME + r"\Z")


def is_name(candidate: object) -> bool:
    """True for an ASCII identifier: a letter or underscore, then letters, digits, underscores."""
    return type(candidate) is str and NAME_PATTERN.match(candidate) is not None
