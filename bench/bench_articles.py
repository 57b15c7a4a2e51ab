"""Article speed against a floor measured in the same run (issue 10).

(a) Facts plus the template article (Markdown) of a 10,000-row record made by the real
    engine, against the floor of reading that record file and parsing every line with the
    project's record reader (``parse_lines``: orjson, the standard library's reader for the
    rare line orjson refuses). Target: within 3x of the floor. The facts are pure (no I/O),
    so the issue's measure is the facts and the template over rows already read; the whole
    path a job takes (the archive's read, then both) is printed beside it, against the
    same floor.
(b) The number audit of a 20-page article: the template's LaTeX body of a record sized so
    that the compiled PDF has at least 20 pages (counted with pdfinfo when XeLaTeX is
    installed). Target: under 50 ms.

The records (``article_records.py``): ``agent`` (the default) is what an agent leaves over a
long session: sets with dims and units, evals of everyday formulas, gets, messages, author's
notes, refused calls, re-sets and deletions. ``--shapes`` gives every formula a structure of
its own, so nothing typeset can be shared between steps: the worst case. ``--record uniform``
is the earlier synthetic record (with ``--distinct-formulas`` / ``--distinct-shapes``).

The record is made by the real engine in a process of its own, so the measuring process
holds what an article job holds and no more. Sides are interleaved in every round and each
keeps its best round of process CPU time (a machine shared with other work disturbs it far
less than wall time); what a side returns is freed after its clock stops, on both sides
alike. Every article run typesets afresh.

``--breakdown`` adds where the article side's time goes: the record's rows by kind, a lean
pass over the same rows (a lower bound on any article pass, not an article), the
archive's read against the bare parse, the cut of every distinct stored number, and the
typesetting of the distinct formula texts (with, per formula typeset as it stands, its
scan, parse and LaTeX).

Run: ``uv run python bench/bench_articles.py [--rows N] [--rounds N] [--shapes]
[--record agent|uniform] [--distinct-formulas] [--distinct-shapes] [--breakdown]``.
"""

from __future__ import annotations

import argparse
import gc
import json
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from article_records import agent_record, uniform_record
from reckoner.articles import compiler
from reckoner.articles.audit import audit
from reckoner.articles.fact_model import Facts
from reckoner.articles.facts import collect_facts
from reckoner.articles.latex import shell
from reckoner.articles.mathtex import _shape_latex, clear_caches, formula_latex, to_latex
from reckoner.articles.numbers import cut_all
from reckoner.articles.writers.template import render
from reckoner.core.lexer import tokenize
from reckoner.core.notation import BY_NAME
from reckoner.core.parser import parse
from reckoner.storage.home import HomeLayout
from reckoner.storage.record_archive import RecordArchive
from reckoner.storage.record_format import parse_lines


def best_cpu(actions: list[Callable[[], Any]], rounds: int) -> list[float]:
    """Each action's best process CPU time in seconds, the actions run in turn every round
    so that a busy moment of the machine falls on every side alike."""
    best = [float("inf")] * len(actions)
    for _ in range(rounds):
        for index, action in enumerate(actions):
            gc.collect()
            start = time.process_time()
            kept = action()
            spent = time.process_time() - start
            del kept  # freed outside the clock
            best[index] = min(best[index], spent)
    return best


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


def lean_pass(rows: list[Mapping[str, Any]]) -> str:
    """A lower bound, not an article: the least any article pass does with these rows. Every
    accepted message's text, every step's formula, the real numbers it read and its result,
    each number cut once (``cut_all``), one line per message and two per step. No facts
    objects, typesetting, units, complex numbers, arrays or tables."""
    numbers: dict[float, None] = {}
    items: list[Any] = []
    for row in rows:
        if row.get("ok") is not True:
            continue
        tool, content = row["tool"], row["content"]
        if tool == "record_message":
            if not content.get("hide"):
                items.append(content["text"])
        elif tool == "set":
            value = content.get("value")
            if value and "num" in value:
                numbers.setdefault(value["num"], None)
        elif tool == "eval":
            reads = []
            for name, value in (content.get("vars") or {}).items():
                number = value.get("num")
                if number is not None:
                    numbers.setdefault(number, None)
                    reads.append((name, number))
            result = content["result"].get("num")
            if result is not None:
                numbers.setdefault(result, None)
            items.append((content["formula"], content["target"], reads, result))
    text = dict(zip(numbers, cut_all(list(numbers)), strict=True))
    lines = []
    for item in items:
        if type(item) is str:
            lines.append(item)
            continue
        formula, target, reads, result = item
        lines.append(f"$$\n{target} = {formula}\n$$")
        shown = ", ".join(f"${name} = {text[number]}$" for name, number in reads)
        lines.append(f"Substituting {shown} gives ${target} = {text.get(result)}$.")
    return "\n\n".join(lines)


def breakdown(
    rows: list[Mapping[str, Any]],
    facts: Facts,
    read: Callable[[], Any],
    floor_s: float,
    rounds: int,
) -> None:
    """Where the article side's time goes (``--breakdown``)."""
    kinds = Counter(str(row.get("tool")) if row.get("ok") is True else "refused" for row in rows)
    stored = sum(
        1 if row["tool"] == "set" else 1 + len(row["content"].get("vars") or {})
        for row in rows
        if row.get("ok") is True and row.get("tool") in ("set", "eval")
    )
    numbers = list(facts._sources.numbers)
    formulas = list(dict.fromkeys(step.formula for step in facts.steps))
    trees = [parse(formula) for formula in formulas]
    symbols = frozenset(BY_NAME)

    def typeset() -> Any:
        clear_caches()
        return [formula_latex(formula) for formula in formulas]

    lean_s, read_s, cut_s, typeset_s, scan_s, parse_s, latex_s = best_cpu(
        [
            lambda: lean_pass(rows),
            read,
            lambda: cut_all(numbers),
            typeset,
            lambda: [tokenize(formula, symbols) for formula in formulas],
            lambda: [parse(formula) for formula in formulas],
            lambda: [to_latex(tree) for tree in trees],
        ],
        rounds,
    )
    print("    rows: " + ", ".join(f"{count} {kind}" for kind, count in kinds.most_common()))
    print(
        f"    a lean pass (a bound, not an article: numbers cut, a line per message and two "
        f"per step, no typesetting, units or tables) {lean_s * 1000:.1f} ms, "
        f"{lean_s / floor_s:.2f}x the floor"
    )
    print(
        f"    archive read {read_s * 1000:.1f} ms (the bare parse {floor_s * 1000:.1f} ms); "
        f"{stored} stored values, {len(numbers)} distinct numbers cut in {cut_s * 1000:.1f} ms"
    )
    typeset()
    print(
        f"    {len(facts.steps)} steps, {len(formulas)} distinct formula texts typeset in "
        f"{typeset_s * 1000:.1f} ms ({_shape_latex.cache_info().currsize} parses)"
    )
    each = 1e6 / max(1, len(formulas))
    print(
        f"    a formula typeset as it stands, on average "
        f"({sum(map(len, formulas)) * each / 1e6:.0f} characters): scan {scan_s * each:.0f} us, "
        f"parse {(parse_s - scan_s) * each:.0f} us, LaTeX {latex_s * each:.0f} us"
    )


def make(home: Path, options: argparse.Namespace) -> tuple[str, str]:
    """The record to measure and the one whose LaTeX article is audited, made under ``home``."""
    if options.record == "agent":
        record_id = agent_record(home, options.rows, options.shapes)
    else:
        record_id = uniform_record(
            home, options.rows, options.distinct_formulas, options.distinct_shapes
        )
    return record_id, uniform_record(home.parent / "audit-home", options.audit_rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--audit-rows", type=int, default=600)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--record", choices=("agent", "uniform"), default="agent")
    parser.add_argument(
        "--shapes",
        action="store_true",
        help="agent record, worst case: every formula has a structure of its own",
    )
    parser.add_argument(
        "--distinct-formulas",
        action="store_true",
        help="uniform record: every formula carries its own literal",
    )
    parser.add_argument(
        "--distinct-shapes",
        action="store_true",
        help="uniform record: every formula has its own structure (twelve factors of one)",
    )
    parser.add_argument(
        "--breakdown", action="store_true", help="where the article side's time goes"
    )
    parser.add_argument("--make-into", help=argparse.SUPPRESS)  # the child that makes the record
    options = parser.parse_args()
    if options.make_into:
        print(json.dumps(make(Path(options.make_into), options)))
        return
    with tempfile.TemporaryDirectory() as root:
        home = Path(root) / "home"
        made = subprocess.run(
            [sys.executable, __file__, *sys.argv[1:], "--make-into", str(home)],
            capture_output=True,
            text=True,
            check=True,
        )
        record_id, audit_id = json.loads(made.stdout)
        if options.record == "agent":
            shapes = "agent, every formula structure distinct" if options.shapes else "agent"
        else:
            shapes = "uniform, " + (
                "every formula structure distinct"
                if options.distinct_shapes
                else "every formula distinct, 4 structures"
                if options.distinct_formulas
                else "4 formula structures"
            )
        archive = RecordArchive(HomeLayout(home))
        path = archive.layout.record_file(record_id)
        size = path.stat().st_size

        def floor() -> Any:
            return parse_lines(path.read_bytes())

        def article() -> Any:
            clear_caches()  # each run typesets every formula afresh
            view = archive.read(record_id)
            assert view is not None
            facts = collect_facts(view.id, view.rows, is_open=view.is_open)
            return view, facts, render(facts, "en", "md")

        view = archive.read(record_id)
        assert view is not None
        rows = view.rows

        def facts_only() -> Any:
            return collect_facts(record_id, rows, is_open=False)

        held = facts_only()

        def render_only() -> Any:
            clear_caches()
            return render(held, "en", "md")

        floor_s, article_s, facts_s, render_s = best_cpu(
            [floor, article, facts_only, render_only], options.rounds
        )
        body = render_only()
        print(
            f"(a) {len(rows)}-row record ({size / 1e6:.1f} MB, {shapes}), "
            f"best of {options.rounds} rounds, process CPU time:"
        )
        print(f"    read + parse (floor)        {floor_s * 1000:8.1f} ms")
        print(
            f"    facts + template            {(facts_s + render_s) * 1000:8.1f} ms   "
            f"ratio {(facts_s + render_s) / floor_s:.2f}x (target <= 3x), "
            f"{len(body) / 1e6:.1f} MB of Markdown"
        )
        print(f"      of which facts {facts_s * 1000:.1f} ms, template {render_s * 1000:.1f} ms")
        print(
            f"    the whole job's path: read + facts + template {article_s * 1000:.1f} ms, "
            f"{article_s / floor_s:.2f}x the floor"
        )

        if options.breakdown:
            breakdown(rows, held, lambda: archive.read(record_id), floor_s, options.rounds)

        audit_view = RecordArchive(HomeLayout(Path(root) / "audit-home")).read(audit_id)
        assert audit_view is not None
        facts: Facts = collect_facts(audit_view.id, audit_view.rows, is_open=False)
        tex_body = render(facts, "en", "tex")
        pages = pdf_pages(tex_body, "en")
        (audit_s,) = best_cpu([lambda: audit(tex_body, facts)], options.rounds)
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
