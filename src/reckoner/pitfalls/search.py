"""Lexical search over lessons (pure): how text is cut into tokens, how a token matches a
field, how an entry scores, and which entries a query returns.

No model, no embeddings: a lesson worded differently is not found, on purpose. No regular
expressions either: importing ``re`` costs more than half a bare interpreter's start, which
the hook would pay on every reminder (issue 13), and a hand scan of a 300-character clue
takes microseconds.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: the hook loads this module and must start fast
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence
    from typing import Any, Protocol

    class Entries(Protocol):
        """The lessons an index answers with: a list, or one that decodes them on demand."""

        def __getitem__(self, position: int, /) -> dict[str, Any]: ...

        def __len__(self) -> int: ...

    IndexParts = tuple[bytes, bytes, list[str], bytes, bytes, bytes]
    """``SearchIndex.parts``: text, field ends, updated stamps, and the postings' words,
    where each word's postings start, and the postings."""

FIELD_WEIGHTS: tuple[tuple[str, int], ...] = (
    ("tags", 6),
    ("title", 5),
    ("area", 3),
    ("symptom", 2),
    ("cause", 2),
    ("solution", 2),
    ("evidence", 1),
)
"""Highest first, so a token's best field is the first that matches it."""
_FIELD_KEYS = tuple(key for key, _ in FIELD_WEIGHTS)
_WEIGHT_OF_RANK = tuple(weight for _, weight in FIELD_WEIGHTS)
_FIELDS = len(FIELD_WEIGHTS)
_RANK_BITS = 3  # a posting is (entry << 3) | the rank of its best field
assert _FIELDS <= 1 << _RANK_BITS

IDENTIFIER_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789_"
"""A word's characters (after lowercasing); a token of these only matches on word
boundaries, never as a substring."""
_IDENTIFIER = frozenset(IDENTIFIER_CHARS)
JOINERS = ".-"
"""One of these between identifier characters keeps a word whole: node-gyp, 3.11,
package.json."""
_WORDS_ONLY = bytes(c if chr(c) in _IDENTIFIER else 0x20 for c in range(256))
"""A byte table that blanks everything but identifier bytes; every byte of a non-ASCII
character is blanked, as the character is no identifier character."""

MIN_TOKEN = 2
CJK_BIGRAMS_ABOVE = 4

_EN_STOPWORDS = """a an and are as at be been but by can could did do does doing done for from
had has have how i if in into is it its me my no not of on or our so than that the their
them then there these they this those to too up us was we were what when where which while
who why will with would you your yes via also just any all some get got use used using
again still very should must may might please one"""
_ZH_STOPWORDS = """的 了 和 是 在 我 你 他 她 它 们 这 那 有 也 就 都 而 及 与 或
一个 什么 怎么 怎样
为什么 这个 那个 这些 那些 还是 如何 可以 不能 没有 已经 因为 所以 但是 如果 然后"""
STOPWORDS = frozenset(_EN_STOPWORDS.split()) | frozenset(_ZH_STOPWORDS.split())

_FAILURE_BOILERPLATE = """error errors err failed fail failure fails exit exited code status
returned return non zero nonzero exception traceback most recent call last line file
command tool result message true false null none invalid unable cannot could occurred set
first try again run running ran see check make sure found unknown unexpected warning warn
engine ok is_error iserror content text type such directory denied permission localhost
port read reading write writing connect connection refused undefined properties property
timeout timed out killed 错误 失败 异常"""
REMINDER_STOPWORDS = STOPWORDS | frozenset(_FAILURE_BOILERPLATE.split())
"""A reminder's clue is a failed call's arguments and error: words every failure says
("Error: Exit code 1", "... set it first") are no evidence of any one lesson."""
REMINDER_MIN_TOKENS = 2
"""A reminder offers a lesson only when at least this many of the clue's informative tokens
match it, or one matches its tags: one shared common word is a coincidence, not a lesson."""


def is_cjk(char: str) -> bool:
    """Kana, CJK ideographs (with extension A and compatibility forms) and Hangul."""
    return (
        "\u3040" <= char <= "\u30ff"
        or "\u3400" <= char <= "\u4dbf"
        or "\u4e00" <= char <= "\u9fff"
        or "\uf900" <= char <= "\ufaff"
        or "\uac00" <= char <= "\ud7af"
    )


def _pieces(text: str) -> list[str]:
    """Each maximal word (identifier characters, joined by single joiners) and each maximal
    run of CJK characters, left to right; everything else separates."""
    pieces: list[str] = []
    identifier = _IDENTIFIER
    size = len(text)
    start = 0
    while start < size:
        char = text[start]
        end = start + 1
        if char in identifier:
            while True:
                while end < size and text[end] in identifier:
                    end += 1
                if end + 1 < size and text[end] in JOINERS and text[end + 1] in identifier:
                    end += 2
                else:
                    break
        elif is_cjk(char):
            while end < size and is_cjk(text[end]):
                end += 1
        else:
            start = end
            continue
        pieces.append(text[start:end])
        start = end
    return pieces


def tokenize(text: str) -> list[str]:
    """Informative tokens, in order, each once.

    Words and numbers of at least 2 characters minus stopwords; a CJK run is one whole
    token (so an exact phrase ranks first) plus its 2-grams when longer than 4 characters
    (so 上传失败 still finds 文件上传失败).
    """
    tokens: dict[str, None] = {}
    for piece in _pieces(text.lower()):
        if len(piece) < MIN_TOKEN or piece in STOPWORDS:
            continue
        tokens[piece] = None
        if len(piece) > CJK_BIGRAMS_ABOVE and is_cjk(piece[0]):
            for i in range(len(piece) - 1):
                gram = piece[i : i + 2]
                if gram not in STOPWORDS:
                    tokens[gram] = None
    return list(tokens)


def is_word_token(token: str) -> bool:
    """Whether a token is identifier characters only (``WORD_TOKEN`` in the spec)."""
    return bool(token) and not token.strip(IDENTIFIER_CHARS)


def matches_token(token: str, text: str) -> bool:
    """Whether a token occurs in lowercased text.

    An identifier-only token must stand on word boundaries (``no`` never matches
    ``node``: a false hit would hand the model another lesson's fix); anything else (CJK,
    ``node-gyp``, ``3.11``) matches as a substring.
    """
    at = text.find(token)
    if at == -1:
        return False
    if not is_word_token(token):
        return True
    identifier = _IDENTIFIER
    size, end_of_text = len(token), len(text)
    while at != -1:
        after = at + size
        if (at == 0 or text[at - 1] not in identifier) and (
            after == end_of_text or text[after] not in identifier
        ):
            return True
        at = text.find(token, at + 1)
    return False


def _field_text(entry: dict[str, Any], key: str) -> str:
    value = entry.get(key)
    return ("\n".join(value) if isinstance(value, list) else str(value or "")).lower()


class Prepared:
    """One entry with its fields lowercased once, for ``score_entry``."""

    __slots__ = ("entry", "everything", "fields")

    def __init__(
        self,
        entry: dict[str, Any],
        fields: tuple[tuple[str, int], ...],  # (lowercased text, weight), highest first
        everything: str,
    ) -> None:
        self.entry = entry
        self.fields = fields
        self.everything = everything


def prepare(entry: dict[str, Any]) -> Prepared:
    fields = tuple((_field_text(entry, key), weight) for key, weight in FIELD_WEIGHTS)
    return Prepared(entry, fields, "\n".join(text for text, _ in fields))


def score_entry(tokens: Sequence[str], prepared: Prepared) -> float:
    """Σ (each token's best field weight) × (1 + covered tokens / all tokens); 0 if none.

    The spec's formula for one entry; ``SearchIndex`` computes the same for many at once.
    """
    if not tokens:
        return 0.0
    total = 0
    covered = 0
    for token in tokens:
        if token not in prepared.everything:  # the common miss, decided in C
            continue
        for text, weight in prepared.fields:
            if matches_token(token, text):
                total += weight
                covered += 1
                break
    if total == 0:
        return 0.0
    return total * (1 + covered / len(tokens))


def _encoded(text: str) -> bytes:
    # A lone surrogate (legal in JSON text) must not make a lesson unsearchable.
    return text.encode("utf-8", "surrogatepass")


class SearchIndex:
    """Many entries laid out so that a query touches only what can match it.

    The text is one UTF-8 byte string: each entry's fields lowercased, highest weight first,
    each followed by a newline, with the end of every field kept in ``ends``. A token that
    is not identifier-only (CJK, ``node-gyp``) matches as a substring, so one ``find`` over
    the whole text finds the entries holding it, and the first hit in an entry lies in its
    best field. An identifier-only token matches on word boundaries exactly when it is one
    of a field's maximal runs of identifier characters, so it is looked up in the postings:
    for each word, the entries holding it with their best field, 4 bytes an entry. Bytes
    give the same answers as the lowercased strings: a token's UTF-8 only ever matches
    whole characters, and no byte of a non-ASCII character is an identifier byte.

    The layout is a few flat byte strings and a list (``parts``), so the library can cache
    it and a cold process (the hook) loads it in one step whatever the library's size: the
    words are one newline-separated string, found with ``find``, and a word's number (the
    newlines before it) says where its postings start and end.
    """

    __slots__ = (
        "_decoded",
        "_ends",
        "_parts",
        "_postings",
        "_starts",
        "_tags",
        "_text",
        "_updated",
        "_words",
        "entries",
    )

    def __init__(self, entries: Entries, parts: IndexParts) -> None:
        text, ends, updated, words, starts, postings = parts
        if (
            len(ends) != 4 * _FIELDS * len(entries)
            or len(updated) != len(entries)
            or len(starts) != 4 * words.count(b"\n")
        ):
            raise ValueError("the index parts do not describe these entries")
        self.entries = entries
        self._parts = parts
        self._text = text
        self._ends = memoryview(ends).cast("I")
        self._updated = updated
        self._words = words
        self._starts = memoryview(starts).cast("I")
        self._postings = memoryview(postings)
        self._decoded: dict[str, dict[int, int]] = {}
        self._tags: list[frozenset[str]] | None = None

    @classmethod
    def build(cls, entries: Iterable[dict[str, Any]]) -> SearchIndex:
        # Imported here: only a writer or a reader of a changed library builds.
        from array import array

        listed = list(entries)
        chunks: list[bytes] = []
        ends = array("I")
        offset = 0
        for entry in listed:
            for key in _FIELD_KEYS:
                chunk = _encoded(_field_text(entry, key))
                chunks.append(chunk)
                offset += len(chunk)
                ends.append(offset)
                offset += 1
        text = b"\n".join(chunks) + b"\n" if chunks else b""
        words_only = text.translate(_WORDS_ONLY)
        holding: dict[bytes, list[int]] = {}
        start = 0
        for position in range(len(listed)):
            seen: set[bytes] = set()
            for rank in range(_FIELDS):
                end = ends[position * _FIELDS + rank]
                words = set(words_only[start:end].split())
                words -= seen  # a higher field of this entry holds them already
                seen |= words
                code = position << _RANK_BITS | rank
                for word in words:
                    codes = holding.get(word)
                    if codes is None:
                        holding[word] = [code]
                    else:
                        codes.append(code)
                start = end + 1
        # Each word between newlines; its postings run from its start to the next word's.
        vocabulary = b"\n" + b"".join(word + b"\n" for word in holding)
        starts, postings = array("I"), array("I")
        for codes in holding.values():
            starts.append(4 * len(postings))
            postings.extend(codes)
        starts.append(4 * len(postings))
        updated = [_updated(entry) for entry in listed]
        parts = (text, ends.tobytes(), updated, vocabulary, starts.tobytes(), postings.tobytes())
        return cls(listed, parts)

    @property
    def parts(self) -> IndexParts:
        """Everything but the entries, as byte strings and a list of strings."""
        return self._parts

    def _word_weights(self, token: str) -> dict[int, int]:
        found = self._decoded.get(token)
        if found is None:
            at = self._words.find(b"\n" + token.encode("ascii") + b"\n")
            if at == -1:
                return {}
            number = self._words.count(b"\n", 0, at)
            start, end = self._starts[number], self._starts[number + 1]
            mask = (1 << _RANK_BITS) - 1
            found = {
                code >> _RANK_BITS: _WEIGHT_OF_RANK[code & mask]
                for code in self._postings[start:end].cast("I")
            }
            self._decoded[token] = found  # bounded by the vocabulary
        return found

    def _scan(self, token: str) -> dict[int, int]:
        from bisect import bisect_right

        needle = _encoded(token)
        text, ends = self._text, self._ends
        found: dict[int, int] = {}
        at = text.find(needle)
        while at != -1:
            entry, rank = divmod(bisect_right(ends, at), _FIELDS)
            found[entry] = _WEIGHT_OF_RANK[rank]
            at = text.find(needle, ends[entry * _FIELDS + _FIELDS - 1])
        return found

    def _tag_sets(self) -> list[frozenset[str]]:
        if self._tags is None:
            self._tags = []
            for position in range(len(self.entries)):
                tags = self.entries[position].get("tags")
                lowered = [t.lower() for t in tags] if isinstance(tags, list) else []
                self._tags.append(frozenset(lowered))
        return self._tags

    def _is_tag(self, position: int, token: str) -> bool:
        """Whether ``token`` is one of the entry's tags whole (``node`` is a word of the tag
        ``node-gyp``, not the tag). Decodes only the entry asked about."""
        tags = self.entries[position].get("tags")
        return isinstance(tags, list) and any(token == str(t).lower() for t in tags)

    def search(
        self,
        query: str,
        *,
        tag: str | None = None,
        limit: int = 5,
        keep: Callable[[dict[str, Any]], bool] | None = None,
        failed_tool: str | None = None,
    ) -> list[tuple[dict[str, Any], float]]:
        """The entries a query returns, best first, with their scores.

        A tag filter is exact and comes before scoring (so is ``keep``); an empty query
        lists the most recent (score 0); a query with no informative token returns
        nothing, never everything; a score of 0 is dropped. With ``failed_tool`` the query
        is a reminder's clue of that tool's failure: failure boilerplate is no token, and an
        entry needs ``REMINDER_MIN_TOKENS`` matched tokens or a matched tag; the failed
        tool's name is a matched token even where it is a common word (a lesson tagged
        ``Write`` is about the Write tool, and "cannot write" in an error is not), but never
        a tag's evidence on its own.
        """
        from heapq import nlargest  # here: the hook's start should not pay for it

        allowed = self._allowed(tag, keep)
        if not query.strip():
            return self._recent(allowed, limit)
        tokens, named = _query_tokens(query, failed_tool)
        if not tokens:
            return []
        count = len(tokens)
        scored = [
            (total * (1 + covered / count), self._updated[i], i)
            for i, (total, covered, tagged) in self._totals(tokens, named, allowed).items()
            if failed_tool is None or covered >= REMINDER_MIN_TOKENS or tagged
        ]
        best = nlargest(limit, scored)
        return [(self.entries[i], score) for score, _, i in best]

    def _allowed(
        self, tag: str | None, keep: Callable[[dict[str, Any]], bool] | None
    ) -> set[int] | None:
        """The positions the filters let through; None when there is no filter."""
        wanted = " ".join(tag.split()).lower() if tag is not None and tag.strip() else None
        if wanted is None and keep is None:
            return None
        tag_sets = self._tag_sets() if wanted is not None else []
        return {
            i
            for i in range(len(self.entries))
            if (wanted is None or wanted in tag_sets[i]) and (keep is None or keep(self.entries[i]))
        }

    def _recent(self, allowed: set[int] | None, limit: int) -> list[tuple[dict[str, Any], float]]:
        """The most recent entries among those allowed, each with the score 0."""
        from heapq import nlargest  # here: the hook's start should not pay for it

        pool = range(len(self.entries)) if allowed is None else sorted(allowed)
        # Entries stand in the order of their last write: among lessons of the same
        # second the later-written is the newer, so the position breaks the tie.
        updated = self._updated
        recent = nlargest(limit, pool, key=lambda i: (updated[i], i))
        return [(self.entries[i], 0.0) for i in recent]

    def _totals(
        self, tokens: list[str], named: list[str], allowed: set[int] | None
    ) -> dict[int, list[int]]:
        """Per matched entry: [weight, tokens matched, tags matched]."""
        tag_weight = _WEIGHT_OF_RANK[0]
        totals: dict[int, list[int]] = {}
        for token in tokens:
            weights = self._word_weights(token) if is_word_token(token) else self._scan(token)
            # The failed tool's own name is one matched token, never a tag's evidence alone:
            # a lesson about Edit is not about every failure of Edit.
            tag_evidence = token not in named
            for position, weight in weights.items():
                if allowed is not None and position not in allowed:
                    continue
                tagged = tag_evidence and weight == tag_weight and self._is_tag(position, token)
                seen = totals.get(position)
                if seen is None:
                    totals[position] = [weight, 1, tagged]
                else:
                    seen[0] += weight
                    seen[1] += 1
                    seen[2] += tagged
        return totals


def _query_tokens(query: str, failed_tool: str | None) -> tuple[list[str], list[str]]:
    """The query's tokens, and those of them that only name the failed tool (a reminder's
    clue loses failure boilerplate and gains the tool's name)."""
    tokens = tokenize(query)
    if failed_tool is None:
        return tokens, []
    tokens = [token for token in tokens if token not in REMINDER_STOPWORDS]
    named = [token for token in tokenize(failed_tool) if token not in tokens]
    return tokens + named, named


def _updated(entry: dict[str, Any]) -> str:
    return str(entry.get("updated") or entry.get("created") or "")


def search(
    entries: Iterable[dict[str, Any]], query: str, *, tag: str | None = None, limit: int = 5
) -> list[tuple[dict[str, Any], float]]:
    """``SearchIndex.build(entries).search(...)``, for a one-off search."""
    return SearchIndex.build(entries).search(query, tag=tag, limit=limit)
