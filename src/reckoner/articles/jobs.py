"""Article jobs: prepare, generate, write, compile, with a percent, cancellable at any phase.

A job ends in one of three states: ``done`` (with the path, the audit and, for LaTeX, the
compile outcome), ``failed`` (one sentence, nothing half-written left behind) or
``cancelled``. The panel runs jobs on threads and polls them; the CLI runs one in place.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reckoner.articles import compiler, files
from reckoner.articles.audit import Finding, audit_job
from reckoner.articles.fact_model import ArticleRefusal, Facts
from reckoner.articles.facts import collect_facts
from reckoner.articles.language import resolve_language
from reckoner.articles.latex import BodyRefusal, check_body, shell
from reckoner.articles.settings import format_named
from reckoner.articles.writers.base import Draft, Writer, WriterCancelled, WriterFailure
from reckoner.storage.record_archive import RecordArchive
from reckoner.storage.record_format import is_valid_record_id
from reckoner.wire import dumps

FORMATS = ("markdown", "latex")
PHASES = ("prepare", "generate", "write", "compile")
# Where each phase starts on the progress bar.
_PHASE_START = {"prepare": 0, "generate": 10, "write": 70, "compile": 80}
KEPT_JOBS = 50


class JobCancelled(Exception):
    """Raised between steps once a cancel was asked for."""


def canonical_format(requested: object) -> str:
    """``markdown`` or ``latex`` for any spelling of either; any other is refused."""
    named = format_named(requested)
    if named is not None:
        return named
    raise ArticleRefusal(
        f"The format {requested!r} is not one of markdown (md) or latex (tex); pick one of those."
    )


@dataclass(frozen=True)
class JobRequest:
    record_id: str
    format: str
    directory: str
    file_name: str | None = None
    language: str = "auto"
    compile: bool = False
    writer: str = "template"
    model: str | None = None
    base_url: str | None = None
    """A base URL typed for this job only; the environment's key is never sent to it unless
    it is also a configured one (reckoner.providers.config)."""
    configured_base_url: str | None = None
    """The base URL the user configured: the saved setting, or the command line's."""
    api_key: str | None = field(default=None, repr=False)
    """A key typed for this job with ``base_url``: held in memory only, never stored."""


WriterFactory = Callable[[JobRequest], Writer]


@dataclass
class Job:
    """One job's progress and outcome, as ``generate-progress`` reports it."""

    id: str
    request: JobRequest
    status: str = "running"
    phase: str = "prepare"
    percent: int = 0
    path: str | None = None
    pdf: str | None = None
    error: str | None = None
    language: str | None = None
    writer: str | None = None
    prompt_version: str | None = None
    attempts: int = 0
    # Every finding of the audit: each is a warning, so "every number matches" is shown
    # only when this is empty.
    unmatched: list[Finding] = field(default_factory=list)
    compile_error: str | None = None
    compile_log: str | None = None
    preview: str | None = None
    started: float = field(default_factory=time.monotonic)
    cancel_event: threading.Event = field(default_factory=threading.Event)

    def snapshot(self) -> dict[str, Any]:
        return {
            "jobId": self.id,
            "recordId": self.request.record_id,
            "format": self.request.format,
            "status": self.status,
            "phase": self.phase,
            "percent": self.percent,
            "path": self.path,
            "pdf": self.pdf,
            "error": self.error,
            "language": self.language,
            "writer": self.writer,
            "promptVersion": self.prompt_version,
            "attempts": self.attempts,
            "audit": [finding.as_json() for finding in self.unmatched],
            "warnings": [finding.sentence() for finding in self.unmatched],
            "compileError": self.compile_error,
            "compileLog": self.compile_log,
            "preview": self.preview,
        }


class JobRunner:
    """Runs article jobs over one home's records."""

    def __init__(
        self,
        archive: RecordArchive,
        writer_factory: WriterFactory,
        note: Callable[..., None] | None = None,
    ) -> None:
        self.archive = archive
        self.writer_factory = writer_factory
        self.note = note or (lambda level, message, **fields: None)
        self._jobs: dict[str, Job] = {}
        self._lock = threading.Lock()
        self._ids = itertools.count(1)

    def _new_job(self, request: JobRequest) -> Job:
        with self._lock:
            job = Job(id=f"job-{next(self._ids)}", request=request)
            self._jobs[job.id] = job
            finished = [j for j in self._jobs.values() if j.status != "running"]
            for old in finished[: max(0, len(self._jobs) - KEPT_JOBS)]:
                del self._jobs[old.id]
        return job

    def start(self, request: JobRequest) -> Job:
        """A job running on its own thread."""
        job = self._new_job(request)
        threading.Thread(target=self._run, args=(job, None), daemon=True).start()
        return job

    def run(self, request: JobRequest, on_progress: Callable[[Job], None] | None = None) -> Job:
        """A job run to its end on this thread (the CLI)."""
        job = self._new_job(request)
        self._run(job, on_progress)
        return job

    def get(self, job_id: str) -> Job | None:
        with self._lock:
            return self._jobs.get(job_id)

    def produced(self) -> set[str]:
        """The files the finished jobs wrote (what the panel may reveal)."""
        with self._lock:
            jobs = list(self._jobs.values())
        return {path for job in jobs for path in (job.path, job.pdf) if path}

    def cancel(self, job_id: str) -> Job | None:
        job = self.get(job_id)
        if job is not None:
            job.cancel_event.set()
        return job

    # -- the phases --------------------------------------------------------------------

    def _run(self, job: Job, on_progress: Callable[[Job], None] | None) -> None:
        def progress(phase: str, percent: int) -> None:
            if job.cancel_event.is_set():
                raise JobCancelled
            job.phase, job.percent = phase, percent
            if on_progress is not None:
                on_progress(job)

        self.note("info", "article: job started", job=job.id, record=job.request.record_id)
        try:
            self._phases(job, progress)
        except (JobCancelled, WriterCancelled):
            job.status = "cancelled"
            job.error = "The job was cancelled; nothing was written."
        except (ArticleRefusal, BodyRefusal, WriterFailure) as refusal:
            job.status, job.error = "failed", str(refusal)
        except compiler.CompileCancelled:
            job.status = "cancelled"
            job.error = "The job was cancelled during the compile; nothing was written."
        except OSError as failure:
            job.status = "failed"
            job.error = (
                f"The article could not be written "
                f"({failure.strerror or type(failure).__name__}"
                f"{': ' + str(failure.filename) if failure.filename else ''}); "
                "check the folder's space and permissions."
            )
        except Exception as failure:  # one sentence for the user; the log keeps the rest
            self.note("error", "article: job crashed", job=job.id, error=repr(failure))
            job.status = "failed"
            job.error = (
                f"The article job failed unexpectedly ({type(failure).__name__}); see the log."
            )
        else:
            job.status, job.percent = "done", 100
        self.note(
            "info",
            "article: job ended",
            job=job.id,
            status=job.status,
            path=job.path,
            error=job.error,
        )
        if on_progress is not None:
            on_progress(job)

    def _phases(self, job: Job, progress: Callable[[str, int], None]) -> None:
        progress("prepare", _PHASE_START["prepare"])
        request = job.request
        format_name = canonical_format(request.format)
        _check_record_id(request.record_id)
        # The name and the folder are refused before anything is written or asked of a model.
        stem = files.file_stem(request.file_name, request.record_id, format_name)
        directory = files.output_directory(request.directory)
        facts = self._facts(request.record_id)
        language = job.language = resolve_language(request.language, facts)
        writer = self.writer_factory(request)

        progress("generate", _PHASE_START["generate"])
        draft: Draft = writer.write(
            facts, language, "tex" if format_name == "latex" else "md", job.cancel_event.is_set
        )
        job.writer, job.prompt_version, job.attempts = (
            draft.writer,
            draft.prompt_version,
            draft.attempts,
        )
        # The record's own prose first (it is the same whoever writes), then the article's.
        job.unmatched = audit_job(draft.body, facts, model=draft.prompt_version is not None)

        progress("write", _PHASE_START["write"])
        sidecar = dumps(
            {
                "record": facts.record_id,
                "writer": draft.writer,
                "promptVersion": draft.prompt_version,
                "language": language,
                "unmatched": [finding.as_json() for finding in job.unmatched],
            }
        )
        if format_name == "markdown":
            job.path = str(files.write_markdown(directory, stem, draft.body, sidecar))
            job.preview = draft.body
            return
        # Whoever wrote it, no .tex reaches the folder (or a compile) without passing the
        # allow-list, so the file the user may compile by hand is one the check passed.
        check_body(draft.body)
        source = shell(draft.body, language)
        _place_latex(job, source, sidecar, (directory, stem), progress)

    def _facts(self, record_id: str) -> Facts:
        """The facts of the record, refused in one sentence if the home holds none such."""
        view = self.archive.read(record_id)
        if view is None:
            raise ArticleRefusal(
                f"There is no readable record {record_id!r} in this home; check the id "
                "with `reckoner records`."
            )
        return collect_facts(view.id, view.rows, is_open=view.is_open)


def _check_record_id(record_id: str) -> None:
    if not is_valid_record_id(record_id):
        raise ArticleRefusal(
            f"{record_id!r} is not a record identifier; an identifier is the "
            "millisecond clock reading, optionally followed by -2, -3 and so on."
        )


def _place_latex(
    job: Job,
    source: str,
    sidecar: bytes,
    place: tuple[Path, str],
    progress: Callable[[str, int], None],
) -> None:
    """Stage, compile when asked, and place a checked LaTeX article in (directory, stem)."""
    request = job.request
    directory, stem = place
    staged = files.stage_latex(directory, stem, source, sidecar)
    try:
        if request.compile:
            progress("compile", _PHASE_START["compile"])
            outcome = compiler.compile_pdf(staged.tex, job.cancel_event.is_set)
            if not outcome.ok:
                job.compile_error, job.compile_log = outcome.sentence, outcome.log_tail
        progress("write", 95)
        tex = files.place_latex(staged)
    except BaseException:
        files.discard(staged)
        raise
    job.path = str(tex)
    # The panel shows the source when there is no PDF to draw (issue 23).
    job.preview = source
    pdf = tex.with_suffix(".pdf")
    if request.compile and job.compile_error is None and pdf.is_file():
        job.pdf = str(pdf)
