"""The panel's HTTP endpoints (docs/guide/panel.md and docs/guide/records.md; issue 5), against the
real app.

Every test builds a real home in a temp directory and talks to the Starlette app through
its test client; nothing about the archive or state.json is faked.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from panel_records import RowBuilder, divider_record, encode, write_closed, write_open
from starlette.testclient import TestClient

from panel_access import BASE, panel_app, signed_in

API = "/api/reckoner"


def _closed(home: Path, record_id: str, title: str, at: int) -> None:
    b = RowBuilder(record_id, title, at)
    b.set("x", {"num": 1, "dim": [0, 0, 0, 0, 0, 0, 0]})
    b.end()
    write_closed(home, b)


# ---------------------------------------------------------------------------------------
# 7.5 / 11.3: the record list


def test_index_lists_closed_newest_first_open_and_unreadable(
    home: Path, client: TestClient
) -> None:
    """Spec: docs/guide/records.md (the record list)."""
    _closed(home, "1700000000000", "older", 1_700_000_000_000)
    _closed(home, "1700000005000", "newer", 1_700_000_005_000)
    write_open(home, RowBuilder("1700000009000", "running", 1_700_000_009_000))
    (home / "records" / "1600000000000.jsonl").write_bytes(b'{"seq":1,"tool":"set"}\n')

    response = client.get(f"{API}/records-index")

    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert [entry["id"] for entry in body["closed"]] == ["1700000005000", "1700000000000"]
    assert body["closed"][0]["title"] == "newer"
    assert body["closed"][0]["openedAt"] == 1_700_000_005_000
    assert body["closed"][0]["endedAt"] == 1_700_000_005_002
    assert body["open"] == {
        "id": "1700000009000",
        "title": "running",
        "openedAt": 1_700_000_009_000,
        "lane": 1,
    }
    assert body["openRecords"] == [body["open"]]  # issue 9: every lane's open record
    assert body["unreadable"] == ["1600000000000"]


def test_unchanged_index_poll_is_304_with_no_body(home: Path, client: TestClient) -> None:
    """Spec: docs/guide/panel.md (the host endpoints)."""
    _closed(home, "1700000000000", "one", 1_700_000_000_000)
    first = client.get(f"{API}/records-index")
    etag = first.headers["etag"]
    # A directory modified within the racy window gets a unique validator; let it settle
    # by backdating its time rather than by sleeping.
    _backdate(home / "records")
    etag = client.get(f"{API}/records-index").headers["etag"]

    again = client.get(f"{API}/records-index", headers={"If-None-Match": etag})

    assert again.status_code == 304
    assert again.content == b""
    assert again.headers["etag"] == etag


def test_index_etag_changes_when_a_record_is_added(home: Path, client: TestClient) -> None:
    """Spec: docs/guide/panel.md (the host endpoints)."""
    _closed(home, "1700000000000", "one", 1_700_000_000_000)
    _backdate(home / "records")
    etag = client.get(f"{API}/records-index").headers["etag"]
    _closed(home, "1700000001000", "two", 1_700_000_001_000)

    response = client.get(f"{API}/records-index", headers={"If-None-Match": etag})

    assert response.status_code == 200
    assert len(response.json()["closed"]) == 2


# ---------------------------------------------------------------------------------------
# 11.3: one record


def test_record_body_has_identity_and_rows(home: Path, client: TestClient) -> None:
    """Spec: docs/guide/panel.md (the host endpoints)."""
    builder = divider_record()
    write_closed(home, builder)

    response = client.get(f"{API}/records/{builder.record_id}")

    assert response.status_code == 200
    body = response.json()
    assert body["id"] == builder.record_id
    assert body["title"] == "Voltage divider power"
    assert body["version"] == 1
    assert body["open"] is False
    assert body["openedAt"] == builder.rows[0]["at"]
    assert body["endedAt"] == builder.rows[-1]["at"]
    assert body["rows"] == builder.rows


def test_typeset_map_covers_accepted_evals_and_polls_with_304(
    home: Path, client: TestClient
) -> None:
    """Spec: docs/guide/panel.md (the Records tab)."""
    builder = divider_record()
    write_closed(home, builder)
    url = f"{API}/record-typeset/{builder.record_id}"

    response = client.get(url)

    assert response.status_code == 200
    eval_seqs = [str(r["seq"]) for r in builder.rows if r["tool"] == "eval" and r["ok"]]
    assert sorted(response.json()) == sorted(eval_seqs)
    assert response.json()[eval_seqs[0]] == r"\frac{{V}^{2}}{R}"
    again = client.get(url, headers={"If-None-Match": response.headers["etag"]})
    assert again.status_code == 304
    assert client.get(f"{API}/record-typeset/..%2Fx").status_code == 400
    assert client.get(f"{API}/record-typeset/1800000000000").status_code == 404


def test_open_record_is_served_with_ended_at_null(home: Path, client: TestClient) -> None:
    """Spec: docs/guide/panel.md (the host endpoints)."""
    builder = RowBuilder("1700000009000", "running", 1_700_000_009_000)
    builder.set("a", {"num": 2, "dim": [0, 0, 0, 0, 0, 0, 0]})
    write_open(home, builder)

    body = client.get(f"{API}/records/1700000009000").json()

    assert body["open"] is True
    assert body["endedAt"] is None
    assert [row["tool"] for row in body["rows"]] == ["record_start", "set"]


def test_unchanged_record_poll_is_304_without_reading_the_file(
    home: Path, client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Spec: docs/guide/panel.md (the host endpoints)."""
    builder = divider_record()
    write_closed(home, builder)
    archive: Any = client.app.state.archive  # type: ignore[attr-defined]
    reads: list[str] = []
    original = archive.read

    def counting_read(record_id: str) -> Any:
        reads.append(record_id)
        return original(record_id)

    monkeypatch.setattr(archive, "read", counting_read)
    first = client.get(f"{API}/records/{builder.record_id}")
    assert reads == [builder.record_id]

    polls = [
        client.get(
            f"{API}/records/{builder.record_id}", headers={"If-None-Match": first.headers["etag"]}
        )
        for _ in range(5)
    ]

    assert [poll.status_code for poll in polls] == [304] * 5
    assert reads == [builder.record_id], "a 304 must not read the record file"


def test_open_record_poll_sees_an_appended_row(home: Path, client: TestClient) -> None:
    """Spec: docs/guide/panel.md (the Records tab)."""
    builder = RowBuilder("1700000009000", "running", 1_700_000_009_000)
    path = write_open(home, builder)
    first = client.get(f"{API}/records/1700000009000")
    builder.set("a", {"num": 2, "dim": [0, 0, 0, 0, 0, 0, 0]})
    with path.open("ab") as handle:
        handle.write(json.dumps(builder.rows[-1]).encode() + b"\n")

    response = client.get(
        f"{API}/records/1700000009000", headers={"If-None-Match": first.headers["etag"]}
    )

    assert response.status_code == 200
    assert len(response.json()["rows"]) == 2


def test_missing_record_is_404_json(client: TestClient) -> None:
    """Spec: docs/guide/panel.md (the host endpoints)."""
    response = client.get(f"{API}/records/1700000000000")
    assert response.status_code == 404
    assert "1700000000000" in response.json()["error"]


def test_record_below_the_version_gate_is_not_served(home: Path, client: TestClient) -> None:
    """Spec: docs/guide/records.md (the record file)."""
    builder = RowBuilder("1700000000000", "old", 1_700_000_000_000)
    (home / "records" / "1700000000000.jsonl").write_bytes(
        encode(builder.rows, header={"seq": 0, "version": 0})
    )
    assert client.get(f"{API}/records/1700000000000").status_code == 404
    assert client.get(f"{API}/records-index").json()["unreadable"] == ["1700000000000"]


# ---------------------------------------------------------------------------------------
# 11.3: deleting


def test_delete_removes_a_closed_record(home: Path, client: TestClient) -> None:
    """Spec: docs/guide/panel.md (the host endpoints)."""
    _closed(home, "1700000000000", "one", 1_700_000_000_000)

    response = client.delete(f"{API}/records/1700000000000")

    assert response.status_code == 200
    assert response.json() == {"deleted": "1700000000000"}
    assert not (home / "records" / "1700000000000.jsonl").exists()
    assert client.get(f"{API}/records-index").json()["closed"] == []


def test_delete_of_the_open_record_is_409_and_keeps_it(home: Path, client: TestClient) -> None:
    """Spec: docs/guide/panel.md (the host endpoints)."""
    path = write_open(home, RowBuilder("1700000009000", "running", 1_700_000_009_000))
    before = path.read_bytes()

    response = client.delete(f"{API}/records/1700000009000")

    assert response.status_code == 409
    assert "open" in response.json()["error"]
    assert path.read_bytes() == before


def test_every_lane_s_open_record_is_listed_served_and_kept_from_delete(
    home: Path, client: TestClient
) -> None:
    """Spec: docs/guide/panel.md (issue 9)."""
    write_open(home, RowBuilder("1700000009000", "lane one", 1_700_000_009_000))
    second = RowBuilder("1700000009001", "lane two", 1_700_000_009_001)
    (home / "open").mkdir()
    path = home / "open" / "lane-2.jsonl"
    path.write_bytes(encode(second.rows))
    before = path.read_bytes()

    index = client.get(f"{API}/records-index").json()
    assert [(e["id"], e["lane"]) for e in index["openRecords"]] == [
        ("1700000009000", 1),
        ("1700000009001", 2),
    ]
    record = client.get(f"{API}/records/1700000009001").json()
    assert record["open"] is True and record["endedAt"] is None and record["title"] == "lane two"
    response = client.delete(f"{API}/records/1700000009001")
    assert response.status_code == 409
    assert path.read_bytes() == before


def test_delete_of_a_missing_record_is_404(client: TestClient) -> None:
    """Spec: docs/guide/panel.md (the host endpoints)."""
    response = client.delete(f"{API}/records/1700000000000")
    assert response.status_code == 404
    assert set(response.json()) == {"error"}


def test_unreadable_record_can_be_deleted(home: Path, client: TestClient) -> None:
    """Spec: docs/guide/records.md (the record file)."""
    (home / "records" / "1600000000000.jsonl").write_bytes(b"garbage\n")
    assert client.delete(f"{API}/records/1600000000000").status_code == 200
    assert client.get(f"{API}/records-index").json()["unreadable"] == []


# ---------------------------------------------------------------------------------------
# Security: ids validated before any path, Host and Origin checks, JSON-only changes


@pytest.mark.parametrize(
    "raw_path",
    [
        "/api/reckoner/records/..%2Fstate",
        "/api/reckoner/records/..%2F..%2Fetc%2Fpasswd",
        "/api/reckoner/records/1700%2F..%2F1700",
        "/api/reckoner/records/%2E%2E",
        "/api/reckoner/records/1700000000000.jsonl",
        "/api/reckoner/records/abc",
        "/api/reckoner/records/1700000000000%00",
        "/api/reckoner/records/1700000000000%0A",
    ],
)
def test_security_traversal_ids_are_400_before_touching_a_path(
    home: Path, client: TestClient, raw_path: str
) -> None:
    (home / "state.json").write_text('{"schema":1}')
    for method in ("GET", "DELETE"):
        response = client.request(method, raw_path)
        assert response.status_code == 400, (method, raw_path, response.text)
        assert "not a record identifier" in response.json()["error"]
    assert (home / "state.json").exists()


@pytest.mark.parametrize(
    "host",
    ["evil.example:8765", "127.0.0.1:9999", "attacker.test", "localhost.evil.test:8765", ""],
)
def test_security_foreign_host_header_is_refused(client: TestClient, host: str) -> None:
    response = client.get(f"{API}/records-index", headers={"Host": host})
    assert response.status_code == 421
    assert "open it through the URL" in response.json()["error"]


@pytest.mark.parametrize("host", ["127.0.0.1:8765", "localhost:8765", "[::1]:8765"])
def test_security_loopback_aliases_are_accepted(client: TestClient, host: str) -> None:
    assert client.get(f"{API}/records-index", headers={"Host": host}).status_code == 200


def test_security_foreign_origin_cannot_delete(home: Path, client: TestClient) -> None:
    _closed(home, "1700000000000", "one", 1_700_000_000_000)
    response = client.delete(
        f"{API}/records/1700000000000", headers={"Origin": "http://evil.example"}
    )
    assert response.status_code == 403
    assert (home / "records" / "1700000000000.jsonl").exists()


def test_security_own_origin_may_change_settings(client: TestClient) -> None:
    response = client.put(
        f"{API}/settings", json={"panel": {"showAll": True}}, headers={"Origin": BASE}
    )
    assert response.status_code == 200


def test_security_cross_site_fetch_metadata_is_refused(home: Path, client: TestClient) -> None:
    response = client.put(
        f"{API}/settings",
        json={"panel": {"showAll": True}},
        headers={"Sec-Fetch-Site": "cross-site"},
    )
    assert response.status_code == 403
    assert not (home / "state.json").exists()


@pytest.mark.parametrize(
    "content_type",
    ["application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "text/plain", None],
)
def test_security_form_posts_cannot_change_settings(
    home: Path, client: TestClient, content_type: str | None
) -> None:
    headers = {"Content-Type": content_type} if content_type else {}
    response = client.put(f"{API}/settings", content=b'{"panel":{"showAll":true}}', headers=headers)
    assert response.status_code == 415
    assert "application/json" in response.json()["error"]
    assert not (home / "state.json").exists()


def test_security_static_files_do_not_escape_the_package(client: TestClient) -> None:
    for path in ("/static/..%2F..%2Fapp.py", "/static/../app.py", "/static/%2e%2e/app.py"):
        response = client.get(path)
        assert response.status_code == 404, path
        assert b"create_app" not in response.content


def test_security_page_carries_a_strict_content_security_policy(client: TestClient) -> None:
    response = client.get("/")
    assert response.status_code == 200
    policy = response.headers["content-security-policy"]
    assert "script-src 'self'" in policy
    assert "frame-ancestors 'none'" in policy
    assert response.headers["x-content-type-options"] == "nosniff"


def test_page_embeds_the_name_table_from_the_core(client: TestClient) -> None:
    """Spec: docs/guide/panel.md (the Records tab)."""
    from reckoner.contract.dimensions import NAME_TABLE

    html = client.get("/").text
    start = html.index('id="name-table">') + len('id="name-table">')
    table = json.loads(html[start : html.index("</script>", start)])
    assert len(table["rows"]) == 24 == len(NAME_TABLE)
    assert table["rows"][16] == {
        "vector": [2, 1, -3, -2, 0, 0, 0],
        "kind": "resistance",
        "names": ["ohm"],
    }


def test_page_embeds_the_unit_spelling_table_the_articles_and_show_use(client: TestClient) -> None:
    """Issue 23: the panel spells units from reckoner.units.spelling, served with the page."""
    from reckoner.units.spelling import spelling_data

    html = client.get("/").text
    start = html.index('id="name-table">') + len('id="name-table">')
    table = json.loads(html[start : html.index("</script>", start)])
    assert table["spelling"] == spelling_data()
    assert table["spelling"]["derived"]["1,1,-3,0,-1,0,0"] == "W/(m·K)"


def test_unknown_api_path_is_json_404(client: TestClient) -> None:
    response = client.get(f"{API}/nothing-here")
    assert response.status_code == 404
    assert "records-index" in response.json()["error"]


# ---------------------------------------------------------------------------------------
# 9.1 / 11.2 / 11.3: settings


def test_settings_view_has_defaults_when_nothing_is_stored(client: TestClient) -> None:
    """Spec: docs/guide/panel.md (the host endpoints)."""
    response = client.get(f"{API}/settings")
    assert response.status_code == 200
    home_dir = str(Path.home())
    view = response.json()
    assert view.pop("search")["preset"] == "reckoner-with-search"  # issue 11's section
    assert view == {
        "panel": {"showAll": False},
        "generation": {
            "markdown": {"directory": home_dir, "language": "auto"},
            "latex": {"directory": home_dir, "language": "auto", "compile": False},
            "writer": {"kind": "template", "model": None, "baseUrl": None},
        },
        "restartRequired": False,
    }


def test_put_writes_only_the_named_section_and_keeps_other_keys(
    home: Path, client: TestClient
) -> None:
    """Spec: docs/guide/records.md (the home directory and state.json)."""
    stored = {
        "schema": 1,
        "generation": {"markdown": {"directory": "/tmp/out", "language": "auto"}},
        "panel": {"futureKey": [1, 2]},
        "newerModule": {"x": True},
        "restartRequired": True,
    }
    (home / "state.json").write_text(json.dumps(stored))

    response = client.put(f"{API}/settings", json={"panel": {"showAll": True}})

    assert response.status_code == 200
    body = response.json()
    assert body["saved"] == ["panel"]
    assert body["settings"]["panel"] == {"showAll": True}
    assert body["settings"]["restartRequired"] is True
    assert body["settings"]["generation"]["markdown"]["directory"] == "/tmp/out"
    after = json.loads((home / "state.json").read_text())
    assert after["panel"] == {"futureKey": [1, 2], "showAll": True}
    assert after["generation"] == stored["generation"]
    assert after["newerModule"] == {"x": True}
    assert after["restartRequired"] is True
    assert client.get(f"{API}/settings").json()["panel"] == {"showAll": True}


@pytest.mark.parametrize(("spelled", "saved"), [("md", "markdown"), ("TeX", "latex")])
def test_a_format_is_named_as_generate_and_the_cli_name_it(
    home: Path, client: TestClient, spelled: str, saved: str
) -> None:
    """11.3: PUT takes the format by its name or its extension, as generate and
    `reckoner article --format` do, and saves it under the format's own subtree (9.1).
    Spec: docs/guide/panel.md (the host endpoints)."""
    response = client.put(
        f"{API}/settings", json={"generation": {"format": spelled, "language": "en"}}
    )
    assert response.status_code == 200, response.text
    stored = json.loads((home / "state.json").read_text())["generation"]
    assert stored == {saved: {"language": "en"}}


def test_null_clears_a_choice_back_to_the_default(home: Path, client: TestClient) -> None:
    """Spec: docs/guide/records.md (the home directory and state.json)."""
    client.put(f"{API}/settings", json={"panel": {"showAll": True}})
    response = client.put(f"{API}/settings", json={"panel": {"showAll": None}})
    assert response.json()["settings"]["panel"] == {"showAll": False}
    assert "panel" not in json.loads((home / "state.json").read_text())


@pytest.mark.parametrize(
    ("body", "phrase"),
    [
        (b"not json", "not valid JSON"),
        (b"[1,2]", "must be a JSON object"),
        (b"{}", "names no section"),
        (b'{"generation":{"format":"pdf"}}', "must name its format, markdown (md) or latex"),
        (b'{"panel":{"showAll":"yes"}}', "must be true, false or null"),
        (b'{"panel":{"colour":"red"}}', "has no field 'colour'"),
        (b'{"panel":5}', "must be an object"),
        (b'{"panel":{"showAll":true},"bogus":{}}', "no settings section 'bogus'"),
    ],
)
def test_unusable_settings_body_is_400_and_writes_nothing(
    home: Path, client: TestClient, body: bytes, phrase: str
) -> None:
    """Spec: docs/guide/panel.md (the host endpoints)."""
    response = client.put(
        f"{API}/settings", content=body, headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert phrase in error
    assert error.count(". ") == 0 or error.endswith(".")
    assert not (home / "state.json").exists()


@pytest.mark.parametrize("method", ["POST", "DELETE", "PATCH"])
def test_other_methods_on_settings_are_405(client: TestClient, method: str) -> None:
    """Spec: docs/guide/panel.md (the host endpoints)."""
    response = client.request(
        method, f"{API}/settings", content=b"{}", headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 405
    assert response.headers["allow"] == "GET, PUT"
    assert "GET or PUT" in response.json()["error"]


def test_oversized_settings_body_is_refused(client: TestClient) -> None:
    """Spec: docs/guide/panel.md (the host endpoints)."""
    response = client.put(
        f"{API}/settings",
        content=b'{"panel":{"showAll":true},"pad":"' + b"x" * 70_000 + b'"}',
        headers={"Content-Type": "application/json"},
    )
    assert response.status_code == 413


def _backdate(path: Path) -> None:
    import os

    info = path.stat()
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns - 5_000_000_000))


def test_fixture_rows_follow_the_trace_row_shape() -> None:
    """The helper's rows carry exactly the 7.2 fields, so these tests read real shapes.
    Spec: docs/guide/records.md (trace rows)."""
    for row in divider_record().rows:
        assert set(row) == {"seq", "at", "tool", "ok", "content"}


# ---------------------------------------------------------------------------------------
# `reckoner panel`'s runner, in a real subprocess


def test_run_panel_prints_its_url_serves_and_warns_off_loopback(home: Path) -> None:
    import subprocess
    import sys

    import httpx

    script = (
        "import sys; from pathlib import Path; from reckoner.panel.run import run_panel; "
        "run_panel(Path(sys.argv[1]), '0.0.0.0', 0, False)"
    )
    _closed(home, "1700000000000", "served", 1_700_000_000_000)
    process = subprocess.Popen(
        [sys.executable, "-c", script, str(home)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.startswith("reckoner panel: serving"), line
        link = line.split(" at ")[1].split()[0]
        url, _, token = link.partition("?token=")
        assert url.startswith("http://127.0.0.1:") and token
        # The printed link signs a client in: its cookie carries every request after it.
        with httpx.Client(timeout=10, follow_redirects=True) as browser_like:
            assert browser_like.get(link).status_code == 200
            body = browser_like.get(f"{url}api/reckoner/records-index").json()
            assert body["closed"][0]["title"] == "served"
            port = url.rstrip("/").rsplit(":", 1)[1]
            refused = browser_like.get(
                f"{url}api/reckoner/records-index", headers={"Host": f"rebound.test:{port}"}
            )
            assert refused.status_code == 421
            deleted = browser_like.delete(f"{url}api/reckoner/records/1700000000000")
            assert deleted.status_code == 200
    finally:
        process.terminate()
        _, stderr = process.communicate(timeout=10)
    assert process.returncode == 0
    assert "warning: binding 0.0.0.0" in stderr
    assert "Traceback" not in stderr
    # 9.2: the run's log keeps the panel's own account.
    (log_file,) = (home / "logs").glob("*.log")
    log_text = log_file.read_text()
    assert "INFO panel: started" in log_text
    assert 'INFO panel: record deleted record="1700000000000"' in log_text
    assert "INFO panel: stopped" in log_text
    assert token not in log_text


def test_run_panel_port_in_use_is_one_sentence(home: Path) -> None:
    import socket
    import subprocess
    import sys

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        script = (
            "import sys; from pathlib import Path; from reckoner.panel.run import run_panel; "
            f"run_panel(Path(sys.argv[1]), '127.0.0.1', {port}, False)"
        )
        result = subprocess.run(
            [sys.executable, "-c", script, str(home)], capture_output=True, text=True, timeout=30
        )
    assert result.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}" in result.stderr
    assert "--port" in result.stderr
    assert "Traceback" not in result.stderr


def test_errors_settings_that_cannot_be_saved_are_one_json_sentence(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / "state.json").mkdir(parents=True)  # a directory where the file must go
    with signed_in(panel_app(home), raise_server_exceptions=False) as client:
        response = client.put(f"{API}/settings", json={"panel": {"showAll": True}})
    assert response.status_code == 500
    assert response.json()["error"].startswith("The settings could not be saved")
