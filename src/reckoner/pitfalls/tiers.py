"""The two tiers: a project library first, the global one (``<home>/pitfalls``) behind it.

Record writes the lesson in the project library and the same snapshot to the global one
(same id, so later updates and de-duplication line up). Search returns the project's hits
first and fills from the global one up to the limit, de-duplicated by id. Update edits the
lesson where it is found; a project update then overwrites the global copy with the final
lesson (one snapshot, never a second note); a lesson only in the global library is updated
in place, never moved into the project.
"""

from __future__ import annotations

from .library import Library, LibraryError, absolute_path, real_path
from .model import Cleaned, applied, folded_into, is_entry_id, merged_copies

TYPE_CHECKING = False  # not typing's: the hook loads this module and must start fast
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from .library import AnyPath

DEFAULT_PROJECT_DIR = ".reckoner/pitfalls"
GLOBAL_DIR = "pitfalls"


class NotFound(LookupError):
    """No lesson with this id in either library."""


class Outcome:
    """What a write did: the lesson, where it went, and every sentence worth saying."""

    __slots__ = ("changes", "entry", "library", "warnings")

    def __init__(
        self,
        entry: dict[str, Any],
        library: Library,
        changes: list[str] | None = None,
        warnings: list[str] | None = None,
    ) -> None:
        self.entry = entry
        self.library = library
        self.changes = [] if changes is None else changes
        self.warnings = [] if warnings is None else warnings


class Hit:
    """One lesson a search returned, its score and the library it was read from."""

    __slots__ = ("entry", "library", "score")

    def __init__(self, entry: dict[str, Any], score: float, library: Library) -> None:
        self.entry = entry
        self.score = score
        self.library = library


def project_library_root(
    project: AnyPath | None, project_dir: str | None, global_root: AnyPath
) -> str | None:
    """The project library's directory, or None: switched off (``project_dir`` None or
    empty), no project directory, or the same directory as the global library."""
    if project is None or project_dir is None or not project_dir.strip():
        return None
    root = real_path(project, project_dir)
    if root == real_path(global_root):
        return None
    return root


_LIBRARIES: dict[str, Library] = {}


def _library(root: AnyPath) -> Library:
    # One Library per absolute path, so its mtime cache is shared by every caller.
    key = absolute_path(root)
    if key not in _LIBRARIES:
        _LIBRARIES[key] = Library(key)
    return _LIBRARIES[key]


class Pitfalls:
    """The memory as callers see it: both tiers behind one door."""

    def __init__(self, global_root: AnyPath, project_root: AnyPath | None = None) -> None:
        self.global_library = _library(global_root)
        self.project_library = _library(project_root) if project_root is not None else None

    @classmethod
    def open(
        cls,
        home: AnyPath,
        *,
        project: AnyPath | None = None,
        project_dir: str | None = DEFAULT_PROJECT_DIR,
    ) -> Pitfalls:
        global_root = absolute_path(home, GLOBAL_DIR)
        return cls(global_root, project_library_root(project, project_dir, global_root))

    @property
    def libraries(self) -> tuple[Library, ...]:
        if self.project_library is None:
            return (self.global_library,)
        return (self.project_library, self.global_library)

    # -- reading ---------------------------------------------------------------------------

    def find(self, entry_id: str) -> tuple[dict[str, Any], Library] | None:
        """The lesson and the library it is read from (the project's first)."""
        for library in self.libraries:
            try:
                entry = library.get(entry_id)
            except LibraryError:
                continue
            if entry is not None:
                return entry, library
        return None

    def search(
        self,
        query: str,
        *,
        tag: str | None = None,
        status: str | None = None,
        limit: int = 5,
        warnings: list[str] | None = None,
        failed_tool: str | None = None,
    ) -> list[Hit]:
        """Project hits first, then the global library's, up to ``limit``, each id once.

        A query that is exactly a lesson's id answers that lesson. With ``failed_tool`` (the
        query is a reminder's clue of that tool's failure), a lesson must match more than a
        coincidence (``SearchIndex``).
        """
        if is_entry_id(query.strip()):
            found = self.find(query.strip())
            return [] if found is None else [Hit(found[0], 0.0, found[1])]
        hits: list[Hit] = []
        seen: set[str] = set()
        for library in self.libraries:
            if len(hits) >= limit:
                break
            try:
                index = library.index()
            except LibraryError as error:
                if warnings is not None:
                    warnings.append(str(error))
                continue
            keep = None if status is None else (lambda entry: entry["status"] == status)
            scored = index.search(
                query, tag=tag, limit=limit + len(seen), keep=keep, failed_tool=failed_tool
            )
            for entry, score in scored:
                if entry["id"] not in seen and len(hits) < limit:
                    seen.add(entry["id"])
                    hits.append(Hit(entry, score, library))
        return hits

    # -- writing ---------------------------------------------------------------------------

    def record(self, cleaned: Cleaned) -> Outcome:
        """Write a new lesson to the project library and its snapshot to the global one."""
        warnings: list[str] = []
        if self.project_library is not None:
            try:
                entry = self.project_library.record(cleaned.fields)
            except LibraryError as error:
                warnings.append(f"{error}; the lesson was written to the global library only")
            else:
                try:
                    self.global_library.save(entry)
                except LibraryError as error:
                    warnings.append(f"the global copy was not written: {error}")
                return Outcome(entry, self.project_library, cleaned.changes, warnings)
        entry = self.global_library.record(cleaned.fields)  # raises when this fails too
        return Outcome(entry, self.global_library, cleaned.changes, warnings)

    def delete(self, entry_id: str, now_iso: str, merged_into: str | None = None) -> None:
        """Delete the lesson from every tier that holds it (a tombstone in each)."""
        if self.find(entry_id) is None:
            raise NotFound(entry_id)
        for library in self.libraries:
            library.delete(entry_id, now_iso, merged_into)

    def merge(self, keep_id: str, duplicate_id: str, now_iso: str) -> Outcome:
        """Fold the duplicate into the kept lesson (``folded_into``), write it to its tiers,
        then delete the duplicate: a failure before the deletion leaves both lessons."""
        duplicate = self.find(duplicate_id)
        if duplicate is None:
            raise NotFound(duplicate_id)
        cleaned = Cleaned({}, [])
        outcome = self._rewrite(
            keep_id, lambda kept: folded_into(kept, duplicate[0], now_iso), cleaned
        )
        self.delete(duplicate_id, now_iso, merged_into=keep_id)
        return outcome

    def update(self, entry_id: str, cleaned: Cleaned, note: str | None, now_iso: str) -> Outcome:
        """Edit the lesson where it is found, from both tiers' copies merged (a note added
        through another project's session is in the global copy only), then write the result
        to both, so no note or edit made through either tier is lost."""
        return self._rewrite(
            entry_id, lambda entry: applied(entry, cleaned, note, now_iso), cleaned
        )

    def _rewrite(
        self, entry_id: str, change: Callable[[dict[str, Any]], dict[str, Any]], cleaned: Cleaned
    ) -> Outcome:
        found = self.find(entry_id)
        if found is None:
            raise NotFound(entry_id)
        entry, library = found
        if library is not self.global_library:
            try:
                global_copy = self.global_library.get(entry_id)
            except LibraryError:
                global_copy = None  # unreadable: the project copy is all there is to go on
            if global_copy is not None:
                entry = merged_copies(entry, global_copy)
        final = change(entry)
        library.save(final)
        warnings: list[str] = []
        if library is not self.global_library:
            try:
                self.global_library.save(final)
            except LibraryError as error:
                warnings.append(f"the global copy was not updated: {error}")
        return Outcome(final, library, cleaned.changes, warnings)
