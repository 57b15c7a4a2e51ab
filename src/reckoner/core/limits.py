"""The ceilings that keep one call from hanging or exhausting memory.

Each limit is named once here, and every message that enforces it quotes the constant.
"""

MAX_FORMULA_LENGTH = 10_000
"""Characters in one formula."""

MAX_NESTING_DEPTH = 200
"""Levels of nesting (parentheses, arguments, unary signs, powers) in one formula."""

MAX_BOUNDED_STEPS = 1_000_000
"""Steps of a bounded form, multiplied by the ranges of the bounded forms enclosing it."""

MAX_BOUNDED_WORK = 20_000_000
"""Steps of a bounded form (enclosing ranges included) times the operations of its body,
for a body that runs step by step; array operations weigh their element count."""

MAX_ARRAY_ELEMENTS = 1_000_000
"""Scalar elements in one array value, stored or produced."""

MAX_VALUE_DEPTH = 200
"""Levels of nesting (arrays in arrays, objects in objects) in one tagged value."""

MAX_DIMENSION_EXPONENT = 1_000_000
"""Largest magnitude of one exponent of a stored vector (`@m^1e300` has no storable vector)."""

MAX_UNIT_LENGTH = 100
"""Characters in one unit expression (`unit` on set, get and eval's read)."""

MAX_UNIT_POWER = 20
"""Largest magnitude of one whole power in a unit expression (`m^3`, `s^-2`)."""

MIN_COMPUTE_TIMEOUT_MS = 1000
"""The shortest time limit a compute run may ask for (issue 12)."""

MAX_COMPUTE_SCRIPT_LENGTH = 1_000_000
"""Characters in one compute script or expression; a longer one goes in a project file."""
