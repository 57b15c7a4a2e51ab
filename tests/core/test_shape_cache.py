"""Issue 27, "Fresh text faster than pint": a formula whose tokens match an earlier formula's
but for its slot names is served from the shape cache (reckoner.core.shapes), whatever its
whitespace, and answers exactly what a fresh compile of its own text answers: the same value
bit for bit, the same slots read, and the same refusal sentence naming its own slots and its
own character positions.
Spec: docs/guide/formulas.md (positions are characters of the formula, counted from 1)."""

from __future__ import annotations

from typing import Any
from unittest.mock import patch

from hypothesis import given
from hypothesis import strategies as st
from test_properties import SLOTS, expressions, token_soup

from reckoner import wire
from reckoner.core import api, shapes
from reckoner.core.api import Evaluated, as_failure, evaluate, run_program, stored
from reckoner.core.compiler import compile_tree
from reckoner.core.errors import EngineError, Failure
from reckoner.core.lexer import KIND, POS, TEXT, T, tokenize
from reckoner.core.notation import BY_NAME
from reckoner.core.parser import parse

whitespace_runs = st.text(alphabet=" \t\n", max_size=3)


def _fresh(text: str) -> Evaluated | Failure:
    """What a compile of this text alone answers: no cache, real positions throughout."""
    try:
        program = compile_tree(parse(text))
    except Exception as error:
        return as_failure(error)
    return run_program(program, SLOTS)


def _answer(result: Evaluated | Failure) -> Any:
    if isinstance(result, Failure):
        return ("refused", result.code, result.message)
    reads = {name: wire.dumps(stored(value)) for name, value in result.reads.items()}
    return ("value", wire.dumps(stored(result.value)), list(reads.items()))


def _respaced(text: str, runs: list[str]) -> str | None:
    """The formula's own tokens, written again with the given whitespace around each."""
    try:
        tokens = tokenize(text, frozenset(BY_NAME))
    except EngineError:
        return None
    pieces = []
    for i, token in enumerate(tokens[:-1]):
        written = "@" + token[TEXT] if token[KIND] is T.SLOT else token[TEXT]
        pieces.append(runs[i % len(runs)] + written)
    return "".join(pieces) + runs[-1]


@given(expressions, st.lists(whitespace_runs, min_size=1, max_size=8))
def test_a_respaced_formula_answers_what_a_fresh_compile_of_its_own_text_answers(
    formula: str, runs: list[str]
) -> None:
    """The first text compiles the shape; the respaced one (same tokens, whitespace
    anywhere) is served from it and must answer exactly what compiling it alone answers:
    value bit for bit, slots read, refusal sentence with its own positions."""
    variant = _respaced(formula, runs)
    for text in (formula, variant if variant is not None else formula):
        assert _answer(evaluate(text, SLOTS)) == _answer(_fresh(text)), text
        program = api.compile_formula(text)
        if not isinstance(program, Failure):
            assert _answer(run_program(program, SLOTS)) == _answer(_fresh(text)), text


@given(st.one_of(expressions, token_soup), st.integers(0, 60), whitespace_runs)
def test_whitespace_inserted_anywhere_answers_what_a_fresh_compile_answers(
    formula: str, where: int, run: str
) -> None:
    """Whitespace put at any character, even inside a name or a number (where it changes
    the tokens, so the shape), or taken away, never makes the cached path answer otherwise
    than a fresh compile of that text."""
    evaluate(formula, SLOTS)
    cut = min(where, len(formula))
    inserted = formula[:cut] + run + formula[cut:]
    removed = formula[:cut] + formula[cut:].lstrip(" \t\n")  # '1 .v' becomes '1.v'
    squeezed = "".join(formula.split())
    for variant in (inserted, removed, squeezed):
        assert _answer(evaluate(variant, SLOTS)) == _answer(_fresh(variant)), variant


def _compiles_while(action: Any) -> int:
    calls = []
    real = shapes.compile_tree

    def counting(tree: Any) -> Any:
        calls.append(tree)
        return real(tree)

    with patch.object(shapes, "compile_tree", counting):
        action()
    return len(calls)


def test_a_formula_whose_refusal_position_shifts_names_its_own_position() -> None:
    """The missing slot sits at character 6 of the first text and at character 12 of the
    third, which is served from the shape (made at its second spelling) without compiling."""
    first = evaluate("@V / @absent_a + 1", SLOTS)
    assert isinstance(first, Failure)
    assert "@absent_a at character 6 " in first.message, first.message
    assert evaluate("@V/@absent_a + 1", SLOTS) == _fresh("@V/@absent_a + 1")
    text = "\n  @V  /\t  @absent_a+1   "
    results: list[Evaluated | Failure] = []
    compiled = _compiles_while(lambda: results.append(evaluate(text, SLOTS)))
    assert compiled == 0
    (second,) = results
    assert isinstance(second, Failure)
    assert text.index("@absent_a") == 11
    assert "@absent_a at character 12 " in second.message, second.message
    assert second == _fresh(text)


def test_a_runtime_refusal_inside_a_bounded_form_names_the_positions_of_its_own_text() -> None:
    """Division by zero inside a $sum body: the operator's position and the form's are the
    respaced text's own."""
    evaluate("$sum_{k=0}^{3}(@V/k)", SLOTS)
    text = "$sum_{ k = 0 }^{ 3 }(  @V  /  k )"
    assert shapes.shape_of(text) == shapes.shape_of("$sum_{k=0}^{3}(@V/k)")
    result = evaluate(text, SLOTS)
    assert isinstance(result, Failure)
    assert result == _fresh(text)
    assert f"at character {text.index('/') + 1}" in result.message, result.message


def test_a_text_the_scanner_refuses_is_never_served_from_a_shape_it_resembles() -> None:
    """'1 . v' is a field read of a number (a valid parse); '1.v' is a malformed number. The
    second must get the scanner's own refusal, not the first one's cached program."""
    evaluate("1 . v", SLOTS)
    assert shapes.shape_of("1.v") is None
    result = evaluate("1.v", SLOTS)
    assert isinstance(result, Failure)
    assert result == _fresh("1.v")
    assert "no digit after its decimal point" in result.message


def test_a_respaced_formula_over_the_length_limit_is_refused_though_its_shape_is_known() -> None:
    """The length limit counts the text's characters, whitespace included."""
    evaluate("@V/@R", SLOTS)
    text = "@V/@R" + " " * 10_000
    assert shapes.shape_of(text) is None
    result = evaluate(text, SLOTS)
    assert isinstance(result, Failure)
    assert "MAX_FORMULA_LENGTH" in result.message


def test_literals_are_part_of_the_shape() -> None:
    """Decision (docs/decisions/eval-speed.md): a literal's value is read while compiling
    (folding, the x^2 route), so another literal is another shape."""
    assert shapes.shape_of("@V*2") != shapes.shape_of("@V*3")
    assert shapes.shape_of("@V * 2") == shapes.shape_of("@V*2")
    evaluate("@V*2", SLOTS)
    assert _answer(evaluate("@V * 3", SLOTS)) == _answer(_fresh("@V * 3"))
    assert _answer(evaluate("@V * 2", SLOTS)) == _answer(_fresh("@V * 2"))


def test_the_shape_cache_holds_at_most_its_entry_count() -> None:
    """Issue 27: an LRU with a fixed entry count, whatever the entries' size."""
    cache = shapes.ShapeCache(characters=10**9, entries=50, texts=10**6)
    for i in range(200):
        cache.program(f"@s+{i}")
    assert len(cache.shapes.programs) == 50
    # Least recently used first out: the newest fifty are kept.
    assert "@+199" in cache.shapes.programs and "@+149" not in cache.shapes.programs


def test_the_shape_cache_holds_at_most_its_characters() -> None:
    """Issue 8's bound: the shapes' text plus a fixed overhead an entry, counted exactly."""
    cache = shapes.ShapeCache(characters=2_000, entries=10**6, texts=10**6)
    for i in range(500):
        cache.program(f"@slot_number*{i}+@other")
    held = cache.shapes.held
    assert held <= 2_000
    assert held == sum(len(key) + shapes.PROGRAM_ENTRY_OVERHEAD for key in cache.shapes.programs)


def test_a_shape_used_again_outlives_newer_shapes() -> None:
    """Least recently used, not first in: a hit moves its shape to the young end."""
    cache = shapes.ShapeCache(characters=10**9, entries=2, texts=10**6)
    cache.program("@a+1")
    cache.program("@a+2")
    cache.program("@b + 1")  # a hit: the shape of @a+1 becomes the most recently used
    cache.program("@a+3")
    assert list(cache.shapes.programs) == ["@+1", "@+3"]


def test_whitespace_that_keeps_two_pieces_apart_is_part_of_the_shape() -> None:
    """`@a 1` is a slot and a number, `@a1` one slot; `2 .5` a number and '.5', `2.5` one
    number: each pair is two shapes. Whitespace elsewhere is not."""
    assert shapes.shape_of("@a 1") != shapes.shape_of("@a1")
    assert shapes.shape_of("2 .5") != shapes.shape_of("2.5")
    assert shapes.shape_of("$sum_{k=0}^{3}(k)") == shapes.shape_of(" $sum_ { k = 0 } ^{3} (k) ")
    assert shapes.shape_of("@V - @a") == shapes.shape_of("@V-@a")
    for text in ("@a 1", "@a1", "2 .5", "2.5"):
        assert _answer(evaluate(text, SLOTS)) == _answer(_fresh(text)), text


def test_whitespace_the_scanner_refuses_gives_no_shape() -> None:
    """Only space, tab and newline are whitespace in a formula: a text holding a carriage
    return or a no-break space has no shape, so it is refused as a fresh compile refuses."""
    evaluate("@V/@R", SLOTS)
    # Beside spaces and tabs too: the count of plain whitespace must match what was cut.
    odd = ("@V / \r@R", "@V /\u00a0 @R", "@V /\t\x0c@R", "\u2028@V/@R ")
    for text in ("@V/\r@R", "@V/\u00a0@R", "@V/\x0b@R", "@ V/@R", *odd):
        assert shapes.shape_of(text) is None, text
        assert _answer(evaluate(text, SLOTS)) == _answer(_fresh(text)), text
        assert isinstance(evaluate(text, SLOTS), Failure), text


def test_whitespace_before_the_subscript_mark_is_never_taken_for_the_mark() -> None:
    """`$sum_{` scans '_' as the subscript mark, `$sum _{` as a bare name '_': a text of the
    second kind must be refused as a fresh compile refuses it, even once the first is
    cached, and the first must not be served a program made from the second."""
    good = "$sum_{k=0}^{3}(k)"
    spaced = "$sum _{k=0}^{3}(k)"
    for first, second in ((good, spaced), (spaced, good)):
        api._FORMULAS.forget()
        for text in (first, second):
            assert _answer(evaluate(text, SLOTS)) == _answer(_fresh(text)), text
    assert shapes.shape_of(spaced) is None
    assert isinstance(evaluate(spaced, SLOTS), Failure)


def test_a_number_spaced_from_a_field_dot_gives_no_shape_to_the_glued_text() -> None:
    """`2 .x` parses (a field read of a number, refused when run); `2.x` is a malformed
    number. Neither order of evaluation lets one answer for the other."""
    for first, second in (("2 .x", "2.x"), ("2.x", "2 .x")):
        api._FORMULAS.forget()
        for text in (first, second):
            assert _answer(evaluate(text, SLOTS)) == _answer(_fresh(text)), text


def test_a_shape_met_once_is_compiled_the_plain_way_and_shared_from_its_second_spelling() -> None:
    """Decision (docs/decisions/eval-speed.md): most formulas are sent once, so the first
    spelling of a shape pays only for its key; the second compiles the shared body; the
    third and later compile nothing."""
    cache = shapes.ShapeCache(characters=10**6, entries=100, texts=10**6)
    counts = [
        _compiles_while(lambda text=text: cache.program(text))
        for text in ("@V*@R+1", "@V * @R + 1", "@V*@R +1", " @V*@R+1 ")
    ]
    assert counts == [1, 1, 0, 0]
    assert type(cache.shapes.programs["@*@+1"]) is shapes.Shape


def test_threads_sharing_a_small_cache_each_get_their_own_texts_answer() -> None:
    """Sessions on threads share the caches; with room for four entries every put evicts,
    so lookups, touches and evictions interleave. No call may fail for it, and each text
    answers what a fresh compile of it answers."""
    import sys
    import threading

    cache = shapes.ShapeCache(characters=10**6, entries=4, texts=4)
    spellings = [
        f"{gap}@V{gap}*{gap}@R{n}{gap}+{gap}{n}{gap}" for n in range(6) for gap in ("", " ", "\t")
    ]
    slots = {**SLOTS, **{f"R{n}": SLOTS["R"] for n in range(6)}}
    problems: list[str] = []

    def work(offset: int) -> None:
        for round_ in range(150):
            text = spellings[(offset + round_ * 7) % len(spellings)]
            try:
                result = run_program(cache.program(text), slots)
            except Exception as error:  # the test reports any fault
                problems.append(f"{text!r}: {error!r}")
                continue
            if _answer(result) != _answer(_fresh_with(text, slots)):
                problems.append(f"{text!r} answered otherwise than a fresh compile")

    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=work, args=(i,)) for i in range(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
    finally:
        sys.setswitchinterval(switch)
    assert not problems, problems[:5]
    assert len(cache.shapes.programs) <= 4 and len(cache.texts.programs) <= 4


def _fresh_with(text: str, slots: dict[str, Any]) -> Evaluated | Failure:
    try:
        program = compile_tree(parse(text))
    except Exception as error:
        return as_failure(error)
    return run_program(program, slots)


def test_a_key_evicted_by_another_thread_while_it_is_put_again_is_kept_and_counted() -> None:
    """Between `put`'s membership test and its move to the young end another thread may
    evict the key: the put must still keep it, count its text once, and raise nothing."""
    from collections import OrderedDict

    class EvictedMeanwhile(OrderedDict[str, Any]):
        def move_to_end(self, key: str, last: bool = True) -> None:
            del self[key]  # the other thread's eviction, landing just before
            raise KeyError(key)

    cache: shapes.BoundedCache[int] = shapes.BoundedCache(characters=10**6, entries=10)
    cache.put("@a+1", 1)
    evicted = EvictedMeanwhile(cache.programs)
    cache.programs = evicted
    cache.held -= len("@a+1") + shapes.PROGRAM_ENTRY_OVERHEAD  # that thread uncounted it
    cache.put("@a+1", 2)
    assert cache.programs == {"@a+1": 2}
    assert cache.held == len("@a+1") + shapes.PROGRAM_ENTRY_OVERHEAD


def _renamed(text: str, names: list[str]) -> str:
    """The formula with its slot references renamed in turn from `names` (its tokens and
    whitespace otherwise kept), or the text itself when the scanner refuses it."""
    try:
        tokens = tokenize(text, frozenset(BY_NAME))
    except EngineError:
        return text
    pieces, end, count = [], 0, 0
    for token in tokens[:-1]:
        if token[KIND] is T.SLOT:
            pieces.append(text[end : token[POS]] + "@" + names[count % len(names)])
            end = token[POS] + 1 + len(token[TEXT])
            count += 1
    return "".join(pieces) + text[end:]


slot_names = st.lists(st.sampled_from([*SLOTS, "missing", "other_missing"]), min_size=1)


@given(expressions, slot_names, st.lists(whitespace_runs, min_size=1, max_size=8))
def test_a_formula_with_other_slot_names_answers_what_a_fresh_compile_of_its_own_text_answers(
    formula: str, names: list[str], runs: list[str]
) -> None:
    """Decision (docs/decisions/eval-speed.md): slot names are parameters of a shape. The
    first two texts make the shape; the renamed one, respaced too, is served from it and
    must answer exactly what compiling it alone answers: its own slots read, its own
    missing slots named, values bit for bit."""
    respaced = _respaced(formula, runs) or formula
    renamed = _renamed(formula, names)
    for text in (formula, respaced, renamed, _renamed(respaced, names)):
        assert _answer(evaluate(text, SLOTS)) == _answer(_fresh(text)), text


def test_a_formula_with_other_slot_names_is_served_from_the_shape_without_compiling() -> None:
    """`@V1/@R1`, then `@V2/@R2`: the third text of that shape, with names of its own,
    compiles nothing, reads its own slots, and a missing one is named by its own name."""
    slots = {**SLOTS, "V1": SLOTS["V"], "R1": SLOTS["R"], "V2": SLOTS["V"], "R2": SLOTS["R"]}
    cache = shapes.ShapeCache(characters=10**6, entries=100, texts=10**6)
    counts = [
        _compiles_while(lambda text=text: cache.program(text))
        for text in ("@V1/@R1", "@V2 / @R2", "@R/@V", "@V / @nowhere")
    ]
    assert counts == [1, 1, 0, 0]
    swapped = run_program(cache.program("@R/@V"), slots)
    assert isinstance(swapped, Evaluated)
    assert list(swapped.reads) == ["R", "V"]
    assert _answer(swapped) == _answer(_fresh_with("@R/@V", slots))
    missing = run_program(cache.program("@V / @nowhere"), slots)
    assert isinstance(missing, Failure)
    assert "the slot @nowhere at character 6 does not exist" in missing.message, missing.message
    assert missing == _fresh_with("@V / @nowhere", slots)


def test_one_slot_read_twice_and_two_slots_share_a_shape_and_answer_each_their_own() -> None:
    """`@a*@a` and `@V*@R` have one shape; each text reads what its own names say."""
    texts = ("@V*@R", "@R * @V", "@V*@V", "@R * @R", "@V*@missing")
    assert {shapes.shape_of(text) for text in texts} == {"@*@"}
    for text in texts:
        assert _answer(evaluate(text, SLOTS)) == _answer(_fresh(text)), text


def test_a_bare_at_sign_is_never_served_from_the_shape_of_a_slot_reference() -> None:
    """`@ +@b` holds an '@' that starts no slot (the scanner refuses it); without its names
    counted it would read as the shape of `@a+@b`. It must get the scanner's refusal."""
    evaluate("@V+@R", SLOTS)
    evaluate("@R + @V", SLOTS)
    for text in ("@ +@R", "@+@R", "@V+@", "@V+@ R"):
        assert shapes.shape_of(text) is None, text
        result = evaluate(text, SLOTS)
        assert isinstance(result, Failure), text
        assert result == _fresh(text), text


@given(st.one_of(expressions, token_soup))
def test_the_key_finds_the_slot_names_the_scanner_reads(formula: str) -> None:
    """A text served from a shape runs with the names its key found: for every text the
    scanner accepts, they are its slot tokens' names in order, and its '@' count."""
    cut = shapes.key_of(formula)
    try:
        tokens = tokenize(formula, frozenset(BY_NAME))
    except EngineError:
        return
    scanned = tuple(token[TEXT] for token in tokens if token[KIND] is T.SLOT)
    assert cut is not None
    key, _, names = cut
    assert names == scanned
    assert key.count("@") == len(scanned)


def test_a_count_left_too_high_by_racing_puts_is_reset_once_the_cache_empties() -> None:
    """Two threads putting one new key at once may both count it; were the count never
    corrected, the cache would one day evict every entry on every put. Once eviction has
    emptied it, the count is the truth again: zero, then what the next put holds."""
    cache: shapes.BoundedCache[int] = shapes.BoundedCache(characters=100, entries=10)
    cache.put("@a+1", 1)
    cache.held += 1_000  # what racing puts would leave behind
    cache.put("@a+2", 2)  # over the bound: eviction empties the cache
    cache.put("@a+3", 3)
    assert cache.programs == {"@a+3": 3}
    assert cache.held == len("@a+3") + shapes.PROGRAM_ENTRY_OVERHEAD
