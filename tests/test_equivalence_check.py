"""The restructure's equivalence check (scripts/check_equivalence.py): what its normaliser
hides and keeps, and that only an allowed difference passes
(docs/decisions/restructure-equivalence.md)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest


@pytest.fixture
def scripts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "scripts"))


def test_the_normaliser_hides_this_runs_clock_and_paths_but_keeps_other_numbers(
    scripts: None,
) -> None:
    from equivalence_side import Normaliser

    norm = Normaliser({"/tmp/eq-b-xyz": "<WORK>"})
    now = int(time.time() * 1000)
    text = (
        f'{{"at":{now},"record":"{now}","durationMs":12.5,"num":1796291690976000}}'
        f" /tmp/eq-b-xyz/home reckoner-{str(now)[:8]}.md 2026-12-03T09:54:50.865Z"
        " 4700 1234567890123 http://127.0.0.1:41341"
    )
    assert norm(text) == (
        '{"at":<ms>,"record":"<ms>","durationMs":<duration>,"num":1796291690976000}'
        " <WORK>/home reckoner-<ms8>.md <time>"
        " 4700 1234567890123 http://127.0.0.1:<port>"
    )


def test_a_pitfall_id_keeps_one_number_across_every_text_of_a_run(scripts: None) -> None:
    from equivalence_side import Normaliser

    norm = Normaliser({})
    first, second = "p-20261203-095450-ab12", "p-20261203-095451-zz99"
    assert norm(f"{first} {second}") == "<pitfall-1> <pitfall-2>"
    assert norm(f"merged {second} into {first}") == "merged <pitfall-2> into <pitfall-1>"


def test_a_difference_outside_the_allow_list_is_counted(
    scripts: None, capsys: pytest.CaptureFixture[str]
) -> None:
    from check_equivalence import compare

    before = {"receipts engine": '{"ok":true}\n', "cli --version": "0.1.0\n"}
    after = {"receipts engine": '{"ok":false}\n', "cli --version": "0.1.0\n"}
    assert compare(before, after) == 1
    shown = capsys.readouterr().out
    assert "### receipts engine: differs" in shown
    assert '-{"ok":true}' in shown and '+{"ok":false}' in shown


def test_an_item_only_one_side_has_is_counted(scripts: None) -> None:
    from check_equivalence import compare

    assert compare({"cli show --help": "x\n"}, {}) == 1


def test_an_allowed_difference_passes_and_is_named_with_its_reason(
    scripts: None, capsys: pytest.CaptureFixture[str]
) -> None:
    from check_equivalence import compare

    before = {"receipts pitfalls": "or leave status out to list every lesson\n"}
    after = {"receipts pitfalls": "or leave status out; Only lessons with this status.\n"}
    assert compare(before, after) == 0
    assert "# allowed: docs/decisions/argument-checks.md" in capsys.readouterr().out


def test_an_allowed_difference_does_not_cover_another_change_in_the_same_item(
    scripts: None,
) -> None:
    from check_equivalence import compare

    before = {"receipts pitfalls": "or leave status out to list every lesson; PITFALL_A\n"}
    after = {"receipts pitfalls": "or leave status out; Only lessons with this status.; B\n"}
    assert compare(before, after) == 1
