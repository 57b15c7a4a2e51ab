"""Article speed against a floor measured in the same run (issue 10).

(a) Facts plus the template article (Markdown) of a 10,000-row record made by the real
    engine, against the floor of reading and parsing that record file
    (``RecordArchive.read``). Target: within 3x of the floor.
(b) The number audit of a 20-page article: the template's LaTeX body of a record sized so
    that the compiled PDF has at least 20 pages (counted with pdfinfo when XeLaTeX is
    installed). Target: under 50 ms.

Run: ``uv run python bench/bench_articles.py [--rows N] [--repeat N] [--distinct-formulas]
[--distinct-shapes]``.
"""

from __future__ import annotations

import argparse
import gc
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from reckoner.articles import compiler
from reckoner.articles.audit import audit
from reckoner.articles.facts import Facts, collect_facts
from reckoner.articles.latex import shell
from reckoner.articles.mathtex import clear_caches
from reckoner.articles.writers.template import render
from reckoner.service import Engine
from reckoner.storage.home import HomeLayout
from reckoner.storage.record_store import RecordArchive

FORMULAS = (
    "@a{i} * @b{j} / (@a{i} + @b{j})",
    "$sqrt(@a{i}^2 + @b{j}^2)",
    "@a{i} * $exp(-@b{j} / @a{i})",
    "2 * $pi * @a{i} * @b{j}",
)


def make_record(home: Path, rows: int, distinct: bool = False, shapes: bool = False) -> str:
    """A closed record of ``rows`` rows: sets, evals of varied formulas, messages. With
    ``distinct`` every formula carries its own literal, so no two formulas are the same text
    (the typesetter still shares their shape: a plain number is a placeholder there). With
    ``shapes`` every formula also has its own structure, so each one is parsed afresh."""
    with Engine(home=str(home)) as engine:
        engine.call("record_start", {"title": f"A long solution of {rows} rows"})
        made = 1
        index = 0
        while made < rows - 1:
            engine.call("set", {"name": f"a{index}", "value": {"num": 4700 + index, "dim": "ohm"}})
            engine.call(
                "set", {"name": f"b{index}", "value": {"num": 0.5 + index / 7, "dim": "ohm"}}
            )
            engine.call("record_message", {"text": f"Step group {index}: combine a and b."})
            formula = FORMULAS[index % len(FORMULAS)].format(i=index, j=index)
            if distinct:
                formula = f"{index + 2} * ({formula})"
            if shapes:
                # The bits of the index pick one of two spellings of a factor of one.
                formula += "".join(
                    f" * (@a{index} / @a{index})"
                    if index >> bit & 1
                    else f" * @b{index} / @b{index}"
                    for bit in range(12)
                )
            engine.call("eval", {"formula": formula, "target": f"r{index}"})
            made += 4
            index += 1
        engine.call("record_end", {"text": "Every result is listed above."})
    archive = RecordArchive(HomeLayout(home))
    return archive.index().closed[0].id


def timed(action: Callable[[], Any], repeat: int) -> float:
    """The median wall time of ``action`` in seconds."""
    return interleaved([action], repeat)[0]


def interleaved(actions: list[Callable[[], Any]], repeat: int) -> list[float]:
    """The median wall time of each action, run in turn so that a busy moment of the
    machine falls on every side alike."""
    samples: list[list[float]] = [[] for _ in actions]
    for _ in range(repeat):
        for index, action in enumerate(actions):
            gc.collect()
            start = time.perf_counter()
            action()
            samples[index].append(time.perf_counter() - start)
    return [statistics.median(times) for times in samples]


def pdf_pages(body: str, language: str) -> int | None:
    if shutil.which("xelatex") is None or shutil.which("pdfinfo") is None:
        return None
    with tempfile.TemporaryDirectory() as folder:
        tex = Path(folder) / "pages.tex"
        tex.write_text(shell(body, language), encoding="utf-8")
        outcome = compiler.compile_pdf(tex, lambda: False)
        if not outcome.ok or outcome.pdf is None:
            return None
        info = subprocess.run(["pdfinfo", str(outcome.pdf)], capture_output=True, text=True)
    for line in info.stdout.splitlines():
        if line.startswith("Pages:"):
            return int(line.split()[1])
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--audit-rows", type=int, default=600)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument(
        "--distinct-formulas",
        action="store_true",
        help="the worst case: no two steps share a formula shape, so nothing is reused",
    )
    parser.add_argument(
        "--distinct-shapes",
        action="store_true",
        help="the worst case: no two steps share a formula structure, so each is parsed afresh",
    )
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as root:
        home = Path(root) / "home"
        record_id = make_record(
            home, options.rows, options.distinct_formulas, options.distinct_shapes
        )
        archive = RecordArchive(HomeLayout(home))
        size = archive.layout.record_file(record_id).stat().st_size

        def floor() -> Any:
            return archive.read(record_id)

        def article() -> str:
            clear_caches()  # each run typesets every formula afresh
            view = archive.read(record_id)
            assert view is not None
            facts = collect_facts(view.id, view.rows, is_open=view.is_open)
            return render(facts, "en", "md")

        floor_s, article_s = interleaved([floor, article], options.repeat)
        body = article()
        if options.distinct_shapes:
            shapes = "every formula structure distinct"
        elif options.distinct_formulas:
            shapes = "every formula distinct, 4 structures"
        else:
            shapes = "4 formula structures"
        print(
            f"(a) {options.rows}-row record ({size / 1e6:.1f} MB, {shapes}), "
            f"median of {options.repeat}:"
        )
        print(f"    read + parse (floor)        {floor_s * 1000:8.1f} ms")
        print(
            f"    facts + template article    {article_s * 1000:8.1f} ms   "
            f"ratio {article_s / floor_s:.2f}x (target <= 3x), {len(body) / 1e6:.1f} MB of Markdown"
        )

        audit_home = Path(root) / "audit-home"
        audit_id = make_record(audit_home, options.audit_rows)
        view = RecordArchive(HomeLayout(audit_home)).read(audit_id)
        assert view is not None
        facts: Facts = collect_facts(view.id, view.rows, is_open=False)
        tex_body = render(facts, "en", "tex")
        pages = pdf_pages(tex_body, "en")
        audit_s = timed(lambda: audit(tex_body, facts), options.repeat)
        findings = audit(tex_body, facts)
        shown = f"{pages} PDF pages" if pages is not None else "pages not counted (no XeLaTeX)"
        print(
            f"(b) audit of a {options.audit_rows}-row record's LaTeX article "
            f"({len(tex_body) / 1000:.0f} kB, {shown}):"
        )
        print(
            f"    audit                       {audit_s * 1000:8.1f} ms   "
            f"(target < 50 ms), {len(findings)} unmatched"
        )


if __name__ == "__main__":
    main()
