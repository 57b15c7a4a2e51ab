"""Issue 8, "Bounded memory": the compiled-formula cache is bounded by the size of what it
holds, not by its entry count, so a flood of distinct maximum-length formulas keeps the
process under a stated ceiling.

Each run happens in a fresh interpreter, so the peak resident size it reports
(``ru_maxrss``) belongs to the formulas alone, not to whatever this test process did before.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from reckoner.contract.limits import MAX_FORMULA_LENGTH
from reckoner.core.shapes import PROGRAM_CACHE_CHARACTERS, SHAPE_CACHE_ENTRIES

# How the ceiling was chosen: the interpreter with numpy and reckoner imported peaks near
# 60 MB on this project's machines, and the bounded cache holds at most 250,000 characters
# of formula text (about 40 MB of compiled closures at the measured 150 bytes a character);
# a run of 150 of these formulas peaked at 67 MB. The shape cache of issue 27 holds its
# own bodies under the same character bound, so a formula sent in two spellings can pin
# two: at most about 80 MB of closures in all (150 formulas in two spellings each peaked at
# 89 MB, against 65 MB in one). The old count-bound cache (1,024 entries,
# about 1.1 MB each for these formulas) peaked at 225 MB on the same 150 and reached 1.7 GB
# on the flood; 200 MB sits between, with room for allocator slack.
RSS_CEILING_MB = 200

_FLOOD = """
import json, sys
from reckoner.core import api

count, length, spellings = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
for i in range(count):
    terms, size, j = [], 0, 0
    while True:
        # Each formula its own literals, so its own shape: slot names alone would not do.
        term = f"@s{i}x{j}*{j % 97 + 2 + i}"
        if size + len(term) + 1 > length:
            break
        terms.append(term)
        size += len(term) + 1
        j += 1
    text = "+".join(terms)
    # A second spelling (a trailing space) compiles the shape's shared body besides the
    # first spelling's own: the most a formula can pin.
    for spelled in [text, text + " "][:spellings]:
        program = api.compile_formula(spelled)
        assert not isinstance(program, api.Failure), program
# VmHWM, not ru_maxrss: Linux keeps ru_maxrss across exec, so it would report the test
# runner's own peak (the forked parent's pages) instead of this interpreter's.
with open("/proc/self/status") as status:
    hwm = next(line for line in status if line.startswith("VmHWM:"))
peak_mb = int(hwm.split()[1]) / 1024
print(json.dumps({"peak_mb": peak_mb, "cached": len(api._FORMULAS.texts.programs),
                  "held": api._FORMULAS.texts.held, "shapes": len(api._FORMULAS.shapes.programs),
                  "shapes_held": api._FORMULAS.shapes.held,
                  "bodies": sum(shape is not None
                                for shape in api._FORMULAS.shapes.programs.values())}))
"""


def _flood(count: int, spellings: int) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-c", _FLOOD, str(count), str(MAX_FORMULA_LENGTH), str(spellings)],
        capture_output=True,
        text=True,
        check=True,
        timeout=3600,
    )
    result: dict[str, float] = json.loads(done.stdout)
    return result


def _check(count: int, spellings: int = 1) -> None:
    result = _flood(count, spellings)
    assert result["peak_mb"] < RSS_CEILING_MB, result
    # The cache kept only as much text as its bound allows, far fewer than it saw.
    assert result["held"] <= PROGRAM_CACHE_CHARACTERS == 250_000, result
    assert 0 < result["cached"] < count, result
    # The shape cache (issue 27) is bounded the same way: these are all distinct shapes,
    # each weighed by the text it was compiled from (its key writes a slot as one '@', so a
    # bound on keys would let twice as many bodies in).
    assert result["shapes_held"] <= PROGRAM_CACHE_CHARACTERS, result
    assert 0 < result["shapes"] <= min(count, SHAPE_CACHE_ENTRIES), result
    room = PROGRAM_CACHE_CHARACTERS // (MAX_FORMULA_LENGTH - 20)
    assert result["bodies"] <= room, result
    assert (result["bodies"] > 0) is (spellings == 2), result  # a body from a second spelling


def test_distinct_maximum_length_formulas_stay_under_the_memory_ceiling() -> None:
    """Issue 8: 150 distinct 10,000-character formulas (the old cache kept all of them).
    Spec: docs/reference/limits.md (issue 8)."""
    _check(150)


def test_formulas_sent_in_two_spellings_stay_under_the_memory_ceiling() -> None:
    """Issue 27's shape cache: each of 50 distinct maximum-length formulas sent twice, in
    two spellings, so each pins its plain program and its shape's shared body; both caches
    (room for about 24 such formulas each) stay within their bounds and the process under
    the same ceiling. Spec: docs/reference/limits.md (issue 8), docs/decisions/eval-speed.md."""
    _check(50, spellings=2)


@pytest.mark.slow
@pytest.mark.timeout(3_600)
def test_ten_thousand_maximum_length_formulas_stay_under_the_memory_ceiling() -> None:
    """Issue 8: the full flood, 10,000 distinct maximum-length formulas: the long variant of
    test_distinct_maximum_length_formulas_stay_under_the_memory_ceiling, which runs by
    default. Spec: docs/reference/limits.md (issue 8)."""
    _check(10_000)
