"""The article speed work keeps its promises (issue 10, Speed): a formula typeset through a
shared shape reads exactly as the core parsed it, and the collector pause leaves the cycle
collector as it found it."""

from __future__ import annotations

import gc
import threading

import pytest
from article_helpers import HAND_ID, hand_rows

from reckoner.articles.facts import ArticleRefusal, collect_facts
from reckoner.articles.mathtex import _shape_latex, clear_caches, formula_latex
from reckoner.articles.pause import collector_paused
from reckoner.articles.writers.template import render


@pytest.mark.parametrize(
    ("formula", "latex"),
    [
        ("2 * @a", r"2 \cdot a"),
        ("3 * @a", r"3 \cdot a"),
        ("2 * @a + 2", r"2 \cdot a + 2"),
        ("2 * @a + 3", r"2 \cdot a + 3"),
        ("2.50 / @R1", r"\frac{2.50}{R_{\mathrm{1}}}"),
        ("2e+5 * @a", r"2\times 10^{5} \cdot a"),
        ("@x2 * 2", r"x_{\mathrm{2}} \cdot 2"),
        ("$atan2(1, 2)", r"\operatorname{atan2}\left(1, 2\right)"),
        ("-2^2", r"-{2}^{2}"),
    ],
)
def test_issue10_formulas_sharing_a_shape_keep_their_own_numbers_and_slots(
    formula: str, latex: str
) -> None:
    """Issue 10: each formula is typeset from the core's tree; sharing a shape with another
    formula (other constants, other slots) never lends it the other's text."""
    clear_caches()
    formula_latex("7 * @zz")  # the shape of several cases above, typeset first
    assert formula_latex(formula) == latex
    assert formula_latex(formula) == _shape_latex(formula)


@pytest.mark.parametrize("formula", ["1" + "9" * 400 + " * @a", "2 * @a +", "1e * @a", "@5 * 2"])
def test_issue10_a_formula_the_parser_refuses_gets_no_latex_through_a_shape(formula: str) -> None:
    """Issue 10: a formula the core refuses is shown as written, even when its shape (with
    the numbers as placeholders) would parse."""
    clear_caches()
    assert formula_latex(formula) is None


@pytest.mark.parametrize("enabled", [True, False])
def test_issue10_the_collector_is_left_as_it_was_after_facts_and_render(enabled: bool) -> None:
    """Issue 10 (Speed): the pause around facts and the template restores the collector,
    also when the facts are refused."""
    was = gc.isenabled()
    try:
        gc.enable() if enabled else gc.disable()
        facts = collect_facts(HAND_ID, hand_rows(), is_open=False)
        render(facts, "en", "md")
        assert gc.isenabled() is enabled
        with pytest.raises(ArticleRefusal):
            collect_facts(HAND_ID, hand_rows(), is_open=True)
        assert gc.isenabled() is enabled
    finally:
        gc.enable() if was else gc.disable()


def test_issue10_overlapping_pauses_resume_the_collector_once_the_last_ends() -> None:
    """Issue 10 (Speed): jobs on threads overlap; the collector resumes when the last ends."""
    assert gc.isenabled()
    inside, release = threading.Event(), threading.Event()

    def hold() -> None:
        with collector_paused():
            inside.set()
            release.wait(5)

    worker = threading.Thread(target=hold)
    worker.start()
    inside.wait(5)
    with collector_paused():
        assert not gc.isenabled()
    assert not gc.isenabled()  # the worker still holds the pause
    release.set()
    worker.join(5)
    assert gc.isenabled()
