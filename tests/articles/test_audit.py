"""The number audit (reckoner.articles.audit; issue 10): a number in an article matches a
fact rounded to the digits shown, is found by line and column, and never crashes the audit."""

from __future__ import annotations

import pytest
from article_helpers import HAND_ID, hand_facts, hand_rows, row

from reckoner.articles.audit import audit
from reckoner.articles.facts import collect_facts


@pytest.mark.parametrize(
    ("shown", "clean"),
    [
        ("I = 0.0025 A", True),  # 0.0025466 rounded to the four decimals shown
        ("I = 0.00255 A", True),
        ("I = 2.5466e-3 A", True),
        ("I = 2.55 \\times 10^{-3} A", True),
        ("I = 2.55 × 10⁻³ A", True),
        ("P = 30559.12 W", True),
        ("P = 3.06e4 W", True),
        ("I = 0.0026 A", False),  # wrong in the last digit shown
        ("P = 31000 W", False),
        ("the year 1984", False),  # invented
        ("R_{1} and R1 and x_{12}", True),  # names, not numbers
        ("rated at 10,000 hours", False),  # one number, not 10 and 000
    ],
)
def test_audit_matches_a_fact_rounded_to_the_digits_shown(shown: str, clean: bool) -> None:
    """Spec: docs/guide/articles.md (article generation)."""
    assert (audit(shown, hand_facts()) == []) is clean


def test_audit_reports_line_and_column() -> None:
    """Spec: docs/guide/articles.md (article generation)."""
    found = audit("ok 12 V\nthen 4711.5 ohm", hand_facts())
    assert [(f.text, f.line, f.column) for f in found] == [("4711.5", 2, 6)]


@pytest.mark.parametrize(
    "shown",
    ["run 0001e3000000", "1e999999999", "2.5e-99999999", "7 × 10⁻⁹⁹⁹⁹⁹⁹⁹⁹", "1e" + "9" * 5000],
)
def test_audit_reads_a_number_no_double_reaches_and_flags_it(shown: str) -> None:
    """The audit holds every number against the facts; text that reads as a number beyond
    any double (a hash, a run id, a typo) is one more unmatched number, never a crash.
    Spec: docs/guide/articles.md (article generation)."""
    found = audit(shown, hand_facts())
    assert [f.text for f in found] == [shown.removeprefix("run ")]


def test_audit_accepts_a_run_id_that_reads_as_a_huge_number_when_the_record_holds_it() -> None:
    """A compute row's run id is a fact of the record, whatever it reads as.
    Spec: docs/guide/articles.md (article generation)."""
    rows = [
        *hand_rows()[:-1],
        row(
            90,
            "compute",
            {
                "engine": "python",
                "version": "3.11.7",
                "runId": "reckoner-with-compute-p-0000e3000000",
                "attempt": 1,
                "exitCode": 0,
                "timedOut": False,
                "receipt": "Computation/reckoner-with-compute-p-0000e3000000/receipt.json",
                "stdoutTail": "det = -2",
            },
        ),
        hand_rows()[-1],
    ]
    facts = collect_facts(HAND_ID, rows, is_open=False)
    assert audit("its run reckoner-with-compute-p-0000e3000000 printed det = -2", facts) == []
