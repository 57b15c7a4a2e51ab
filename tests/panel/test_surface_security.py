"""Issue 8, "security of the surfaces", for the panel: a body is refused as it streams in,
files outside the home are never served through a symlink, a FIFO never hangs the panel,
SIGTERM stops it whatever its requests wait on, a client hanging up is one log line, and no
error body names a path of this machine. A real `reckoner panel` subprocess and real HTTP on
loopback, except where a storage fault is injected at the panel's edge."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from panel_records import RowBuilder, encode, write_closed

from panel_access import panel_app, signed_in
from reckoner.host.network import SHUTDOWN_GRACE_SECONDS
from reckoner.panel.app import MAX_BODY_BYTES

API = "/api/reckoner"


def _machine_paths(home: Path) -> list[str]:
    """Where this machine's paths begin: the home's folder, the installation, the package.

    (A generic path pattern would also flag the request's own URL path, which the panel's
    404 sentences echo on purpose.)
    """
    import reckoner

    return [str(home.parent), sys.prefix, str(Path(reckoner.__file__).parent), "site-packages"]


def _assert_no_machine_path(text: str, home: Path) -> None:
    for root in _machine_paths(home):
        assert root not in text, (root, text)


@dataclass
class RunningPanel:
    process: subprocess.Popen[bytes]
    base: str
    port: int
    token: str
    stderr: list[bytes] = field(default_factory=list)

    @property
    def headers(self) -> dict[str, str]:
        return {"authorization": f"Bearer {self.token}"}

    @property
    def auth_line(self) -> str:
        """The token as a raw request's header line."""
        return f"Authorization: Bearer {self.token}\r\n"

    def stop(self, timeout: float = 30) -> str:
        """SIGTERM, wait, and the whole of stderr."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=timeout)
        return b"".join(self.stderr).decode()


@pytest.fixture
def panel(home: Path) -> Iterator[RunningPanel]:
    process = subprocess.Popen(
        [sys.executable, "-m", "reckoner", "panel", "--home", str(home), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    line = process.stdout.readline().decode()
    match = re.search(r"(http://127\.0\.0\.1:(\d+))/\?token=([\w.~-]+)", line)
    assert match, line
    running = RunningPanel(process, match.group(1), int(match.group(2)), match.group(3))
    stderr = process.stderr
    threading.Thread(target=lambda: running.stderr.extend(stderr), daemon=True).start()
    try:
        yield running
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=30)
        process.stdout.close()


def _log_text(home: Path) -> str:
    return "".join(p.read_text() for p in (home / "logs").glob("*.log"))


def _assert_panel_still_usable(panel: RunningPanel) -> None:
    saved = httpx.put(
        f"{panel.base}{API}/settings",
        json={"panel": {"showAll": True}},
        headers=panel.headers,
        timeout=30,
    )
    assert saved.status_code == 200, saved.text
    assert (
        httpx.get(f"{panel.base}{API}/records-index", headers=panel.headers, timeout=30).status_code
        == 200
    )


def _peak_memory_kib(pid: int) -> int | None:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    match = re.search(r"VmHWM:\s+(\d+) kB", status)
    return int(match.group(1)) if match else None


def test_an_over_large_body_is_refused_as_it_streams_in(panel: RunningPanel) -> None:
    """A 256 MiB settings body sent in chunks without a length: 413 with one JSON sentence,
    the connection is dropped long before the end, and the panel works on.
    Spec: docs/guide/panel.md (issue 8)."""
    chunk = b"x" * (1 << 20)
    offered = 256
    produced = 0

    def body() -> Iterator[bytes]:
        nonlocal produced
        yield b'{"panel":{"showAll":true},"pad":"'
        for _ in range(offered):
            produced += 1
            yield chunk
        yield b'"}'

    refused = httpx.put(
        f"{panel.base}{API}/settings",
        content=body(),
        headers={**panel.headers, "content-type": "application/json"},
        timeout=60,
    )
    assert refused.status_code == 413
    sentence = refused.json()["error"]
    assert f"limit of {MAX_BODY_BYTES} bytes" in sentence and sentence.count(". ") == 0
    # The panel stopped reading at the limit and hung up; the client could not push it all.
    assert produced < offered // 2, produced
    peak = _peak_memory_kib(panel.process.pid)
    if peak is not None:
        assert peak < 200 * 1024, f"the panel's peak memory reached {peak} KiB"
    _assert_panel_still_usable(panel)


def test_a_client_that_reads_only_when_its_upload_fails_still_gets_the_413(
    panel: RunningPanel,
) -> None:
    """A client streaming a body with no length that looks for the answer only once a send
    fails (as simple HTTP clients do) still reads the whole 413: the panel answers before it
    hangs up, and the reset its hang-up causes does not take the answer back.
    Spec: docs/guide/panel.md (issue 8)."""
    chunk = b"x" * (1 << 16)
    for _ in range(2):
        with socket.create_connection(("127.0.0.1", panel.port), timeout=30) as sock:
            sock.sendall(
                (
                    f"PUT {API}/settings HTTP/1.1\r\nHost: 127.0.0.1:{panel.port}\r\n"
                    f"{panel.auth_line}Content-Type: application/json\r\n"
                    'Transfer-Encoding: chunked\r\n\r\n8\r\n{"pad":"\r\n'
                ).encode()
            )
            sent = 0
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                while sent < 256 << 20:  # far past the limit: the send must fail first
                    sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                    sent += len(chunk)
            assert sent < 256 << 20, "the panel never hung up"
            answer = _read_all_until_reset(sock)
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 413"), answer[:200]
        assert f"limit of {MAX_BODY_BYTES} bytes".encode() in body, body
    _assert_panel_still_usable(panel)


def _read_all_until_reset(sock: socket.socket) -> bytes:
    chunks = []
    with contextlib.suppress(ConnectionResetError):
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def test_a_declared_over_large_body_is_refused_before_it_is_read(
    panel: RunningPanel,
) -> None:
    """Content-Length over the limit is refused up front, naming the declared size.
    Spec: docs/guide/panel.md (issue 8)."""
    with socket.create_connection(("127.0.0.1", panel.port), timeout=30) as sock:
        sock.sendall(
            (
                f"PUT {API}/settings HTTP/1.1\r\nHost: 127.0.0.1:{panel.port}\r\n{panel.auth_line}"
                "Content-Type: application/json\r\nContent-Length: 419430400\r\n\r\n{"
            ).encode()
        )
        answer = _read_all(sock)
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 413"), head
    assert b"connection: close" in head.lower()
    assert b"419430400 bytes, over the panel's limit" in body
    _assert_panel_still_usable(panel)


def _read_all(sock: socket.socket) -> bytes:
    chunks = []
    while chunk := sock.recv(65536):
        chunks.append(chunk)
    return b"".join(chunks)


def test_a_client_hanging_up_mid_body_is_one_log_line(panel: RunningPanel, home: Path) -> None:
    """Spec: docs/guide/panel.md (issue 8)."""
    with socket.create_connection(("127.0.0.1", panel.port), timeout=30) as sock:
        sock.sendall(
            (
                f"PUT {API}/settings HTTP/1.1\r\nHost: 127.0.0.1:{panel.port}\r\n{panel.auth_line}"
                'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"panel"'
            ).encode()
        )
        time.sleep(0.3)
    _assert_panel_still_usable(panel)
    stderr = panel.stop()
    assert panel.process.returncode == 0
    assert "Traceback" not in stderr and stderr.strip() == "", stderr
    assert _log_text(home).count("client hung up") == 1


def test_sigterm_stops_the_panel_while_requests_are_stuck(panel: RunningPanel, home: Path) -> None:
    """One request whose body never finishes and one reading a FIFO: SIGTERM still ends the
    panel, cleanly, within its grace period.
    Spec: docs/guide/panel.md (issue 8)."""
    os.mkfifo(home / "state.json")
    stuck = socket.create_connection(("127.0.0.1", panel.port), timeout=30)
    stuck.sendall(
        (
            f"PUT {API}/settings HTTP/1.1\r\nHost: 127.0.0.1:{panel.port}\r\n{panel.auth_line}"
            "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"
        ).encode()
    )
    # Today reading a FIFO state.json blocks its thread for good; should that ever be
    # refused instead, the body that never ends still keeps a request open.
    with contextlib.suppress(httpx.TimeoutException):
        httpx.get(f"{panel.base}{API}/settings", headers=panel.headers, timeout=2)
    try:
        stderr = panel.stop(timeout=SHUTDOWN_GRACE_SECONDS + 30)
    finally:
        stuck.close()
    assert panel.process.returncode == 0
    assert "Traceback" not in stderr, stderr
    log = _log_text(home)
    assert "panel: stopped" in log


def _record_outside(tmp_path: Path, record_id: str) -> Path:
    builder = RowBuilder(record_id, "a secret from outside the home", 1_700_000_000_000)
    builder.end()
    outside = tmp_path / "outside" / f"{record_id}.jsonl"
    outside.parent.mkdir()
    outside.write_bytes(encode(builder.rows))
    return outside


def test_a_symlink_in_records_never_serves_a_file_outside_the_home(
    panel: RunningPanel, home: Path, tmp_path: Path
) -> None:
    """Spec: docs/guide/panel.md (issue 8)."""
    record_id = "1700000000001"
    (home / "records" / f"{record_id}.jsonl").symlink_to(_record_outside(tmp_path, record_id))
    index = httpx.get(f"{panel.base}{API}/records-index", headers=panel.headers, timeout=10)
    assert index.status_code == 200
    assert "secret" not in index.text
    assert [e["id"] for e in index.json()["closed"]] == []
    one = httpx.get(f"{panel.base}{API}/records/{record_id}", headers=panel.headers, timeout=10)
    assert one.status_code == 404 and "secret" not in one.text
    typeset = httpx.get(
        f"{panel.base}{API}/record-typeset/{record_id}", headers=panel.headers, timeout=10
    )
    assert typeset.status_code == 404


def test_a_symlink_as_the_open_record_is_never_followed(
    panel: RunningPanel, home: Path, tmp_path: Path
) -> None:
    """Spec: docs/guide/panel.md (issue 8)."""
    (home / "open-record.jsonl").symlink_to(_record_outside(tmp_path, "1700000000002"))
    index = httpx.get(f"{panel.base}{API}/records-index", headers=panel.headers, timeout=10)
    assert index.status_code == 200 and "secret" not in index.text
    one = httpx.get(f"{panel.base}{API}/records/1700000000002", headers=panel.headers, timeout=10)
    assert one.status_code == 404 and "secret" not in one.text


@pytest.mark.parametrize("where", ["records/1700000000003.jsonl", "open-record.jsonl"])
def test_a_fifo_in_the_home_is_unreadable_and_never_hangs_the_panel(
    panel: RunningPanel, home: Path, where: str
) -> None:
    """A FIFO named like a record is reported unreadable (or left out), never waited on.
    Spec: docs/guide/panel.md (issue 8)."""
    write_closed(home, RowBuilder("1700000000000", "a real one", 1_700_000_000_000))
    os.mkfifo(home / where)
    index = httpx.get(f"{panel.base}{API}/records-index", headers=panel.headers, timeout=3)
    assert index.status_code == 200
    body = index.json()
    assert [e["id"] for e in body["closed"]] == ["1700000000000"]
    assert body["open"] is None
    one = httpx.get(f"{panel.base}{API}/records/1700000000003", headers=panel.headers, timeout=3)
    assert one.status_code == 404
    _assert_panel_still_usable(panel)


HOSTILE_TARGETS = [
    "/static/../../../../../../etc/passwd",
    "/static/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
    "/static/..%2f..%2f..%2f..%2f..%2fetc%2fpasswd",
    "/static//etc/passwd",
    f"{API}/records/..%2f..%2fsecret",
    f"{API}/records/../../secret",
    f"{API}/records/%2e%2e%2f%2e%2e%2fsecret",
    f"{API}/record-typeset/..%2fsecret",
    f"{API}/records/1700000000000%00",
    "/../../../etc/passwd",
]


def test_hostile_paths_never_leave_the_panel_s_folders(panel: RunningPanel, home: Path) -> None:
    """Raw request targets (no client normalises them) that try to climb out of static/ or
    records/ are refused; neither /etc/passwd nor a file beside the home is ever served.
    Spec: docs/guide/panel.md (issue 8)."""
    (home.parent / "secret.jsonl").write_text("outside the home")
    (home.parent / "secret").write_text("outside the home")
    for target in HOSTILE_TARGETS:
        with socket.create_connection(("127.0.0.1", panel.port), timeout=30) as sock:
            sock.sendall(
                f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1:{panel.port}\r\n{panel.auth_line}"
                "Connection: close\r\n\r\n".encode()
            )
            answer = _read_all(sock)
        head, _, body = answer.partition(b"\r\n\r\n")
        status = int(head.split()[1])
        assert status in (400, 404), (target, head)
        assert b"root:" not in body and b"outside the home" not in body, target
        _assert_no_machine_path(body.decode(errors="replace"), home)


def _inject(app: Any, method: str, failure: Exception) -> None:
    def fail(*args: object, **kwargs: object) -> Any:
        raise failure

    setattr(app.state.archive, method, fail)


def test_panel_error_bodies_name_no_path_of_this_machine(tmp_path: Path) -> None:
    """A storage fault, carrying the file's absolute path as an OSError does, reaches the
    page as one sentence without it; the run log is where the details go.
    Spec: docs/guide/panel.md (issue 8)."""
    home = tmp_path / "a-very-recognisable-home"
    (home / "state.json").mkdir(parents=True)  # a directory where the settings file goes
    write_closed(home, RowBuilder("1700000000000", "one", 1_700_000_000_000))
    app = panel_app(home)
    record_file = str(home / "records" / "1700000000000.jsonl")
    _inject(app, "delete", PermissionError(13, "Permission denied", record_file))
    _inject(app, "index_json", OSError(5, "Input/output error", record_file))
    with signed_in(app, raise_server_exceptions=False) as c:
        answers = [
            c.put(f"{API}/settings", json={"panel": {"showAll": True}}),
            c.delete(f"{API}/records/1700000000000"),
            c.get(f"{API}/records-index"),
            c.post(f"{API}/records-index", json={}),
            c.get(f"{API}/records/1700000000000/..%2f..%2fstate.json"),
            c.get("/static/nothing-here.js"),
        ]
    for answer in answers:
        assert answer.status_code >= 400, (answer.request.url, answer.status_code)
        assert "a-very-recognisable-home" not in answer.text, answer.text
        _assert_no_machine_path(answer.text, home)
        assert "Traceback" not in answer.text
    assert [a.status_code for a in answers[:3]] == [500, 500, 500]
    assert answers[2].json()["error"].startswith("The panel could not answer this request")
