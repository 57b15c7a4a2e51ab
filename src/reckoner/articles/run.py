"""One article job run in the terminal: the settings as defaults, a progress line per phase,
the path and the audit warnings at the end (``reckoner article`` and ``reckoner demo``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reckoner.articles.jobs import Job, JobRequest, JobRunner, canonical_format
from reckoner.articles.settings import generation_view
from reckoner.articles.writers.choose import writer_for
from reckoner.storage.record_archive import RecordArchive
from reckoner.storage.state_file import GENERATION_KEY, StateFile


@dataclass(frozen=True, slots=True)
class ArticleAsk:
    """One article as the command line asks for it; ``None`` is "not given" (the remembered
    setting then applies), so a flag's ``False`` still overrides."""

    record_id: str
    format_name: str
    directory: str | None = None
    file_name: str | None = None
    language: str | None = None
    writer: str | None = None
    model: str | None = None
    base_url: str | None = None
    compile_pdf: bool | None = None


def run_article_job(archive: RecordArchive, ask: ArticleAsk, console: Any = None) -> Job:
    """Run one job to its end; what the command line leaves out comes from the settings
    (``REMEMBERED`` names them; the folder: the format's remembered one, else the current
    directory)."""
    settings = generation_view(StateFile(archive.layout).subtree(GENERATION_KEY), str(Path.cwd()))
    try:
        chosen = settings[canonical_format(ask.format_name)]
    except ValueError:
        chosen = settings["markdown"]
    writer_settings = settings["writer"]
    kind = ask.writer or writer_settings["kind"]
    # The remembered model and URL belong to the remembered writer: another writer named on
    # the command line starts from its own defaults, not from a model of another provider.
    same_writer = kind == writer_settings["kind"]
    request = JobRequest(
        record_id=ask.record_id,
        format=ask.format_name,
        directory=ask.directory or chosen["directory"],
        file_name=ask.file_name,
        language=ask.language or chosen["language"],
        compile=bool(chosen.get("compile", False)) if ask.compile_pdf is None else ask.compile_pdf,
        writer=kind,
        model=ask.model or (writer_settings["model"] if same_writer else None),
        # The command line is the user's own, like the environment: its URL is configured.
        configured_base_url=ask.base_url or (writer_settings["baseUrl"] if same_writer else None),
    )
    shown: set[str] = set()

    def progress(job: Job) -> None:
        if console is not None and job.status == "running" and job.phase not in shown:
            shown.add(job.phase)
            console.print(f"[dim]{job.percent:>3}%  {job.phase}[/dim]")

    return JobRunner(archive, writer_for).run(request, progress)


def print_job(job: Job, out: Any, err: Any) -> int:
    """The outcome: the path on stdout, warnings and failures on stderr; 0 when done cleanly."""
    from rich.markup import escape

    if job.status != "done":
        err.print(f"reckoner: {escape(job.error or job.status)}")
        return 1
    out.print(escape(job.path or ""), soft_wrap=True)
    if job.pdf:
        out.print(escape(job.pdf), soft_wrap=True)
    for warning in job.snapshot()["warnings"]:
        err.print(f"[yellow]warning: {escape(warning)}[/yellow]")
    if job.compile_error:
        err.print(f"[red]{escape(job.compile_error)}[/red]")
        if job.compile_log:
            err.print(escape(job.compile_log))
        return 1
    return 0
