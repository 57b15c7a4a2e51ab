"""The detector's rules one by one (issue 13, "The detector"): the four conditions, the
reset on firing, a success clearing only its own tool, forgetting a session, and the clue."""

from __future__ import annotations

from reckoner.pitfalls.detector import (
    CLUE_MAX,
    COOLDOWN_S,
    Detector,
    Rules,
    SessionState,
    build_clue,
    observe_failure,
)


def test_rule_defaults_are_the_specs() -> None:
    assert Rules() == Rules(failure_streak=2, max_per_session=4, cooldown_s=600.0)


def test_condition_1_fires_on_the_second_failure_in_a_row_of_the_same_tool() -> None:
    detector = Detector()
    assert detector.failure("s", "eval", 0) is False
    assert detector.failure("s", "eval", 1) is True


def test_condition_4_another_tools_failure_starts_the_count_again() -> None:
    detector = Detector()
    assert detector.failure("s", "eval", 0) is False
    assert detector.failure("s", "Bash", 1) is False
    assert detector.failure("s", "eval", 2) is False
    assert detector.failure("s", "eval", 3) is True


def test_firing_resets_the_streak_so_one_run_is_reminded_once() -> None:
    detector = Detector(Rules(cooldown_s=0))
    assert [detector.failure("s", "eval", t) for t in range(5)] == [False, True, False, True, False]


def test_condition_3_cooldown_of_10_minutes_since_the_last_reminder() -> None:
    detector = Detector()
    assert detector.failure("s", "eval", 0) is False
    assert detector.failure("s", "eval", 1) is True
    assert detector.failure("s", "eval", 2) is False
    assert detector.failure("s", "eval", 3) is False  # streak 2 again, but cooling down
    assert detector.failure("s", "eval", 1 + COOLDOWN_S - 1) is False
    assert detector.failure("s", "eval", 1 + COOLDOWN_S) is True


def test_condition_2_at_most_4_reminders_in_a_session() -> None:
    detector = Detector()
    fired = [detector.failure("s", "eval", t * COOLDOWN_S) for t in range(20)]
    assert sum(fired) == 4


def test_a_success_clears_only_its_own_tools_streak() -> None:
    detector = Detector()
    detector.failure("s", "eval", 0)
    detector.success("s", "Read")  # unrelated success: eval is still failing
    assert detector.failure("s", "eval", 1) is True
    detector.failure("s", "eval", 2000)
    detector.success("s", "eval")
    assert detector.failure("s", "eval", 2001) is False


def test_sessions_are_separate_and_a_sessions_end_forgets_it() -> None:
    detector = Detector()
    for t in range(4):
        detector.failure("a", "eval", t * COOLDOWN_S)
        detector.failure("a", "eval", t * COOLDOWN_S + 1)
    assert detector.state("a").reminders == 4
    assert detector.failure("b", "eval", 0) is False  # b has its own count
    detector.forget("a")
    detector.failure("a", "eval", 10_000)
    assert detector.failure("a", "eval", 10_001) is True  # a fresh quota


def test_session_state_round_trips_and_a_bad_stored_form_starts_fresh() -> None:
    state = SessionState()
    observe_failure(state, "Bash", 5.0)
    assert SessionState.from_json(state.to_json()) == state
    assert SessionState.from_json({"streak": "2", "reminders": -1, "tool": 3}) == SessionState()
    assert SessionState.from_json([1]) == SessionState()


def test_clue_takes_up_to_3_keys_in_order_plus_the_error_code_and_text() -> None:
    args = {"cwd": "/w", "command": "npm  install", "url": "u", "path": "p", "other": "no"}
    clue = build_clue(args, ("EACCES", "permission\ndenied"))
    assert clue == "npm install p u EACCES permission denied"


def test_clue_knows_our_own_formula_and_target() -> None:
    clue = build_clue({"formula": "2x", "target": "y"}, ("ENGINE_INVALID_IDENTIFIER", "bad"))
    assert clue == "2x y ENGINE_INVALID_IDENTIFIER bad"


def test_clue_is_cut_to_300_characters_and_leaves_room_for_the_error() -> None:
    clue = build_clue({"command": "x" * 1000}, ("CODE", "e" * 1000))
    assert len(clue) == CLUE_MAX
    assert "CODE" in clue


def test_clue_ignores_non_text_arguments() -> None:
    assert build_clue({"command": ["a"], "name": 7, "query": None}, ("E",)) == "7 E"
    assert build_clue("not an object", ("E", "msg")) == "E msg"
