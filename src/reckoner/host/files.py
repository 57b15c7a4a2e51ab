"""The one module that opens and writes the files a feature owns.

A feature folder is opened once as a directory handle; its own path may be resolved once,
but every name below it is opened relative to that handle, one component at a time, with
``O_NOFOLLOW``: a symbolic link met anywhere is refused at the moment of use, so nothing
checked earlier can be swapped for a link later. Names come from closed patterns the
caller gives. Writes are atomic (a marked temporary in the same folder, fsync, rename,
folder fsync); an append either lands whole or is cut back to the old length; so a call
either writes everything it acknowledges or changes nothing. Temporaries are named
``.reckoner-tmp-<pid>-<start>-<random>.part`` (the writing process's id and its start time
in clock ticks since boot), and a sweep removes only such files owned by this user whose
process is gone: never a file that merely looks stale. Reads stop at a byte limit.

The module loads only ``os`` and ``errno``: the pitfalls hook imports it and must start fast.
"""

from __future__ import annotations

import errno
import os

TYPE_CHECKING = False  # not typing's: the pitfalls hook imports this module
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import BinaryIO

    NamePattern = Callable[[str], object]
    """A closed pattern: truthy for the names it allows (``re.Pattern.fullmatch`` fits)."""

TEMPORARY_PREFIX = ".reckoner-tmp-"
TEMPORARY_SUFFIX = ".part"
_DIRECTORY_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_CHUNK = 1 << 20


class UnsafePath(OSError):
    """A path refused before anything was written: a link, a bad name or a wrong kind.

    ``str()`` is one sentence naming the path, the rule and the fix.
    """

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unsafe path"


def _refuse_link(shown: str) -> UnsafePath:
    return UnsafePath(
        f"{shown} is a symbolic link (or not a folder where one is needed); reckoner "
        "follows no link inside the folders it writes, so replace it with a real folder "
        "or file"
    )


def check_name(name: str, pattern: NamePattern, what: str = "name") -> str:
    """``name`` when it is one plain path component that ``pattern`` allows."""
    plain = bool(name) and name not in (".", "..") and "/" not in name and "\0" not in name
    if not plain or not pattern(name):
        raise UnsafePath(
            f"the {what} {name[:80]!r} is not an allowed name here; it must be one plain file "
            "name of the expected form, so it was not used as a path"
        )
    return name


def _components(relative: str) -> list[str]:
    parts = [part for part in relative.split("/") if part not in ("", ".")]
    if not parts or ".." in parts or "\0" in relative or relative.startswith("/"):
        raise UnsafePath(
            f"the path {relative[:80]!r} is not a relative path inside the folder; give one "
            "without '..' that stays inside it"
        )
    return parts


# -- temporaries and their owner ----------------------------------------------------------


def _start_time(pid: int) -> str | None:
    """The process's start time in clock ticks since boot, or None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            text = handle.read().decode("ascii", "replace")
    except OSError:
        return None
    # The command name (field 2) is in parentheses and may hold spaces or parentheses.
    fields = text[text.rfind(")") + 2 :].split()
    return fields[19] if len(fields) > 19 else None


_OWN_PID = os.getpid()
_OWN_START = _start_time(_OWN_PID) or "0"


def temporary_name() -> str:
    """A fresh temporary name carrying this process's marker."""
    pid = os.getpid()
    start = _OWN_START if pid == _OWN_PID else (_start_time(pid) or "0")
    return f"{TEMPORARY_PREFIX}{pid}-{start}-{os.urandom(6).hex()}{TEMPORARY_SUFFIX}"


def _marker(name: str) -> tuple[int, str] | None:
    """(pid, start time) of one of our temporary names, else None."""
    if not (name.startswith(TEMPORARY_PREFIX) and name.endswith(TEMPORARY_SUFFIX)):
        return None
    parts = name[len(TEMPORARY_PREFIX) : -len(TEMPORARY_SUFFIX)].split("-")
    if len(parts) != 3 or not (parts[0].isdigit() and parts[1].isdigit()):
        return None
    if len(parts[2]) != 12 or any(c not in "0123456789abcdef" for c in parts[2]):
        return None
    return int(parts[0]), parts[1]


def _writer_alive(pid: int, start: str) -> bool:
    now = _start_time(pid)
    if now is not None:
        return now == start  # the same pid with another start time is another process
    if os.path.isdir("/proc/self"):
        return False
    try:  # no /proc: the pid alone decides, erring towards keeping the file
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


# -- the folder --------------------------------------------------------------------------


class Folder:
    """An open directory handle of a feature folder (or of a folder below one)."""

    __slots__ = ("fd", "path")

    def __init__(self, fd: int, path: str) -> None:
        self.fd = fd
        self.path = path

    @classmethod
    def open(cls, path: str, *, create: bool = False) -> Folder:
        """The folder at ``path``: the path above it resolved once, the folder itself
        opened with no link followed (created when ``create`` and missing)."""
        absolute = os.path.abspath(os.path.expanduser(path))
        parent, name = os.path.split(absolute)
        if not name:
            return cls(os.open(absolute, _DIRECTORY_FLAGS), absolute)
        if create:
            os.makedirs(parent, exist_ok=True)
        above = os.open(os.path.realpath(parent), _DIRECTORY_FLAGS & ~os.O_NOFOLLOW)
        try:
            return Folder(above, parent).sub(name, create=create)
        finally:
            os.close(above)

    def __enter__(self) -> Folder:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def shown(self, relative: str) -> str:
        return os.path.join(self.path, relative)

    def sub(self, relative: str, *, create: bool = False) -> Folder:
        """The folder ``relative`` below this one, each component opened with no link
        followed; missing ones are created when ``create``. The caller closes it."""
        fd = os.dup(self.fd)
        walked = self.path
        try:
            for part in _components(relative):
                walked = os.path.join(walked, part)
                fd = self._step(fd, part, walked, create)
            return Folder(fd, walked)
        except BaseException:
            os.close(fd)
            raise

    @staticmethod
    def _step(fd: int, part: str, walked: str, create: bool) -> int:
        for _ in range(2):
            try:
                child = os.open(part, _DIRECTORY_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                try:  # noqa: SIM105 - contextlib would cost the hook its import
                    os.mkdir(part, 0o755, dir_fd=fd)
                except FileExistsError:
                    pass  # made meanwhile: open it again
                continue
            except OSError as error:
                if error.errno in (errno.ELOOP, errno.ENOTDIR):
                    raise _refuse_link(walked) from None
                raise
            os.close(fd)
            return child
        raise FileNotFoundError(errno.ENOENT, "vanished while opened", walked)

    def _parent_of(self, relative: str, create: bool) -> tuple[Folder, str]:
        parts = _components(relative)
        if len(parts) == 1:
            return Folder(os.dup(self.fd), self.path), parts[0]
        return self.sub("/".join(parts[:-1]), create=create), parts[-1]

    def _open_file(self, name: str, flags: int, mode: int = 0o644) -> int:
        try:
            return os.open(name, flags | os.O_NOFOLLOW | os.O_CLOEXEC, mode, dir_fd=self.fd)
        except OSError as error:
            if error.errno == errno.ELOOP:
                raise _refuse_link(self.shown(name)) from None
            raise

    # -- reading -----------------------------------------------------------------------

    def open_read(self, relative: str) -> int:
        """A descriptor reading the regular file ``relative``; no link followed."""
        parent, name = self._parent_of(relative, create=False)
        with parent:
            fd = parent._open_file(name, os.O_RDONLY | os.O_NONBLOCK)
        try:
            if not _is_regular(fd):
                raise UnsafePath(f"{parent.shown(name)} is not a regular file; give a file")
            os.set_blocking(fd, True)
        except BaseException:
            os.close(fd)
            raise
        return fd

    def read(self, relative: str, limit: int) -> bytes:
        """The file's first ``limit`` bytes at most (its whole text when it is smaller)."""
        fd = self.open_read(relative)
        try:
            return read_bounded(fd, limit)
        finally:
            os.close(fd)

    def stat(self, relative: str) -> os.stat_result:
        parent, name = self._parent_of(relative, create=False)
        with parent:
            return os.stat(name, dir_fd=parent.fd, follow_symlinks=False)

    def names(self) -> list[str]:
        with os.scandir(self.fd) as entries:
            return [entry.name for entry in entries]

    # -- writing -----------------------------------------------------------------------

    def write_atomic(self, relative: str, data: bytes, *, durable: bool = True) -> None:
        """Replace ``relative`` whole: the old text or the new, never a part of either."""
        parent, name = self._parent_of(relative, create=True)
        with parent:
            temporary = parent.stage(data, durable=durable)
            parent.commit(temporary, name, durable=durable)

    def create_new(self, relative: str, data: bytes) -> None:
        """Write a file that must not exist yet (FileExistsError), whole or not at all."""
        parent, name = self._parent_of(relative, create=True)
        with parent:
            temporary = parent.stage(data)
            try:
                parent.link(temporary, name)
                parent.sync()
            finally:
                parent.discard(temporary)

    def open_new(self, relative: str) -> BinaryIO:
        """A new file opened for writing (FileExistsError when the name is taken)."""
        parent, name = self._parent_of(relative, create=True)
        with parent:
            fd = parent._open_file(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
        return open(fd, "wb")

    def stage(self, data: bytes, *, durable: bool = True) -> str:
        """A marked temporary in this folder holding ``data``; its name, for ``commit``."""
        name = temporary_name()
        fd = self._open_file(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        try:
            try:
                write_all(fd, data)
                if durable:
                    os.fsync(fd)
            finally:
                os.close(fd)
        except BaseException:
            self.discard(name)
            raise
        return name

    def commit(self, temporary: str, name: str, *, durable: bool = True) -> None:
        """Rename a staged temporary over ``name``; on failure the temporary is removed."""
        try:
            os.rename(temporary, name, src_dir_fd=self.fd, dst_dir_fd=self.fd)
        except BaseException:
            self.discard(temporary)
            raise
        if durable:
            self.sync()

    def link(self, temporary: str, name: str) -> None:
        """Give a staged temporary the name ``name`` too; FileExistsError when it is taken,
        so nothing already there is replaced."""
        os.link(temporary, name, src_dir_fd=self.fd, dst_dir_fd=self.fd, follow_symlinks=False)

    def rename(self, old: str, new: str) -> None:
        """Rename one entry of this folder (both plain names)."""
        check_name(old, bool)
        check_name(new, bool)
        os.rename(old, new, src_dir_fd=self.fd, dst_dir_fd=self.fd)

    def rename_folder(self, old: str, new: str) -> None:
        """Rename the folder ``old`` to ``new``, which must not be there (an existing folder
        refuses with EEXIST or ENOTEMPTY; a file or link there is never replaced)."""
        if self.exists(new):
            raise FileExistsError(errno.EEXIST, "already there", self.shown(new))
        self.rename(old, new)

    def exists(self, name: str) -> bool:
        """Whether anything (a link included) has the name ``name`` here."""
        try:
            os.stat(check_name(name, bool), dir_fd=self.fd, follow_symlinks=False)
        except FileNotFoundError:
            return False
        return True

    def discard(self, name: str) -> None:
        try:  # noqa: SIM105 - contextlib would cost the hook its import
            os.unlink(name, dir_fd=self.fd)
        except OSError:
            pass

    def sync(self) -> None:
        try:  # noqa: SIM105 - contextlib would cost the hook its import
            os.fsync(self.fd)
        except OSError:
            pass  # some file systems cannot fsync a folder; the rename itself stands

    def append(self, relative: str, data: bytes) -> int:
        """Append ``data`` whole, or cut the file back and raise: never a part of it. The
        caller holds the lock that orders appenders. The old length, for ``truncate``."""
        parent, name = self._parent_of(relative, create=True)
        with parent:
            fd = parent._open_file(name, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        try:
            if not _is_regular(fd):
                raise UnsafePath(f"{parent.shown(name)} is not a regular file")
            size = os.fstat(fd).st_size
            try:
                write_all(fd, data)
                os.fsync(fd)
            except BaseException:
                _cut_back(fd, size)
                raise
            return size
        finally:
            os.close(fd)

    def truncate(self, relative: str, size: int) -> None:
        """Cut ``relative`` back to ``size`` bytes (undoing an append the call refuses)."""
        parent, name = self._parent_of(relative, create=False)
        with parent:
            fd = parent._open_file(name, os.O_WRONLY)
        try:
            _cut_back(fd, size)
        finally:
            os.close(fd)

    def make_new_folder(self, name: str) -> None:
        """Create the folder ``name`` here; FileExistsError when it exists (a claim)."""
        parts = _components(name)
        if len(parts) != 1:
            raise UnsafePath(f"the folder name {name[:80]!r} must be one plain name")
        os.mkdir(parts[0], 0o755, dir_fd=self.fd)

    def lock(self, name: str) -> int:
        """A descriptor of ``name`` (created when missing) holding an exclusive ``flock``;
        closing it lets go."""
        import fcntl

        fd = self._open_file(name, os.O_RDWR | os.O_CREAT)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except BaseException:
            os.close(fd)
            raise
        return fd

    def remove_tree(self, relative: str) -> None:
        """Remove ``relative`` and everything in it, never following a link."""
        import shutil

        parent, name = self._parent_of(relative, create=False)
        with parent:
            try:
                info = os.stat(name, dir_fd=parent.fd, follow_symlinks=False)
            except FileNotFoundError:
                return
            if _stat_is_dir(info):
                shutil.rmtree(name, dir_fd=parent.fd)
            else:
                os.unlink(name, dir_fd=parent.fd)

    def sweep_temporaries(self) -> list[str]:
        """Remove this user's marked temporaries whose writing process is gone; their names.

        Only names this module makes, owned by our uid, whose (pid, start time) is no
        longer a live process: a file that merely looks stale is someone else's.
        """
        removed: list[str] = []
        try:
            names = self.names()
        except OSError:
            return removed
        uid = os.getuid()
        for name in names:
            marker = _marker(name)
            if marker is None:
                continue
            try:
                info = os.stat(name, dir_fd=self.fd, follow_symlinks=False)
            except OSError:
                continue
            if info.st_uid != uid or _writer_alive(*marker):
                continue
            try:
                self.remove_tree(name)
            except OSError:
                continue
            removed.append(name)
        return removed


def _stat_is_dir(info: os.stat_result) -> bool:
    return (info.st_mode & 0o170000) == 0o040000


def _is_regular(fd: int) -> bool:
    return (os.fstat(fd).st_mode & 0o170000) == 0o100000


def _cut_back(fd: int, size: int) -> None:
    try:
        os.ftruncate(fd, size)
        os.fsync(fd)
    except OSError:
        pass  # nothing more can be done; the caller's refusal names the failed write


def write_all(fd: int, data: bytes) -> None:
    """Write every byte of ``data`` (a short write is continued, a zero write refused)."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view[:_CHUNK])
        if written <= 0:
            raise OSError(errno.ENOSPC, "no byte could be written (is the disk full?)")
        view = view[written:]


def read_bounded(fd: int, limit: int) -> bytes:
    """At most ``limit`` bytes from ``fd``; the rest is left unread."""
    chunks: list[bytes] = []
    left = limit
    while left > 0:
        chunk = os.read(fd, min(left, _CHUNK))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def read_stream(fd: int, limit: int, seconds: float) -> tuple[bytes, bool]:
    """At most ``limit`` bytes of a pipe or file, waiting at most ``seconds`` in all: the
    bytes, and whether more was there (or the writer never finished) and was left unread."""
    import select
    import time

    deadline = time.monotonic() + seconds
    chunks: list[bytes] = []
    left = limit
    while left > 0:
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not select.select([fd], [], [], remaining)[0]:
            return b"".join(chunks), True
        chunk = os.read(fd, min(left, 1 << 16))
        if not chunk:
            return b"".join(chunks), False
        chunks.append(chunk)
        left -= len(chunk)
    # One byte more, or the end, tells whether anything was left; a writer that neither
    # sends it nor closes within the deadline counts as more.
    remaining = max(0.0, deadline - time.monotonic())
    more = not select.select([fd], [], [], remaining)[0] or bool(os.read(fd, 1))
    return b"".join(chunks), more
