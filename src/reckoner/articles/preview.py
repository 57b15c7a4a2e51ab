"""A LaTeX article's preview: the first page of its compiled PDF as a PNG, made by
``pdftoppm`` through the one owner of child processes and cached beside the PDF.

The PDF and the cache are read and written through the article's folder handle
(``files.article_folder``): a name that is a link, or not a regular file, is refused, so a
preview never reads or writes outside the folder the job wrote. A PDF that makes pdftoppm
hang or print without end is cut at the deadline or the output cap, and the caller gets one
sentence. The cache is used while it is newer than the PDF (a recompile by hand redraws it).
"""

from __future__ import annotations

import stat
from pathlib import Path

from reckoner.articles import files
from reckoner.articles.fact_model import ArticleRefusal
from reckoner.host import processes
from reckoner.host.files import UnsafePath

PREVIEW_SUFFIX = ".preview.png"
PREVIEW_TIMEOUT_MS = 20_000
MAX_PREVIEW_BYTES = 8 * 1024 * 1024
# 80 dpi draws an A4 page about 660 px wide: legible in the dialog, small to cache.
_PDFTOPPM_ARGUMENTS = ("-png", "-f", "1", "-l", "1", "-r", "80", "-singlefile")
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def preview_png(pdf: Path, timeout_ms: int | None = None) -> bytes:
    """The PNG of ``pdf``'s first page, from the cache when it is fresh; ArticleRefusal
    (one sentence) when it cannot be made."""
    if pdf.suffix != ".pdf":
        raise ArticleRefusal(f"{pdf.name!r} is not a PDF; a preview is drawn from one.")
    cache = pdf.stem + PREVIEW_SUFFIX
    try:
        with files.article_folder(pdf) as folder:
            made = folder.stat(pdf.name)
            if not stat.S_ISREG(made.st_mode):
                raise UnsafePath(f"{pdf} is a symbolic link or not a regular file")
            if folder.exists(cache) and folder.stat(cache).st_mtime_ns >= made.st_mtime_ns:
                return folder.read(cache, MAX_PREVIEW_BYTES)
            png = _draw(folder.path, pdf.name, timeout_ms or PREVIEW_TIMEOUT_MS)
            folder.write_atomic(cache, png, durable=False)
            return png
    except UnsafePath as refusal:
        raise ArticleRefusal(
            f"The preview was refused: {refusal}; the panel previews only the files its job wrote."
        ) from None
    except FileNotFoundError:
        raise ArticleRefusal(
            f"{pdf} is gone; generate the article again to see its preview."
        ) from None


def _draw(folder: str, name: str, timeout_ms: int) -> bytes:
    program = processes.which("pdftoppm")
    if program is None:
        raise ArticleRefusal(
            "No pdftoppm was found on this machine, so the PDF's first page cannot be drawn; "
            "install poppler-utils or open the PDF itself."
        )
    # "./" keeps a name that starts with "-" from being read as an option.
    done = processes.run(
        [program, *_PDFTOPPM_ARGUMENTS, f"./{name}"],
        processes.RunSpec(cwd=folder, timeout_ms=timeout_ms, max_stream_bytes=MAX_PREVIEW_BYTES),
    )
    if done.timed_out:
        raise ArticleRefusal(
            f"pdftoppm did not draw the PDF's first page within {timeout_ms / 1000:g} s, so it "
            "was stopped; open the PDF itself."
        )
    if done.overflowed:
        raise ArticleRefusal(
            f"pdftoppm's output passed the cap of {MAX_PREVIEW_BYTES} bytes, so it was "
            "stopped; open the PDF itself."
        )
    if not done.spawned or done.exit != 0 or not done.stdout.startswith(_PNG_SIGNATURE):
        why = done.spawn_error or done.stderr.decode("utf-8", "replace").strip()[:200]
        raise ArticleRefusal(
            f"pdftoppm could not draw the PDF's first page ({why or f'exit {done.exit}'}); "
            "open the PDF itself."
        )
    return done.stdout
