"""The cut (reckoner.articles.numbers): how an article shows a stored number
(docs/guide/articles.md, issue 10)."""

from __future__ import annotations

import pytest

from reckoner.articles.numbers import cut


@pytest.mark.parametrize(
    ("stored", "shown"),
    [
        (0.0, "0"),
        (12, "12"),
        (7.1274298056155505, "7.127"),
        (6283.185307179586, "6283"),
        (-96.32309002009949, "-96.32"),
        (0.001, "0.001"),
        (0.0029484029484029483, "0.002948"),
        (266.6666666666667, "266.7"),
        (123456.7, "123457"),
        (0.00099999, "1e-3"),
        (0.00032397408207343413, "3.24e-4"),
        (1e-6, "1e-6"),
        (999999.99, "1e6"),
        (1e6, "1e6"),
        (30559123.0, "3.056e7"),
        (-2.5e-9, "-2.5e-9"),
        (298.15, "298.1"),
        (0.00004, "4e-5"),
        (-0.00001, "-1e-5"),
    ],
)
def test_every_number_is_cut_to_four_significant_figures_exponential_outside_1e_3_to_1e6(
    stored: float, shown: str
) -> None:
    assert cut(stored) == shown
