"""Issue 12 (bad input), property-tested: package specs and the path guard never let through
what the spec refuses."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from reckoner.compute import archive, install

SHELL = " ;|&$`()<>'\"\\\n\t*?!#~{}@"


@given(st.text(min_size=0, max_size=12), st.sampled_from(SHELL), st.text(max_size=12))
def test_a_spec_with_a_shell_character_is_refused(head: str, char: str, tail: str) -> None:
    """Spec 5.3: space, ;, |, &, $, backtick, @, brackets and the rest never pass."""
    spec = f"{head}{char}{tail}"
    if char in "<>" and install.PACKAGE_SPEC.fullmatch(spec):
        return  # name<version and name>version are operators, never given to a shell
    assert install.bad_spec([spec]) == spec


@given(st.lists(st.sampled_from(["..", "a", "b", ".", "Computation"]), min_size=1, max_size=6))
def test_the_guard_keeps_every_answer_inside(parts: list[str]) -> None:
    """Issue 12 (safety): whatever the spelling, an accepted path is inside the real root."""
    root = Path(__file__).resolve().parent
    relative = "/".join(parts)
    try:
        real = archive.inside(root, relative)
    except archive.OutsideProject:
        return
    assert real == root or root in real.parents


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)
_KEYS = st.sampled_from(["op", "engine", "mode", "code", "file", "expr", "packages", "timeoutMs",
                         "captureFiles", "cli", "scope", "dryRun", "confirm", "x"])  # fmt: skip


@given(st.dictionaries(_KEYS, _JSON, max_size=5) | _JSON)
def test_any_json_gets_one_sentence_and_runs_nothing(args: object) -> None:
    """Guide (hostile request): arbitrary JSON never raises and, malformed, starts nothing."""
    import json
    import tempfile

    from reckoner.compute.arguments import argument_error
    from reckoner.compute.context import ComputeOptions
    from reckoner.compute.service import ComputeService
    from reckoner.compute.settings import normalise

    error = argument_error(args)
    if error is None:
        return  # well-formed calls are the other tests' business
    assert isinstance(error, str) and "\n" not in error
    with tempfile.TemporaryDirectory() as temp:
        service = ComputeService(
            Path(temp), normalise({}), ComputeOptions(search_path="/nonexistent")
        )
        response = service.call(args)
        assert response["code"] == "MATH_INVALID_ARGUMENT"
        json.dumps(response, allow_nan=False)
        assert list(Path(temp).iterdir()) == []
