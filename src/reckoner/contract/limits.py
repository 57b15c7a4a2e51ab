"""The ceilings that keep one call from hanging or exhausting memory.

Each limit is named once here, and every message that enforces it quotes the constant.
"""

MAX_FORMULA_LENGTH = 10_000
"""Characters in one formula."""


# -- the pitfalls memory (issue 13): fields are cut to these, never refused -----------------

MAX_PITFALL_LINE = 200
"""Characters in a lesson's title or area."""

MAX_PITFALL_BODY = 8_000
"""Characters in a lesson's symptom, cause, solution or evidence, and in one note."""

MAX_PITFALL_TAG = 24
"""Characters in one tag."""

MAX_PITFALL_TAGS = 16
"""Tags on one lesson."""

MAX_PITFALL_NOTES = 50
"""Notes kept on one lesson; the oldest go first."""

MAX_PITFALL_RESULTS = 20
"""Lessons one search or list answers."""

MAX_NESTING_DEPTH = 200
"""Levels of nesting (parentheses, arguments, unary signs, powers) in one formula."""

MAX_BOUNDED_STEPS = 1_000_000
"""Steps of a bounded form, multiplied by the ranges of the bounded forms enclosing it."""

MAX_CALL_WORK = 500_000
"""Work units one evaluation may spend, counted before each piece of work runs: one unit is
one scalar handled one at a time (an operator or function on a scalar or on one element of a
list array, a node of a bounded body per step), while numpy's whole-array arithmetic handles
256 elements per unit and a mapped math function 8; reading an array slot pays for writing
it into the trace row. So no call runs for seconds."""

MAX_ARRAY_ELEMENTS = 1_000_000
"""Scalar elements in one array value, stored or produced."""

MAX_VALUE_DEPTH = 200
"""Levels of nesting (arrays in arrays, objects in objects) in one tagged value."""

MAX_DIMENSION_EXPONENT = 1_000_000
"""Largest magnitude of one exponent of a stored vector (`@m^1e300` has no storable vector)."""

MAX_UNIT_LENGTH = 100
"""Characters in one unit expression (`unit` on set, get and eval's read)."""

MAX_READINGS = 4
"""Readings in one `read` list on set or eval (issue 14): one value in up to four units or
forms at once; more are read with get."""

MAX_TEXT_LENGTH = 32
"""Characters in a reading's `text` (issue 27) given back to `set`: 17 significant digits,
a sign, a point, leading zeros and an exponent fit."""

MAX_QUESTION_LENGTH = 500
"""Characters in one `search` question: one sentence asking for one fact."""

MAX_UNIT_POWER = 20
"""Largest magnitude of one whole power in a unit expression (`m^3`, `s^-2`)."""

MIN_COMPUTE_TIMEOUT_MS = 1000
"""The shortest time limit a compute run may ask for (issue 12)."""

MAX_COMPUTE_SCRIPT_LENGTH = 1_000_000
"""Characters in one compute script or expression; a longer one goes in a project file."""

MAX_STREAM_BYTES = 16 * 1024 * 1024
"""Bytes a child process may write to each of stdout and stderr before its whole tree is
stopped (issue 21); compute's ``maxOutputBytes`` setting changes it for runs."""

MIN_STREAM_CAP_BYTES = 1024
"""The smallest per-stream output cap a compute setting may ask for."""
