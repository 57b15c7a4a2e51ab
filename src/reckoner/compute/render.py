"""Text a person reads: receipt.md from receipt.json, and output trimmed for a response. Pure."""

from __future__ import annotations

from typing import Any

STREAM_CAP_BYTES = 32 * 1024
"""Each stream's share of a response: stdout and stderr together stay within 64 KB."""

PARTIAL_CHARS = 2000
"""How much of each stream a timed-out run keeps in its receipt."""


def trimmed(size: int, head: bytes, tail: bytes, cap: int = STREAM_CAP_BYTES) -> tuple[str, bool]:
    """An output as text within ``cap`` bytes, from its two ends, and whether it was cut.

    ``tail`` is empty when ``head`` holds the whole output.
    """
    if not tail and size <= cap:
        return head.decode("utf-8", "replace"), False
    half = (cap - 100) // 2  # the marker between head and tail stays under 100 bytes
    shown_head = head[:half].decode("utf-8", "ignore")
    shown_tail = (tail or head)[-half:].decode("utf-8", "ignore")
    omitted = size - 2 * half
    return (
        f"{shown_head}\n[... {omitted} bytes omitted; the whole output is in the archive ...]"
        f"\n{shown_tail}",
        True,
    )


def last_lines(text: str, lines: int = 5, chars: int = 600) -> str:
    """The end of an output, as a record row keeps it."""
    kept = "\n".join(text.rstrip("\n").splitlines()[-lines:])
    return kept[-chars:]


def _fence(text: str, language: str = "") -> str:
    fence = "```"
    while fence in text:
        fence += "`"
    return f"{fence}{language}\n{text.rstrip()}\n{fence}"


def receipt_markdown(receipt: dict[str, Any], script: str | None, stdout: str | None) -> str:
    """receipt.md: the same facts as receipt.json, for a reader; the same input, the same text."""
    lines = [*_fact_lines(receipt), *_rerun_lines(receipt)]
    warnings = receipt.get("warnings") or []
    if warnings:
        lines += ["", "## Warnings", ""]
        lines += [f"- {w.get('code')}: {w.get('message')}" for w in warnings]
    lines += _captured_lines(receipt.get("captured") or [])
    if script is not None:
        lines += ["", "## Script", "", _fence(script)]
    if stdout is not None:
        lines += ["", "## Output (stdout, its end)", "", _fence(stdout)]
    return "\n".join(lines) + "\n"


def _fact_lines(receipt: dict[str, Any]) -> list[str]:
    """The title and the list of what ran, on what, and how it ended."""
    engine = receipt.get("engineInfo") or {}
    lines = [
        f"# Compute receipt {receipt.get('runId')} (attempt {receipt.get('attempt')})",
        "",
        f"- engine: {receipt.get('engine')} {engine.get('version') or ''}".rstrip(),
        f"- program: {engine.get('path')} (found via {engine.get('foundVia')}"
        + (f", started as {engine['launcher']})" if engine.get("launcher") else ")"),
        f"- mode: {receipt.get('mode')}",
        f"- script: {receipt.get('scriptPath')}",
        f"- sha256: {receipt.get('scriptHash')}",
        f"- stdout.txt sha256: {receipt.get('stdoutHash')}",
        f"- stderr.txt sha256: {receipt.get('stderrHash')}",
        f"- exit: {receipt.get('exit')}; timed out: {str(receipt.get('timedOut')).lower()}; "
        f"duration: {receipt.get('durationMs')} ms",
        f"- network: {receipt.get('network')}",
        f"- script changed since the last receipt: {str(receipt.get('scriptChanged')).lower()}",
        f"- script changed during the run: {str(receipt.get('scriptChangedDuringRun')).lower()}",
    ]
    if receipt.get("sourceFile"):
        lines.append(f"- source file: {receipt['sourceFile']}")
    if receipt.get("packages"):
        lines.append(f"- packages: {', '.join(receipt['packages'])}")
    cli = receipt.get("cli") or {}
    if cli.get("argvPath"):
        lines.append(f"- cli argv: {cli['argvPath']} (sha256 {cli.get('argvHash')})")
    if cli.get("stdinPath"):
        lines.append(f"- cli stdin: {cli['stdinPath']} (sha256 {cli.get('stdinHash')})")
    return lines


def _rerun_lines(receipt: dict[str, Any]) -> list[str]:
    """The command line that runs it again, in its cwd (and its stdin, for cli)."""
    cli = receipt.get("cli") or {}
    rerun = " ".join(_quoted(a) for a in receipt.get("argv") or [])
    if cli.get("stdinPath"):
        rerun += f" < {_quoted(cli['stdinPath'])}"
    return ["", "## Rerun", "", f"cwd: `{receipt.get('cwd')}`", "", _fence(rerun, "sh")]


def _captured_lines(captured: list[dict[str, Any]]) -> list[str]:
    """Each captured file with its hash, or why it was not captured."""
    if not captured:
        return []
    lines = ["", "## Captured files", ""]
    for item in captured:
        if item.get("sha256"):
            state = f"sha256 {item.get('sha256')}"
        elif item.get("refused"):
            state = f"refused: {item.get('refused')}"
        else:
            state = "missing after the run"
        lines.append(f"- {item.get('path')}: {state}")
    return lines


def _quoted(arg: str) -> str:
    """An argument as a POSIX shell would need it, for the reader only; nothing runs a shell."""
    if arg and all(c.isalnum() or c in "-_./=:,+@%" for c in arg):
        return arg
    return "'" + arg.replace("'", "'\\''") + "'"
