"""Issue 27: what a shape-cache hit costs, and how much of it is the key.

A formula text never seen before, whose token shape is known (`@V/@R` respaced), is served
from the shape cache (reckoner.core.shapes): its key (the slot references found and written
as '@', the whitespace taken out), one lookup, a check of where its whitespace stands, and a
program object. Measured in one run, best of the rounds, each against the others:
- the whole hit through `compile_formula`;
- the key alone (`key_of`);
- the whitespace split alone (`"".join(text.split())`, the whole key before slot names
  became parameters), the reference the key's extra cost is read against.

Run: ``uv run python bench/bench_shape_key.py [--rounds N]``.
"""

from __future__ import annotations

import argparse
import timeit
from collections.abc import Callable

from reckoner.core import api, shapes

FORMULA = "@V/@R"
RESPACED = " @V /\n@R \t\n"


def _best_us(action: Callable[[], object], rounds: int, number: int = 100_000) -> float:
    return min(timeit.repeat(action, number=number, repeat=rounds)) / number * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=7)
    options = parser.parse_args()
    # A shape is made at its second spelling; the respaced text itself is then a shape hit
    # every time (a shape hit is not kept in the exact-text cache).
    api.compile_formula(FORMULA)
    api.compile_formula(FORMULA + " ")
    assert shapes.shape_of(RESPACED) == shapes.shape_of(FORMULA)
    assert api._CACHED(RESPACED) is None
    hit = _best_us(lambda: api.compile_formula(RESPACED), options.rounds)
    key = _best_us(lambda: shapes.key_of(RESPACED), options.rounds)
    split = _best_us(lambda: "".join(RESPACED.split()), options.rounds)
    print(f"shape hit through compile_formula ({RESPACED!r}): {hit:5.2f} us")
    for label, cost in (("the key alone (key_of)", key), ("the whitespace split alone", split)):
        print(f"{label + ':':<45}{cost:5.2f} us ({cost / hit:.0%} of the hit)")


if __name__ == "__main__":
    main()
