"""The extras' one place (issue 25): which packages a feature needs, and the one sentence with
the install command when one is missing. The real missing-package case (a base wheel in a
fresh venv) is tests/test_wheel.py; here a package name that no environment holds stands in
for an uninstalled SDK."""

from __future__ import annotations

import pytest

from reckoner.host import extras
from reckoner.host.extras import MissingExtra, install_command, missing, require
from reckoner.providers.chat import open_client
from reckoner.providers.config import endpoint
from reckoner.providers.failures import ProviderFailure

ABSENT = "reckoner_no_such_package_for_the_test"


def test_every_extra_is_installed_in_the_development_environment() -> None:
    for extra in extras.EXTRAS:
        assert missing(extra) == ()
        require(extra)


def test_a_missing_package_is_one_sentence_naming_the_extra_and_its_install_command(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(extras.EXTRAS, "search", ("anthropic", ABSENT))
    assert missing("search") == (ABSENT,)
    with pytest.raises(MissingExtra) as raised:
        require("search")
    sentence = raised.value.sentence
    assert sentence.endswith(f"install it with {install_command('search')}.")
    assert sentence.startswith("The web lookup") and ABSENT in sentence
    assert sentence.count(".") == 1  # one sentence: its full stop is the last character
    assert install_command("search") == "uv tool install 'reckoner-mcp[search]'"


@pytest.mark.parametrize(("purpose", "extra"), [("lookup", "search"), ("article", "models")])
def test_opening_a_provider_without_its_extra_fails_with_the_install_command(
    monkeypatch: pytest.MonkeyPatch, purpose: str, extra: extras.Extra
) -> None:
    monkeypatch.setitem(extras.EXTRAS, extra, (ABSENT,))
    where = endpoint("openai", {"OPENAI_API_KEY": "sk-test-key"})
    with pytest.raises(ProviderFailure) as raised:
        open_client(where, purpose)  # type: ignore[arg-type]
    assert install_command(extra) in str(raised.value)
