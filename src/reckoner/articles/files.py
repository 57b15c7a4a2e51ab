"""The output directory: the one module that checks, browses and writes article files.

Nothing is half-written: every file is written under a marked temporary name in the target
directory and then linked or renamed into place, through ``reckoner.host.files`` from a
handle on the chosen folder (no link followed below it). The sweep removes only temporaries
this program made whose process is gone, never a file that merely looks like one. An
existing article is never overwritten: a taken name gets the next free number
(``reckoner-1a2b3c4d-2.md``). A Markdown article is written flat; a LaTeX article goes into
a folder named after the file.
"""

from __future__ import annotations

import contextlib
import errno
import os
from dataclasses import dataclass
from pathlib import Path

from reckoner.articles.fact_model import ArticleRefusal
from reckoner.host.files import Folder, temporary_name

EXTENSIONS = {"markdown": ".md", "latex": ".tex"}
MAX_NAME_CHARS = 120
MAX_NUMBERED = 999
_RESERVED = frozenset('<>:"|?*')
_WINDOWS_DEVICES = frozenset(
    {
        "con",
        "prn",
        "aux",
        "nul",
        *(f"com{n}" for n in range(1, 10)),
        *(f"lpt{n}" for n in range(1, 10)),
    }
)
LIST_DIRS_LIMIT = 500
# Linux's PATH_MAX: no longer path names a directory the browser could list.
MAX_PATH_CHARS = 4096


def default_name(record_id: str) -> str:
    return f"reckoner-{record_id[:8]}"


def file_stem(requested: str | None, record_id: str, format_name: str) -> str:
    """The file name without its extension, or one sentence saying what is wrong with it."""
    name = (requested or "").strip() or default_name(record_id)
    for extension in (*EXTENSIONS.values(), ".markdown", ".pdf"):
        if name.lower().endswith(extension) and len(name) > len(extension):
            name = name[: -len(extension)]
            break
    if "/" in name or "\\" in name:
        raise ArticleRefusal(
            f"The file name {requested!r} contains a path separator; give a bare name and "
            "choose the folder as the output directory (the dialog's directory, or --out)."
        )
    bad = sorted({char for char in name if char in _RESERVED or ord(char) < 32})
    if bad:
        shown = ", ".join(repr(char) for char in bad)
        raise ArticleRefusal(
            f"The file name {requested!r} contains reserved characters ({shown}); use "
            "letters, digits, spaces, dots, dashes and underscores."
        )
    if name in (".", "..") or name.startswith(".") or name.rstrip(" .") != name:
        raise ArticleRefusal(
            f"The file name {requested!r} starts with a dot or ends with a dot or a space; "
            "such files are hidden or unusable on some systems, so choose another name."
        )
    if name.lower().split(".")[0] in _WINDOWS_DEVICES:
        raise ArticleRefusal(
            f"The file name {requested!r} is a reserved device name on Windows; choose another."
        )
    if len(name) > MAX_NAME_CHARS:
        raise ArticleRefusal(
            f"The file name is {len(name)} characters long, over the limit of "
            f"{MAX_NAME_CHARS}; shorten it."
        )
    return name


def output_directory(directory: str | None) -> Path:
    """The checked, absolute output directory (``~`` expanded), or one sentence."""
    if not directory or not str(directory).strip():
        raise ArticleRefusal(
            "No output directory was given; choose the folder the article should go into."
        )
    path = Path(os.path.expanduser(str(directory).strip()))
    if not path.is_absolute():
        raise ArticleRefusal(
            f"The output directory {directory!r} is not an absolute path; give the full path, "
            "for example /home/you/articles."
        )
    if not path.exists():
        raise ArticleRefusal(
            f"The output directory {str(path)!r} does not exist; create it or choose another."
        )
    if not path.is_dir():
        raise ArticleRefusal(
            f"The output path {str(path)!r} is a file, not a directory; choose a folder."
        )
    try:
        with Folder.open(str(path)) as folder:
            folder.sweep_temporaries()
            folder.discard(folder.stage(b""))  # can a file be made here at all
    except OSError as failure:
        raise ArticleRefusal(
            f"The output directory {str(path)!r} is not writable "
            f"({failure.strerror or type(failure).__name__}); choose a folder you can write to."
        ) from None
    return path


def sweep_stale(directory: Path) -> list[str]:
    """Remove what a killed job of ours left half-written: our marked temporaries whose
    process is gone, and nothing else."""
    try:
        with Folder.open(str(directory)) as folder:
            return folder.sweep_temporaries()
    except OSError:
        return []


def ensure_directory(path: Path) -> Path:
    """A folder the caller owns (the demo's), created when missing."""
    path.mkdir(parents=True, exist_ok=True)
    return path


def _numbered(stem: str, number: int) -> str:
    return stem if number == 1 else f"{stem}-{number}"


@dataclass(frozen=True)
class Staged:
    """A LaTeX article's folder while it is being written and compiled, not yet in place."""

    directory: Path
    stem: str
    folder: Path

    @property
    def tex(self) -> Path:
        return self.folder / f"{self.stem}.tex"


def write_markdown(directory: Path, stem: str, text: str, sidecar: bytes) -> Path:
    """``<stem>.md`` and ``<stem>.audit.json`` in ``directory``, each under a free number."""
    with Folder.open(str(directory)) as folder:
        article_temp = folder.stage(text.encode("utf-8"))
        try:
            audit_temp = folder.stage(sidecar)
        except BaseException:
            folder.discard(article_temp)
            raise
        try:
            for number in range(1, MAX_NUMBERED + 1):
                name = _numbered(stem, number)
                if folder.exists(f"{name}.audit.json"):
                    continue
                # link() refuses an existing name, so a file that appeared meanwhile stays.
                try:
                    folder.link(article_temp, f"{name}.md")
                except FileExistsError:
                    continue
                try:
                    folder.link(audit_temp, f"{name}.audit.json")
                except FileExistsError:
                    folder.discard(f"{name}.md")
                    continue
                folder.sync()
                return directory / f"{name}.md"
            raise ArticleRefusal(_all_taken(directory, stem, ".md"))
        finally:
            folder.discard(article_temp)
            folder.discard(audit_temp)


def stage_latex(directory: Path, stem: str, tex: str, sidecar: bytes) -> Staged:
    """A hidden folder in ``directory`` holding ``<stem>.tex`` and its audit sidecar."""
    name = temporary_name()
    with Folder.open(str(directory)) as folder:
        folder.make_new_folder(name)
        staged = Staged(directory, stem, directory / name)
        try:
            with folder.sub(name) as inside:
                inside.create_new(f"{stem}.tex", tex.encode("utf-8"))
                inside.create_new(f"{stem}.audit.json", sidecar)
        except BaseException:
            discard(staged)
            raise
    return staged


def place_latex(staged: Staged) -> Path:
    """Rename the staged folder to ``<stem>`` (or the next free number); the ``.tex`` path."""
    current = staged.stem
    with Folder.open(str(staged.directory)) as folder:
        for number in range(1, MAX_NUMBERED + 1):
            name = _numbered(staged.stem, number)
            if folder.exists(name):
                continue
            if name != current:
                _rename_inside(folder, staged.folder.name, current, name)
                current = name
            try:
                folder.rename_folder(staged.folder.name, name)
            except OSError as failure:
                if failure.errno in (errno.EEXIST, errno.ENOTEMPTY):
                    continue
                raise
            return staged.directory / name / f"{name}.tex"
    raise ArticleRefusal(_all_taken(staged.directory, staged.stem, ""))


def _rename_inside(folder: Folder, staged_name: str, old: str, new: str) -> None:
    """``<old>.*`` in the staged folder renamed to ``<new>.*`` (the article's number)."""
    with folder.sub(staged_name) as inside:
        for entry in inside.names():
            if entry.startswith(old + "."):
                inside.rename(entry, new + entry[len(old) :])


def discard(staged: Staged) -> None:
    with contextlib.suppress(OSError), Folder.open(str(staged.directory)) as folder:
        folder.remove_tree(staged.folder.name)


def _all_taken(directory: Path, stem: str, extension: str) -> str:
    return (
        f"{stem}{extension} and its numbered variants up to {MAX_NUMBERED} already exist in "
        f"{directory}; choose another name or folder."
    )


# -- the directory browser ----------------------------------------------------------------


def list_roots() -> list[dict[str, str]]:
    """Where the directory browser starts: the user's home and the file system root."""
    roots = [{"name": "Home", "path": str(Path.home())}, {"name": "/", "path": os.sep}]
    return [root for root in roots if os.path.isdir(root["path"])]


def browsed_path(directory: str) -> Path:
    """The absolute path the directory browser was asked for, or one sentence saying why it
    cannot be one; checked before the text is handed to the operating system."""
    if len(directory) > MAX_PATH_CHARS:
        raise ArticleRefusal(
            f"The directory path is {len(directory)} characters long, over the limit of "
            f"{MAX_PATH_CHARS}; start again from one of the roots."
        )
    if "\0" in directory:
        raise ArticleRefusal(
            "The directory path contains a NUL character, which no path can hold; start "
            "again from one of the roots."
        )
    path = Path(os.path.expanduser(directory))
    if not directory or not path.is_absolute():
        raise ArticleRefusal(
            f"The directory {directory!r} is not an absolute path; start from one of the roots."
        )
    return path


def list_dirs(directory: str) -> dict[str, object]:
    """The sub-directories of ``directory`` (names only, never file contents)."""
    path = browsed_path(directory)
    try:
        entries = list(os.scandir(path))
    except FileNotFoundError:
        raise ArticleRefusal(f"The directory {str(path)!r} does not exist.") from None
    except NotADirectoryError:
        raise ArticleRefusal(f"{str(path)!r} is a file, not a directory.") from None
    except OSError as failure:
        raise ArticleRefusal(
            f"The directory {str(path)!r} cannot be listed "
            f"({failure.strerror or type(failure).__name__})."
        ) from None
    names = []
    for entry in entries:
        with contextlib.suppress(OSError):
            if entry.is_dir() and not entry.name.startswith("."):
                names.append(entry.name)
    names.sort(key=str.lower)
    parent = str(path.parent) if path.parent != path else None
    return {
        "path": str(path),
        "parent": parent,
        "dirs": [{"name": name, "path": str(path / name)} for name in names[:LIST_DIRS_LIMIT]],
        "truncated": len(names) > LIST_DIRS_LIMIT,
    }


def article_folder(article: Path) -> Folder:
    """The folder holding a file a job wrote, opened with no link followed at its last step
    (a folder swapped for a link is refused); the caller closes it."""
    return Folder.open(str(article.parent))
