"""Issue 12 (bad input), property-tested: compute's argument check (reckoner.compute.arguments)
answers any JSON with one sentence, and a malformed call starts nothing."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

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
