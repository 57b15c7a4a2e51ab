"""The compiled-formula caches: by exact text, and by token shape with slot names and
positions as parameters.

Agents send the same formula again and again, and often not byte for byte: a space more
here, a newline there, and above all their own slot names (`@V1/@R1`, then `@V2/@R2`). A
formula's meaning depends only on its tokens; its slot names reach only the slots it reads
(each reference reads its name from `Program.names`, by its index in text order), and its
positions only the sentences of its refusals. So a program is compiled once per token shape,
with every position written as its token's index past POSITION_MARK (reckoner.core.lexer),
and each text of the shape gets its own `Program` sharing that body with its own slot names;
a refusal raised while running it names markers, which `placed` replaces with the character
positions of the text actually evaluated. Results are bit for bit a fresh compile's: the same
tokens build the same tree and the same closures.

The shape's key is the text with each slot reference written as a bare '@' (one regular
expression, in C, finds the references and their names) and without its whitespace
(`str.split`, in C). A bare '@' the scanner would refuse leaves the key with more '@' than
names, and such a text has no shape. Whitespace changes nothing only where it stands between
two tokens that read the same with or without it (`free_offsets`: next to punctuation, but
not between a number and '.', nor before the '_' of `$sum_`); a text is served from a shape
only when every run of its whitespace stands at such a place of that shape, and a shape is
made only from a text whose own whitespace does. So every text of a shape has the shape's
tokens but for the slot names. A text holding whitespace the scanner refuses (a carriage
return, a no-break space), a text over MAX_FORMULA_LENGTH and a text the scanner or the
marked parse refuses go the plain way (real positions throughout).

Literals are part of the shape, not parameters: constant folding, the literal-exponent
route of `x^2` and the lanes compiler all read a literal's value while compiling, so a
formula with another literal is another shape and compiles afresh
(docs/decisions/eval-speed.md).
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeAlias, TypeVar

from reckoner.contract.limits import MAX_FORMULA_LENGTH

from .compiler import Program, compile_tree
from .errors import Failure
from .lexer import (
    K_ARROW,
    K_CARET,
    K_COMMA,
    K_DOT,
    K_EQUALS,
    K_LBRACE,
    K_LBRACKET,
    K_LPAREN,
    K_MINUS,
    K_NUMBER,
    K_PLUS,
    K_RBRACE,
    K_RBRACKET,
    K_RPAREN,
    K_SLASH,
    K_SLOT,
    K_STAR,
    K_UNDERSCORE,
    KIND,
    TEXT,
    Token,
)
from .names import NAME
from .parser import marked, parse, parse_tokens, scan, token_positions
from .work import Compiled

V = TypeVar("V")

# Both caches are bounded by the text they hold, not only by their entry count: a compiled
# formula costs about 150 bytes of closures per character of text (measured), so 1,024 long
# formulas once pinned 1.7 GB. 250,000 characters keep each near 40 MB at most, room for
# thousands of the short formulas an agent repeats. Each entry also counts a fixed overhead,
# so even one-character formulas cannot grow them without bound. A shape's shared body is
# made only at its second spelling, so the two caches pin at most about 80 MB together.
PROGRAM_CACHE_CHARACTERS = 250_000
PROGRAM_ENTRY_OVERHEAD = 64
SHAPE_CACHE_ENTRIES = 4_096

# Tokens that end where they end whatever follows them, and start a token afresh after them.
_PUNCTUATION = frozenset({
    K_PLUS, K_MINUS, K_STAR, K_SLASH, K_CARET, K_LPAREN, K_RPAREN, K_LBRACKET, K_RBRACKET,
    K_LBRACE, K_RBRACE, K_COMMA, K_DOT, K_EQUALS, K_ARROW,
})  # fmt: skip
_MARKER = re.compile("\x00([0-9]+)\x00")
# A slot reference and its name, as the scanner reads one: '@' and a maximal name.
_SLOT_REFERENCE = re.compile("@(" + NAME + ")")


def _key_length(key: str, value: object) -> int:
    return len(key)


class BoundedCache(Generic[V]):
    """Values by text key, oldest first out once their weight (by default the keys' text)
    passes the bound or the entries their count. A hit is one dict lookup; `get` leaves the
    order alone (first in, first out) and `touch` moves a key to the young end (least
    recently used)."""

    def __init__(
        self, characters: int, entries: int, weigh: Callable[[str, V], int] = _key_length
    ) -> None:
        self.characters = characters
        self.entries = entries
        self.weigh = weigh
        # OrderedDict: dropping the oldest entry is O(1), where a dict's first key must be
        # found past the holes earlier deletions left at its front.
        self.programs: OrderedDict[str, V] = OrderedDict()
        self.get = self.programs.get
        self.touch = self.programs.move_to_end
        self.held = 0

    def put(self, key: str, value: V) -> None:
        programs = self.programs
        weight = self.weigh(key, value)
        try:
            old = programs[key]
        except KeyError:  # a new key
            self.held += weight + PROGRAM_ENTRY_OVERHEAD
        else:
            try:
                programs.move_to_end(key)  # a key put again is the youngest
                self.held += weight - self.weigh(key, old)
            except KeyError:  # evicted meanwhile by another thread: it is put anew
                self.held += weight + PROGRAM_ENTRY_OVERHEAD
        programs[key] = value
        if self.held > self.characters or len(programs) > self.entries:
            self._evict()

    def _evict(self) -> None:
        programs = self.programs
        while (self.held > self.characters or len(programs) > self.entries) and programs:
            try:
                oldest, value = programs.popitem(last=False)
            except KeyError:  # emptied meanwhile by another thread
                break
            self.held -= self.weigh(oldest, value) + PROGRAM_ENTRY_OVERHEAD
        if not programs:
            # Threads putting one key at once may each count it (the core takes no lock):
            # an empty cache holds nothing, so such a miscount never outlives it.
            self.held = 0


@dataclass(frozen=True, slots=True)
class Shape:
    """A program compiled with marked positions, and where its key may hold whitespace."""

    body: Compiled
    frame_size: int
    free: frozenset[int]
    # The length of the text it was compiled from: its closures grow with the text, slot
    # names included, while its key writes each slot as one '@'.
    weight: int


def _shape_weight(key: str, shape: Shape | None) -> int:
    return len(key) if shape is None else shape.weight


# A text's shape key, the parts between its whitespace runs (in the key's letters, a slot
# reference one '@'), and its slot names in text order. A plain tuple: a frozen dataclass's
# __init__ cost more than finding the key.
Key: TypeAlias = tuple[str, list[str], tuple[str, ...]]


def free_offsets(tokens: list[Token]) -> frozenset[int]:
    """The offsets, counted in the text without whitespace, between two tokens that the
    scanner reads the same whether whitespace stands between them or not: one of them is
    punctuation, except a number before '.' (`1 .v` is a field read, `1.v` a malformed
    number) and anything before '_' (`$sum _{` reads '_' as a name, `$sum_{` as the
    subscript mark)."""
    free = set()
    offset = 0
    before = None
    for token in tokens[:-1]:  # not the end token
        kind = token[KIND]
        if (
            before is not None
            and (before in _PUNCTUATION or kind in _PUNCTUATION)
            and kind is not K_UNDERSCORE
            and not (before is K_NUMBER and kind is K_DOT)
        ):
            free.add(offset)
        offset += 1 if kind is K_SLOT else len(token[TEXT])  # a slot is one '@' in the key
        before = kind
    return frozenset(free)


def spaced_freely(parts: list[str], free: frozenset[int]) -> bool:
    """True when every whitespace run between the parts stands at a free offset (runs
    before the first part and after the last change nothing)."""
    offset = 0
    for part in parts[:-1]:
        offset += len(part)
        if offset not in free:
            return False
    return True


def key_of(text: str) -> Key | None:
    """The text's shape key (slot references as '@', whitespace out), the parts between its
    whitespace runs and its slot names; None when it has no shape: over the length limit
    (refused as a whole), holding an '@' that starts no slot reference, or holding
    whitespace other than space, tab and newline, which `str.split` cuts at but the scanner
    refuses."""
    if len(text) > MAX_FORMULA_LENGTH:
        return None
    if "@" in text:
        pieces = _SLOT_REFERENCE.split(text)  # text, name, text, name, ..., text
        names = tuple(pieces[1::2])
        bare = "@".join(pieces[0::2])
        if bare.count("@") != len(names):
            return None
    else:
        names, bare = (), text
    parts = bare.split()
    key = "".join(parts)
    left = len(bare) - len(key)  # the whitespace split took out, if any
    if left:
        spaces = bare.count(" ")  # most texts space their tokens with spaces alone
        if spaces != left and spaces + bare.count("\t") + bare.count("\n") != left:
            return None
    return key, parts, names


def shape_of(text: str) -> str | None:
    """The shape key of a text the scanner accepts and whose whitespace changes nothing,
    else None (for tests and tools; the cache finds it without scanning)."""
    cut = key_of(text)
    if cut is None:
        return None
    try:
        tokens = scan(text)
    except Exception:
        return None
    key, parts, _ = cut
    return key if spaced_freely(parts, free_offsets(tokens)) else None


# A shape met once: its key, compiled the plain way. Most formulas an agent writes are
# never sent again, so the marked body (and the scan for where its whitespace may stand)
# is made only for a shape met a second time, in another spelling.
_SEEN_ONCE = None


class ShapeCache:
    """Programs by exact text and by token shape, least recently used first out.

    A text compiled here (plainly, or as the shared body of its shape) is kept by its exact
    text, so sending it again is one dict lookup (`texts.get`); a text served from its
    shape is not, as serving it again from the shape costs about a microsecond.
    """

    def __init__(self, characters: int, entries: int, texts: int) -> None:
        self.shapes: BoundedCache[Shape | None] = BoundedCache(characters, entries, _shape_weight)
        self.texts: BoundedCache[Program] = BoundedCache(characters, texts)

    def program(self, text: str) -> Program:
        """The program of `text`: its shape's body with this text's positions, or compiled
        plainly (real positions) when the text has no shape, is the first of its shape, or
        fails to parse marked."""
        found_text = self.texts.get(text)
        if found_text is not None:
            return found_text
        return self.unheld(text)

    def unheld(self, text: str) -> Program:
        """`program` for a text the caller found missing from `texts` (the hot path)."""
        cut = key_of(text)
        if cut is None:
            return self._kept(text, compile_tree(parse(text)))
        key, parts, names = cut
        shapes = self.shapes
        found = shapes.get(key, shapes)  # the cache itself stands for "never met"
        if type(found) is Shape:
            # One part: no whitespace between tokens, nothing to check (the commonest text).
            if len(parts) == 1 or spaced_freely(parts, found.free):
                # Not contextlib.suppress: entering a context manager doubles a hit's cost.
                try:  # noqa: SIM105
                    shapes.touch(key)
                except KeyError:  # evicted meanwhile by another thread
                    pass
                return Program(found.body, found.frame_size, names, text)
            # The same characters, other tokens.
            return self._kept(text, compile_tree(parse(text)))
        if found is shapes:
            program = self._kept(text, compile_tree(parse(text)))
            shapes.put(key, _SEEN_ONCE)
            return program
        return self._kept(text, self._shared(text, cut))

    def forget(self) -> None:
        """Empty both caches (for measurements and tests: every formula is new again)."""
        for cache in (self.shapes, self.texts):
            cache.programs.clear()
            cache.held = 0

    def _kept(self, text: str, program: Program) -> Program:
        self.texts.put(text, program)
        return program

    def _shared(self, text: str, cut: Key) -> Program:
        """The second spelling of a shape: its body compiled once with marked positions."""
        key, parts, _ = cut
        tokens = scan(text)  # the scanner's refusal, with real positions
        free = free_offsets(tokens)
        if not spaced_freely(parts, free):
            return compile_tree(parse_tokens(text, tokens))
        try:
            shared = compile_tree(parse_tokens(text, marked(tokens)))
        except Exception:
            # The refusal (or fault) again with real positions, from the plain path.
            return compile_tree(parse_tokens(text, tokens))
        self.shapes.put(key, Shape(shared.body, shared.frame_size, free, len(text)))
        return Program(shared.body, shared.frame_size, shared.names, text)


def placed(failure: Failure, program: Program) -> Failure:
    """The failure with every position marker replaced by the position of that token in
    the text the program was given for (a refusal of a plainly compiled one is unchanged)."""
    text = program.marked
    if text is None or "\x00" not in failure.message:
        return failure
    positions = token_positions(text)
    message = _MARKER.sub(lambda found: str(positions[int(found.group(1))] + 1), failure.message)
    return Failure(failure.code, message)
