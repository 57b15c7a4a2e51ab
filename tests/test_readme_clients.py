"""The README's "Connect an agent" snippets start a working server exactly as they say.

The section is read from README.md. Each stdio snippet is launched with the command and
arguments it gives (the `reckoner` script resolved on a PATH that holds this environment's
scripts; `uvx --from reckoner-mcp` and the checkout's `uvx --from /path/to/checkout` both run
this checkout through the real uvx; the home moved to a temp dir via RECKONER_HOME); each
HTTP snippet is started on a free port in place of the one it names, with the environment
its `export` lines make (run by sh as written), and its client sends the headers the snippet
names, variables expanded.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

ROOT = Path(__file__).resolve().parent.parent
SECTION = "## Connect an agent"
CLIENTS = ("Claude Desktop", "Claude Code", "Cursor", "Any other MCP client")


def section_text() -> str:
    text = (ROOT / "README.md").read_text("utf-8")
    start = text.find(SECTION)
    assert start >= 0, "README.md has no 'Connect an agent' section"
    rest = text[start + len(SECTION) :]
    end = re.search(r"^## ", rest, re.M)
    return rest if end is None else rest[: end.start()]


@dataclass
class Snippet:
    client: str
    kind: str  # "stdio" or "http"
    command: list[str]
    url: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    exports: list[str] = field(default_factory=list)

    @property
    def id(self) -> str:
        return f"{self.client}: {' '.join(self.command) or self.url}"


def _subsections(text: str) -> dict[str, str]:
    parts = re.split(r"^### (.+)$", text, flags=re.M)
    return {parts[i].strip(): parts[i + 1] for i in range(1, len(parts), 2)}


def _http_add(client: str, words: list[str], serve: list[str], exports: list[str]) -> Snippet:
    """``claude mcp add --transport http NAME URL --header "K: V"...`` as an HTTP snippet."""
    url = next(word for word in words if word.startswith("http://"))
    headers = dict(
        words[at + 1].split(": ", 1) for at, word in enumerate(words) if word == "--header"
    )
    return Snippet(client, "http", serve, url, headers, exports)


def parse_snippets() -> list[Snippet]:
    snippets: list[Snippet] = []
    for client, body in _subsections(section_text()).items():
        http_command: list[str] | None = None
        exports: list[str] = []
        for language, code in re.findall(r"```(\w+)\n(.*?)```", body, re.S):
            if language == "sh":
                for line in code.strip().splitlines():
                    words = shlex.split(line)
                    if words[:3] == ["claude", "mcp", "add"] and "--transport" in words:
                        assert http_command is not None, "an HTTP server without its command"
                        snippets.append(_http_add(client, words, http_command, exports))
                    elif words[:3] == ["claude", "mcp", "add"]:
                        snippets.append(Snippet(client, "stdio", words[words.index("--") + 1 :]))
                    elif words[:1] == ["export"]:
                        exports.append(line)
                    elif words[:2] == ["reckoner", "serve"] and "--http" in words:
                        http_command = words
                    elif words[:2] == ["reckoner", "serve"] or words[:1] == ["uvx"]:
                        snippets.append(Snippet(client, "stdio", words))
            elif language == "json":
                config: dict[str, Any] = json.loads(code)
                for entry in config["mcpServers"].values():
                    if "url" in entry:
                        assert http_command is not None, "an HTTP URL without its serve command"
                        snippets.append(
                            Snippet(
                                client,
                                "http",
                                http_command,
                                entry["url"],
                                entry.get("headers", {}),
                                exports,
                            )
                        )
                    else:
                        snippets.append(
                            Snippet(client, "stdio", [entry["command"], *entry.get("args", [])])
                        )
    return snippets


SNIPPETS = parse_snippets()


def test_every_client_has_a_section_with_a_snippet() -> None:
    """Claude Desktop, Claude Code, Cursor and generic MCP each get a configuration to paste."""
    assert {s.client for s in SNIPPETS} == set(CLIENTS)
    assert any(s.kind == "http" for s in SNIPPETS)


RELEASE = "reckoner-mcp"
CHECKOUT = "/path/to/checkout"


def test_the_client_snippets_run_the_pypi_distribution_through_uvx() -> None:
    """Each desktop client's first snippet is ``uvx --from reckoner-mcp reckoner serve``
    (the command is ``reckoner``, the package ``reckoner-mcp``), and a checkout's form is
    shown beside it."""
    for client in CLIENTS:
        first = next(s for s in SNIPPETS if s.client == client and s.kind == "stdio")
        assert first.command == ["uvx", "--from", RELEASE, "reckoner", "serve"], first.id
    froms = {s.command[2] for s in SNIPPETS if s.command[:2] == ["uvx", "--from"]}
    assert froms == {RELEASE, CHECKOUT}
    assert {s.client for s in SNIPPETS if CHECKOUT in s.command} >= {
        "Claude Desktop",
        "Claude Code",
    }


def _launchable(command: list[str]) -> list[str]:
    """The snippet's command as this test can run it: ``uvx --from reckoner-mcp`` and
    ``uvx --from /path/to/checkout`` both run this checkout (the release is built from it;
    PyPI's copy may be older or not published yet), every other word as written."""
    if command[0] != "uvx":
        return command
    assert command[1] == "--from" and command[2] in (RELEASE, CHECKOUT), command
    uv = os.environ.get("UV")  # `uv run` names its own binary; uvx stands beside it
    uvx = str(Path(uv).with_name("uvx")) if uv else shutil.which("uvx")
    assert uvx is not None, "uvx is not on PATH"
    return [uvx, "--from", str(ROOT), *command[3:]]


def _uv_environment() -> dict[str, str]:
    """What uv itself reads from the environment (its settings, the machine's certificates and
    proxies) and its cache, so a uvx snippet started with another HOME reaches the index as
    uv does here and reuses what is built."""
    passed = {
        name: value
        for name, value in os.environ.items()
        if name.startswith("UV_")
        or name in ("SSL_CERT_FILE", "SSL_CERT_DIR")
        or name.lower() in ("http_proxy", "https_proxy", "all_proxy", "no_proxy")
    }
    if "UV_CACHE_DIR" not in passed:
        found = subprocess.run(
            ["uv", "cache", "dir"], capture_output=True, text=True, timeout=30, check=True
        )
        passed["UV_CACHE_DIR"] = found.stdout.strip()
    return passed


def _scripts_path() -> str:
    # The `reckoner` console script of this environment, as `uv tool install` puts it on PATH.
    scripts = str(Path(sys.executable).parent)
    return scripts + os.pathsep + os.environ.get("PATH", "")


async def _handshake(client: Client) -> None:
    tools = await client.list_tools()
    assert len(tools.tools) == 6
    started = await client.call_tool("record_start", {"title": "snippet check"})
    assert started.structured_content == {"ok": True}
    ended = await client.call_tool("record_end", {})
    assert ended.structured_content == {"ok": True}


def _stdio_commands() -> dict[tuple[str, ...], list[str]]:
    """Each distinct stdio command of the section and the clients whose snippets give it:
    snippets that give the same words start the same server, so one launch checks them all."""
    commands: dict[tuple[str, ...], list[str]] = {}
    for snippet in SNIPPETS:
        if snippet.kind == "stdio":
            commands.setdefault(tuple(snippet.command), []).append(snippet.client)
    return commands


STDIO_COMMANDS = _stdio_commands()


@pytest.mark.parametrize(
    "command",
    [list(command) for command in STDIO_COMMANDS],
    ids=[f"{' '.join(c)} ({', '.join(dict.fromkeys(STDIO_COMMANDS[c]))})" for c in STDIO_COMMANDS],
)
def test_stdio_snippet_starts_the_server_as_written(command: list[str], tmp_path: Path) -> None:
    """Every stdio snippet's command, launched once for all the snippets that give it."""
    path = _scripts_path()
    launched = _launchable(command)
    executable = shutil.which(launched[0], path=path)
    assert executable is not None, f"{launched[0]} is not on PATH"
    params = StdioServerParameters(
        command=executable,
        args=launched[1:],
        env={"PATH": path, "RECKONER_HOME": str(tmp_path / "home"), **_uv_environment()},
    )

    async def main() -> None:
        async with Client(params) as client:
            await _handshake(client)

    anyio.run(main)
    assert (tmp_path / "home" / "records").is_dir()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _exported(exports: list[str]) -> dict[str, str]:
    """The variables the snippet's ``export`` lines set, run by sh exactly as written."""
    made: dict[str, str] = {}
    for line in exports:
        name = line.split()[1].split("=", 1)[0]
        result = subprocess.run(
            ["sh", "-c", f'{line}\nprintf %s "${name}"'],
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        )
        made[name] = result.stdout
    return made


def _expanded(headers: dict[str, str], env: dict[str, str]) -> dict[str, str]:
    """Header values with ``$NAME`` and ``${NAME}`` replaced, as the client or shell does."""

    def value(text: str) -> str:
        return re.sub(r"\$\{?(\w+)\}?", lambda m: env[m.group(1)], text)

    return {key: value(text) for key, text in headers.items()}


@pytest.mark.parametrize("snippet", [s for s in SNIPPETS if s.kind == "http"], ids=lambda s: s.id)
def test_http_snippet_serves_at_the_url_it_names(snippet: Snippet, tmp_path: Path) -> None:
    """Started with the environment the snippet exports, the server answers a client that
    sends the snippet's headers and refuses (401) one that sends none."""
    assert snippet.url is not None
    port = _free_port()
    named = str(snippet.command[snippet.command.index("--port") + 1])
    assert f":{named}/" in snippet.url
    command = [port_word if port_word != named else str(port) for port_word in snippet.command]
    url = snippet.url.replace(f":{named}/", f":{port}/")
    path = _scripts_path()
    executable = shutil.which(command[0], path=path)
    assert executable is not None
    exported = _exported(snippet.exports)
    headers = _expanded(snippet.headers, exported)
    process = subprocess.Popen(
        [executable, *command[1:]],
        env={**os.environ, **exported, "PATH": path, "RECKONER_HOME": str(tmp_path / "home")},
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert process.poll() is None, "the server exited"
                assert time.monotonic() < deadline, "the server never listened"
                time.sleep(0.1)

        async def main() -> None:
            transport = streamable_http_client(
                url, http_client=create_mcp_http_client(headers=headers)
            )
            async with Client(transport) as client:
                await _handshake(client)

        anyio.run(main)
        if headers:
            bare = httpx.post(url, json={}, headers={"accept": "application/json"}, timeout=30)
            assert bare.status_code == 401, bare.text
    finally:
        process.terminate()
        out, _ = process.communicate(timeout=30)
    assert out == b""


def test_the_three_client_configurations_run_at_once_on_the_default_home(
    tmp_path: Path,
) -> None:
    """Claude Desktop, Claude Code and Cursor, configured as the README says, all at once.

    No ``RECKONER_HOME`` and no ``--home``: each server resolves the default ``~/.reckoner``
    (``HOME`` points into the temp dir), takes its own lane and keeps its own record.
    Spec: docs/guide/mcp-clients.md (issue 9).
    """
    from contextlib import AsyncExitStack

    path = _scripts_path()
    snippets = [s for s in SNIPPETS if s.kind == "stdio" and s.client in CLIENTS[:3]]
    assert {s.client for s in snippets} == set(CLIENTS[:3])
    params = []
    for snippet in snippets:
        launched = _launchable(snippet.command)
        command = shutil.which(launched[0], path=path)
        assert command is not None
        params.append(
            StdioServerParameters(
                command=command,
                args=launched[1:],
                env={"PATH": path, "HOME": str(tmp_path), **_uv_environment()},
            )
        )

    async def session(client: Client, index: int) -> None:
        title = f"client {index}"
        assert (await client.call_tool("record_start", {"title": title})).structured_content == {
            "ok": True
        }
        for step in range(3):
            value = {"num": index * 10 + step, "dim": "volt"}
            set_call = await client.call_tool("set", {"name": "V", "value": value})
            assert set_call.structured_content == {
                "ok": True,
                "name": "V",
                "rev": step + 1,
                "value": {"num": index * 10 + step, "dim": [2, 1, -3, -1, 0, 0, 0]},
            }
            await anyio.sleep(0)
        assert (await client.call_tool("record_end", {})).structured_content == {"ok": True}

    async def main() -> None:
        async with AsyncExitStack() as stack:
            clients = [await stack.enter_async_context(Client(p)) for p in params]
            async with anyio.create_task_group() as group:
                for index, client in enumerate(clients):
                    group.start_soon(session, client, index)

    anyio.run(main)
    records = tmp_path / ".reckoner" / "records"
    titles = []
    for record in records.iterdir():
        rows = [json.loads(line) for line in record.read_text().splitlines()]
        titles.append(rows[1]["content"]["title"])
        assert [row["tool"] for row in rows[1:]] == [
            "record_start",
            "set",
            "set",
            "set",
            "record_end",
        ]
    assert sorted(titles) == [f"client {index}" for index in range(len(snippets))]
