"""The compiled-formula caches: by exact text, and by token shape with positions as parameters.

Agents send the same formula again and again, and often not byte for byte: a space more
here, a newline there. A formula's meaning depends only on its tokens (kind and text, the
literals included); its positions reach nothing but the sentences of its refusals. So a
program is compiled once per token shape with every position written as its token's index
past POSITION_MARK (reckoner.core.lexer), and each text of the shape gets its own `Program`
sharing that body; a refusal raised while running it names markers, which `placed` replaces
with the character positions of the text actually evaluated. Results are bit for bit a fresh
compile's: the same tokens build the same tree and the same closures.

Literals are part of the shape, not parameters: constant folding, the literal-exponent
route of `x^2` and the lanes compiler all read a literal's value while compiling, so a
formula with another literal is another shape and compiles afresh.

A text is given a shape only if `_STRICT` proves the scanner would accept it and split it
into exactly the pieces `_PIECE` finds, whatever surrounds them: every number must be
followed by something no number may touch, names are read whole, and any character outside
the language sends the text down the plain path (`parse`), whose refusals are exact as
ever. A marked parse that fails is likewise reparsed plainly, so every syntax refusal
names real positions.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from typing import Generic, TypeVar

from reckoner.contract.limits import MAX_FORMULA_LENGTH

from .compiler import Program, compile_tree
from .errors import Failure
from .parser import parse, parse_marked, token_positions

V = TypeVar("V")

# Both caches are bounded by the text they hold, not only by their entry count: a compiled
# formula costs about 150 bytes of closures per character of text (measured), so 1,024 long
# formulas once pinned 1.7 GB. 250,000 characters keep each near 40 MB at most, room for
# thousands of the short formulas an agent repeats. Each entry also counts a fixed overhead,
# so even one-character formulas cannot grow them without bound. The text cache's entries
# share their bodies with the shape cache's, so the two together hold little more than one.
PROGRAM_CACHE_CHARACTERS = 250_000
PROGRAM_ENTRY_OVERHEAD = 64
SHAPE_CACHE_ENTRIES = 4_096

# One token as the scanner reads it (docs/guide/formulas.md), atomic so a match never gives
# back characters: a number not followed by a letter, digit, '_' or '.' (each of those is a
# scanner refusal or a different split), a name whole (with its @ or $), '->', punctuation.
_TOKEN = (
    r"(?>[0-9]+(?:\.[0-9]+)?(?:e[+-]?[0-9]+)?[ij]?(?![A-Za-z0-9_.])"
    r"|[@$]?[A-Za-z_][A-Za-z0-9_]*"
    r"|->"
    r"|[-+*/^()\[\]{},.=])"
)
_STRICT = re.compile(rf"(?:[ \t\n]*+{_TOKEN})*+[ \t\n]*+")
_PIECE = re.compile(_TOKEN)
# Whitespace that keeps two pieces apart: after a name or number character, before a
# character a name or number could go on with (`@a 1`, `2 .5`, `$pi e`). Elsewhere the
# scanner reads the same pieces with the whitespace taken out (a piece of punctuation is
# one character, '->' aside, and a text holding '>' alone has no shape).
_GLUE = re.compile(r"[A-Za-z0-9_][ \t\n]+[A-Za-z0-9_.]")
_MARKER = re.compile("\x00([0-9]+)\x00")


class BoundedCache(Generic[V]):
    """Values by text key, oldest first out once the keys' text passes the bound or the
    entries their count. A hit is one dict lookup; `get` leaves the order alone (first in,
    first out) and `touch` moves a key to the young end (least recently used)."""

    def __init__(self, characters: int, entries: int) -> None:
        self.characters = characters
        self.entries = entries
        # OrderedDict: dropping the oldest entry is O(1), where a dict's first key must be
        # found past the holes earlier deletions left at its front.
        self.programs: OrderedDict[str, V] = OrderedDict()
        self.get = self.programs.get
        self.touch = self.programs.move_to_end
        self.held = 0

    def put(self, key: str, value: V) -> None:
        programs = self.programs
        if key not in programs:
            self.held += len(key) + PROGRAM_ENTRY_OVERHEAD
        programs[key] = value
        if self.held > self.characters or len(programs) > self.entries:
            self._evict()

    def _evict(self) -> None:
        programs = self.programs
        while (self.held > self.characters or len(programs) > self.entries) and programs:
            try:
                oldest, _ = programs.popitem(last=False)
            except KeyError:  # emptied meanwhile by another thread
                break
            self.held -= len(oldest) + PROGRAM_ENTRY_OVERHEAD


def shape_of(text: str) -> str | None:
    """The token shape of a formula, or None when the text is too long or the scanner might
    read it otherwise than piece by piece. The shape is itself a formula with the same
    tokens: the text without its whitespace where none of it keeps two pieces apart (the
    common case, found in C), else the pieces one space apart."""
    if len(text) > MAX_FORMULA_LENGTH or _STRICT.fullmatch(text) is None:
        return None
    if _GLUE.search(text) is None:
        return "".join(text.split())
    return " ".join(_PIECE.findall(text))


class ShapeCache:
    """Programs by token shape, least recently used first out; every text its own Program."""

    def __init__(self, characters: int, entries: int) -> None:
        self.shapes: BoundedCache[Program] = BoundedCache(characters, entries)

    def program(self, text: str) -> Program:
        """The program of `text`: its shape's body with this text's positions, or compiled
        plainly (real positions) when the text has no shape or fails to parse marked."""
        shape = shape_of(text)
        if shape is None:
            return compile_tree(parse(text))
        shapes = self.shapes
        found = shapes.get(shape)
        if found is None:
            try:
                found = compile_tree(parse_marked(text))
            except Exception:
                # The refusal (or fault) again with real positions, from the plain path.
                return compile_tree(parse(text))
            shapes.put(shape, found)
        else:
            # Not contextlib.suppress: entering a context manager doubles a hit's cost here.
            try:  # noqa: SIM105
                shapes.touch(shape)
            except KeyError:  # evicted meanwhile by another thread
                pass
        return Program(found.body, found.frame_size, text)


def placed(failure: Failure, program: Program) -> Failure:
    """The failure with every position marker replaced by the position of that token in
    the text the program was given for (a refusal of a plainly compiled one is unchanged)."""
    text = program.marked
    if text is None or "\x00" not in failure.message:
        return failure
    positions = token_positions(text)
    message = _MARKER.sub(lambda found: str(positions[int(found.group(1))] + 1), failure.message)
    return Failure(failure.code, message)
