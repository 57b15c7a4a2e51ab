"""docs/guide/lookup.md (issue 11): the policy's defaults, its three layers, unusable values, the
allow-list's label-boundary matching and the override's merge (pure functions)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reckoner.lookup.policy import (
    DEFAULT_ALLOWED_HOSTS,
    FIELDS,
    Unusable,
    host_matches,
    merge_override,
    normalise_host,
    resolve,
    url_host,
)


def test_without_preset_or_override_the_code_defaults_apply() -> None:
    """Spec: docs/guide/lookup.md (the policy of the row)."""
    resolution = resolve({}, {})
    policy = resolution.policy
    assert policy.tier == "strict" and policy.allowed_hosts == DEFAULT_ALLOWED_HOSTS
    assert len(DEFAULT_ALLOWED_HOSTS) == 12
    assert (policy.max_results, policy.max_searches_per_record, policy.answer_max_chars) == (
        12,
        4,
        1200,
    )
    assert (policy.enrich_pages, policy.enrich_chars_per_page) == (0, 4000)
    assert policy.allow_private_addresses is False
    assert (policy.synthesis_provider, policy.synthesis_model) == (None, None)
    assert policy.synthesis_max_tokens == 800
    assert set(resolution.source.values()) == {"default"} and resolution.notes == ()


def test_the_override_beats_the_preset_beats_the_defaults_field_by_field() -> None:
    """Spec: docs/guide/lookup.md (the policy of the row)."""
    preset = {"maxResults": 5, "enrich": {"pages": 1, "charsPerPage": 900}}
    override = {"maxResults": 7, "enrich": {"pages": 2}}
    resolution = resolve(preset, override)
    policy = resolution.policy
    assert (policy.max_results, policy.enrich_pages, policy.enrich_chars_per_page) == (7, 2, 900)
    assert resolution.source["maxResults"] == "override"
    assert resolution.source["enrich.charsPerPage"] == "preset"
    assert resolution.source["tier"] == "default"


@pytest.mark.parametrize(
    ("override", "key"),
    [
        ({"maxResults": 0}, "maxResults"),
        ({"maxResults": 2.5}, "maxResults"),
        ({"maxResults": True}, "maxResults"),
        ({"tier": "STRICT"}, "tier"),
        ({"allowedHosts": "wikipedia.org"}, "allowedHosts"),
        ({"enrich": {"pages": 11}}, "enrich.pages"),
        ({"enrich": {"allowPrivateAddresses": "yes"}}, "enrich.allowPrivateAddresses"),
        ({"synthesis": {"provider": "gemini"}}, "synthesis.provider"),
        ({"synthesis": {"model": ""}}, "synthesis.model"),
    ],
)
def test_an_unusable_value_is_reported_and_replaced_by_the_layer_below(
    override: dict[str, Any], key: str
) -> None:
    """Spec: docs/guide/lookup.md (the policy of the row)."""
    preset = {"maxResults": 5, "tier": "open"}
    resolution = resolve(preset, override)
    (note,) = resolution.notes
    assert key in note and "unusable" in note
    assert resolution.source[key] in ("preset", "default")


def test_an_empty_allow_list_is_a_decision() -> None:
    """Spec: docs/guide/lookup.md (the policy of the row)."""
    policy = resolve({}, {"allowedHosts": []}).policy
    assert policy.allowed_hosts == ()
    assert not policy.allows("https://en.wikipedia.org/wiki/Copper")


@pytest.mark.parametrize(
    ("url", "allowed"),
    [
        ("https://wikipedia.org/x", True),
        ("https://en.wikipedia.org/x", True),
        ("https://a.b.en.wikipedia.org/x", True),
        ("https://evilwikipedia.org/x", False),
        ("https://wikipedia.org.evil.com/x", False),
        ("https://wikipedia.organ/x", False),
        ("https://EN.WIKIPEDIA.ORG/x", True),
        ("https://en.wikipedia.org./x", True),
        ("https://user:pw@en.wikipedia.org:444/x", False),  # userinfo is refused (issue 21)
        ("https://evil.com\\@en.wikipedia.org/x", False),
        ("https://evil.com/?u=https://en.wikipedia.org", False),
        ("https://evil.com#@en.wikipedia.org", False),
        ("http://raw.githubusercontent.com/a/b", True),
        ("ftp://en.wikipedia.org/x", False),
        ("javascript:alert(1)", False),
        ("//en.wikipedia.org/x", False),
        ("not a url", False),
        ("https://[::1]/x", False),
    ],
)
def test_strict_allow_list_matching_on_label_boundaries(url: str, allowed: bool) -> None:
    """Spec: docs/guide/lookup.md (the policy of the row)."""
    assert resolve({}, {}).policy.allows(url) is allowed


def test_open_keeps_every_http_source_and_no_other() -> None:
    """Spec: docs/guide/lookup.md (the policy of the row)."""
    policy = resolve({"tier": "open"}, {}).policy
    assert policy.allows("https://anything.example/x")
    assert not policy.allows("file:///etc/passwd")


@given(
    st.from_regex(r"[a-z0-9]{1,10}", fullmatch=True), st.from_regex(r"[a-z]{1,8}", fullmatch=True)
)
def test_a_letter_prefix_never_matches(prefix: str, label: str) -> None:
    """Spec: docs/guide/lookup.md (the policy of the row)."""
    pattern = f"{label}.org"
    assert not host_matches(f"{prefix}{pattern}", pattern)
    assert host_matches(f"{prefix}.{pattern}", pattern)


def test_host_normalisation() -> None:
    assert normalise_host(" Wikipedia.ORG. ") == "wikipedia.org"
    assert normalise_host("127.0.0.1") == "127.0.0.1"
    assert normalise_host("bad_host.org") is None
    assert normalise_host("-x.org") is None
    assert url_host("https://[::1]:8/x") == "::1"


def test_merge_override_sets_clears_and_refuses() -> None:
    """Spec: docs/guide/panel.md (the Settings tab)."""
    stored = {"maxResults": 5, "enrich": {"pages": 2}, "unknownFromNewerBuild": 1}
    merged = merge_override(stored, {"enrich.pages": None, "tier": "open"})
    assert merged == {"maxResults": 5, "unknownFromNewerBuild": 1, "tier": "open"}
    with pytest.raises(Unusable, match=r"search\.maxResults must be"):
        merge_override(stored, {"maxResults": "x"})
    with pytest.raises(Unusable, match="no key 'nope'"):
        merge_override(stored, {"nope": 1})
    assert stored == {"maxResults": 5, "enrich": {"pages": 2}, "unknownFromNewerBuild": 1}


def test_every_field_default_passes_its_own_check() -> None:
    for field in FIELDS:
        if field.default is not None:
            checked = field.check(
                list(field.default) if isinstance(field.default, tuple) else field.default
            )
            assert checked == field.default


def test_a_bad_host_entry_is_dropped_with_a_note_and_the_rest_of_the_layer_kept() -> None:
    # Issue 26: one bad entry no longer throws the user's list away for the wider defaults.
    layer = {"allowedHosts": ["nist.gov", "https://wikipedia.org/", "NIST.gov", 7]}
    resolution = resolve({}, layer)
    assert resolution.policy.allowed_hosts == ("nist.gov",)
    assert resolution.source["allowedHosts"] == "override"
    assert len(resolution.notes) == 2
    assert "'https://wikipedia.org/'" in resolution.notes[0] and "7" in resolution.notes[1]


def test_a_panel_write_with_a_bad_host_entry_is_refused_whole() -> None:
    with pytest.raises(Unusable, match=r"'\*\.wikipedia\.org' is not a host name"):
        merge_override({}, {"allowedHosts": ["nist.gov", "*.wikipedia.org"]})
    assert merge_override({}, {"allowedHosts": []}) == {"allowedHosts": []}
