"""The recursive-descent parser (docs/guide/formulas.md and docs/reference/notations.md): tokens to
one expression tree.

Notation shapes and arities are checked here against the notation table, so every error
in the written form is reported before anything is evaluated.
"""

from __future__ import annotations

from reckoner.contract.codes import ErrorCode
from reckoner.contract.limits import MAX_FORMULA_LENGTH, MAX_NESTING_DEPTH

from .errors import fail
from .lexer import (
    K_ARROW,
    K_CARET,
    K_COMMA,
    K_DOT,
    K_END,
    K_EQUALS,
    K_LBRACE,
    K_LBRACKET,
    K_LPAREN,
    K_MINUS,
    K_NAME,
    K_NUMBER,
    K_PLUS,
    K_RBRACE,
    K_RBRACKET,
    K_RPAREN,
    K_SLASH,
    K_SLOT,
    K_STAR,
    K_SYMBOL,
    K_UNDERSCORE,
    KIND,
    POS,
    POSITION_MARK,
    TEXT,
    VALUE,
    T,
    Token,
    at,
    tokenize,
)
from .notation import (
    BY_NAME,
    VOCABULARY,
    Binding,
    Kind,
    Notation,
    Positions,
    dollar_form,
    foreign_function_hint,
)
from .syntax import (
    Binary,
    Bounded,
    BoundName,
    Call,
    Chain,
    Constant,
    Field,
    Index,
    Node,
    Number,
    SlotRef,
    Unary,
)

_SYMBOL_NAMES = frozenset(BY_NAME)
_PRIMARY_START = frozenset({K_NUMBER, K_NAME, K_SLOT, K_SYMBOL, K_LPAREN})


def parse(text: str) -> Node:
    """Parse one formula; raises EngineError carrying the first failure."""
    return parse_tokens(text, scan(text))


def scan(text: str) -> list[Token]:
    """The formula's tokens, after the checks of its length and emptiness (which come first,
    so an over-long text is refused before it is scanned)."""
    _check_text(text)
    return tokenize(text, _SYMBOL_NAMES)


def parse_tokens(text: str, tokens: list[Token]) -> Node:
    """Parse the tokens `scan` gave for `text` (or the same tokens with marked positions)."""
    return _Parser(text, tokens).formula()


def marked(tokens: list[Token]) -> list[Token]:
    """The tokens with every position replaced by the token's index past POSITION_MARK, for
    a program shared by every text of their shape (reckoner.core.shapes)."""
    mark = POSITION_MARK
    return [(kind, spelled, mark + i, value) for i, (kind, spelled, _, value) in enumerate(tokens)]


def token_positions(text: str) -> list[int]:
    """Where each token of a formula the scanner accepts starts, the end token last."""
    return [token[POS] for token in tokenize(text, _SYMBOL_NAMES)]


def _check_text(text: str) -> None:
    if len(text) > MAX_FORMULA_LENGTH:
        raise fail(
            ErrorCode.INVALID_FORMULA,
            f"the formula is {len(text)} characters long, over the limit of "
            f"{MAX_FORMULA_LENGTH} (MAX_FORMULA_LENGTH); split the work into several eval "
            f"steps that store intermediate results",
        )
    if not text.strip():
        raise fail(
            ErrorCode.INVALID_FORMULA,
            "the formula is empty; write one expression, such as (@V)^2/@R",
        )


def _describe(tok: Token) -> str:
    if tok[KIND] is K_END:
        return "the end of the formula"
    shown = "@" + tok[TEXT] if tok[KIND] is K_SLOT else tok[TEXT]
    return f"'{shown}' at {at(tok[POS])}"


class _Parser:
    def __init__(self, text: str, tokens: list[Token]) -> None:
        self.text = text
        self.tokens = tokens
        self.i = 0
        self.depth = 0
        self.slots = 0  # slot references read so far: tokens are read once, in text order

    # -- token helpers -------------------------------------------------------------------

    @property
    def tok(self) -> Token:
        return self.tokens[self.i]

    def peek(self, offset: int = 1) -> Token:
        return self.tokens[min(self.i + offset, len(self.tokens) - 1)]

    def advance(self) -> Token:
        tok = self.tokens[self.i]
        self.i += 1
        return tok

    def enter(self, pos: int) -> None:
        self.depth += 1
        if self.depth > MAX_NESTING_DEPTH:
            raise self._too_deep(pos)

    def _too_deep(self, pos: int) -> Exception:
        return fail(
            ErrorCode.INVALID_FORMULA,
            f"the formula nests deeper than {MAX_NESTING_DEPTH} levels (MAX_NESTING_DEPTH) at "
            f"{at(pos)}; store inner results with separate eval steps",
        )

    def leave(self) -> None:
        self.depth -= 1

    def expect_close(self, kind: T, opener: Token, what: str) -> None:
        if self.tokens[self.i][KIND] is not kind:
            raise fail(
                ErrorCode.INVALID_FORMULA,
                f"the '{opener[TEXT]}' opened at {at(opener[POS])} is never closed: expected "
                f"'{kind.value}' {what} but found {_describe(self.tokens[self.i])}; add the "
                f"missing '{kind.value}'",
            )
        self.advance()

    # -- grammar -------------------------------------------------------------------------

    def formula(self) -> Node:
        node = self.additive()
        tok = self.tokens[self.i]
        if tok[KIND] is not K_END:
            raise self._trailing(tok)
        return node

    def _trailing(self, tok: Token) -> Exception:
        before = self.tokens[self.i - 1] if self.i else None
        if tok[KIND] is T.LPAREN and before is not None and before[KIND] is T.NAME:
            meant = dollar_form(before[TEXT])
            if meant is not None:
                return fail(
                    ErrorCode.INVALID_FORMULA,
                    f"the bare name '{before[TEXT]}' at {at(before[POS])} is called like a "
                    f"function, and functions are $notations: write {meant}",
                )
        if tok[KIND] in _PRIMARY_START:
            return fail(
                ErrorCode.INVALID_FORMULA,
                f"{_describe(tok)} follows a complete expression with no operator; "
                f"multiplication must be written with '*' (as in 2*@R or 2*$pi)",
            )
        if tok[KIND] is K_CARET and self.peek()[KIND] is K_LBRACE:
            return self._caret_brace(tok)
        return fail(
            ErrorCode.INVALID_FORMULA,
            f"unexpected {_describe(tok)} after a complete expression; a formula is exactly "
            f"one expression, so remove it or join it with an operator",
        )

    def _caret_brace(self, tok: Token) -> Exception:
        return fail(
            ErrorCode.INVALID_FORMULA,
            f"'^{{' at {at(tok[POS])} is not a power: an upper position '^{{...}}' exists only "
            f"right after the subscript of $sum, $prod, $seq or $integral; write a power "
            f"with parentheses, as in x^(2)",
        )

    def additive(self) -> Node:
        first = self.multiplicative()
        tokens = self.tokens
        kind = tokens[self.i][KIND]
        if kind is not K_PLUS and kind is not K_MINUS:
            return first
        rest: list[tuple[str, Node, int]] = []
        while kind is K_PLUS or kind is K_MINUS:
            op = tokens[self.i]
            self.i += 1
            rest.append((op[TEXT], self.multiplicative(), op[POS]))
            kind = tokens[self.i][KIND]
        return Chain(first, tuple(rest))

    def multiplicative(self) -> Node:
        tokens = self.tokens
        kind = tokens[self.i][KIND]
        # An operand without a sign (the common case) goes to power() directly.
        first = self.unary() if kind is K_MINUS or kind is K_PLUS else self.power()
        kind = tokens[self.i][KIND]
        if kind is not K_STAR and kind is not K_SLASH:
            return first
        rest: list[tuple[str, Node, int]] = []
        while kind is K_STAR or kind is K_SLASH:
            op = tokens[self.i]
            self.i += 1
            kind = tokens[self.i][KIND]
            operand = self.unary() if kind is K_MINUS or kind is K_PLUS else self.power()
            rest.append((op[TEXT], operand, op[POS]))
            kind = tokens[self.i][KIND]
        return Chain(first, tuple(rest))

    def unary(self) -> Node:
        tokens = self.tokens
        kind = tokens[self.i][KIND]
        if kind is not K_MINUS and kind is not K_PLUS:
            return self.power()  # no sign, the common case
        # A run of signs is read in a loop: `---x` costs no recursion depth per sign.
        signs: list[Token] = []
        while kind is K_MINUS or kind is K_PLUS:
            signs.append(tokens[self.i])
            self.i += 1
            kind = tokens[self.i][KIND]
        node = self.power()
        minuses = [sign for sign in signs if sign[KIND] is K_MINUS]
        if len(minuses) % 2 == 1:
            node = Unary("-", node, minuses[0][POS])
        return node

    def power(self) -> Node:
        tok = self.tokens[self.i]
        kind = tok[KIND]
        # The atoms are read here, without a call to primary() for each.
        if kind is K_SLOT:
            self.i += 1
            base: Node = SlotRef(tok[TEXT], tok[POS], self.slots)
            self.slots += 1
        elif kind is K_NUMBER:
            self.i += 1
            base = Number(tok[VALUE], tok[TEXT], tok[POS])
        elif kind is K_NAME:
            self.i += 1
            base = BoundName(tok[TEXT], tok[POS])
        else:
            base = self.primary()
        kind = self.tokens[self.i][KIND]
        if kind is K_LBRACKET or kind is K_DOT:
            base = self.postfix(base)
        if self.tokens[self.i][KIND] is K_CARET:
            op = self.advance()
            if self.tokens[self.i][KIND] is K_LBRACE:
                raise self._caret_brace(op)
            self.enter(op[POS])
            exponent = self.unary()
            self.leave()
            return Binary("^", base, exponent, op[POS])
        return base

    def postfix(self, node: Node) -> Node:
        """Indices and fields after a primary (`@a[0]`, `@o.v`)."""
        steps = 0
        while True:
            tok = self.tokens[self.i]
            if tok[KIND] is K_LBRACKET or tok[KIND] is K_DOT:
                steps += 1
                if steps > MAX_NESTING_DEPTH:
                    raise self._too_deep(tok[POS])
            if tok[KIND] is K_LBRACKET:
                self.advance()
                self.enter(tok[POS])
                index = self.additive()
                self.leave()
                self.expect_close(K_RBRACKET, tok, "to end the index")
                node = Index(node, index, tok[POS])
            elif tok[KIND] is K_DOT:
                self.advance()
                name = self.tokens[self.i]
                if name[KIND] is not K_NAME:
                    raise fail(
                        ErrorCode.INVALID_FORMULA,
                        f"'.' at {at(tok[POS])} must be followed by a field name, but "
                        f"{_describe(name)} follows; write a field as @o.field",
                    )
                self.advance()
                node = Field(node, name[TEXT], tok[POS])
            else:
                return node

    def primary(self) -> Node:
        """Anything but an atom (slot, number, bound name), which power() reads itself."""
        tok = self.tokens[self.i]
        kind = tok[KIND]
        if kind is K_SYMBOL:
            return self.symbol()
        if kind is K_LPAREN:
            self.advance()
            self.enter(tok[POS])
            inner = self.additive()
            self.leave()
            self.expect_close(K_RPAREN, tok, "to close the group")
            return inner
        if kind is K_CARET and self.peek()[KIND] is K_LBRACE:
            raise self._caret_brace(tok)
        before = self.tokens[self.i - 1]  # at the first token: the end token, no '*'
        if kind is K_STAR and before[KIND] is K_STAR and before[POS] + 1 == tok[POS]:
            raise fail(
                ErrorCode.INVALID_FORMULA,
                f"'**' at {at(before[POS])} is not an operator of the formula language; a "
                "power is written with '^', as in @x^2",
            )
        after = self.peek()
        if kind is K_DOT and after[KIND] is K_NUMBER and after[POS] == tok[POS] + 1:
            raise fail(
                ErrorCode.INVALID_FORMULA,  # the code it always had; the sentence gained the fix
                f"the number '.{after[TEXT]}' at {at(tok[POS])} has no digit before its decimal "
                f"point; write it as '0.{after[TEXT]}'",
            )
        expected = "a number, @slot, $notation, bound name or '('"
        raise fail(
            ErrorCode.INVALID_FORMULA,
            f"expected {expected} but found {_describe(tok)}; complete the expression there",
        )

    # -- notation ------------------------------------------------------------------------

    def symbol(self) -> Node:
        tok = self.tokens[self.i]
        self.i += 1
        notation = BY_NAME.get(tok[TEXT])
        if notation is None:
            hint = foreign_function_hint(tok[TEXT])
            raise fail(
                ErrorCode.INVALID_NOTATION,
                f"'{tok[TEXT]}' at {at(tok[POS])} is not a notation"
                + (f" ({hint})" if hint else "")
                + f"; the 35 notations are {VOCABULARY}",
            )
        if notation.kind is Kind.CONSTANT:
            return self.constant(notation, tok)
        if notation.kind is Kind.FUNCTION:
            return self.function(notation, tok)
        return self.bounded(notation, tok)

    def constant(self, notation: Notation, tok: Token) -> Node:
        nxt = self.tokens[self.i]
        if (nxt[KIND] is K_LPAREN or nxt[KIND] is K_UNDERSCORE) and nxt[POS] == tok[POS] + len(
            tok[TEXT]
        ):
            raise fail(
                ErrorCode.INVALID_NOTATION,
                f"the constant {notation.name} at {at(tok[POS])} takes no parenthesis and no "
                f"position; write it bare as {notation.written}, and a power with '^' as in "
                f"{notation.name}^2",
            )
        return Constant(notation, tok[POS])

    def function(self, notation: Notation, tok: Token) -> Node:
        if self.tokens[self.i][KIND] is K_UNDERSCORE:
            raise fail(
                ErrorCode.INVALID_NOTATION,
                f"the function {notation.name} at {at(tok[POS])} takes no subscript; write it "
                f"as {notation.written}",
            )
        if self.tokens[self.i][KIND] is not K_LPAREN:
            raise fail(
                ErrorCode.INVALID_NOTATION,
                f"the function {notation.name} at {at(tok[POS])} is written with its "
                f"arguments in parentheses, as {notation.written}",
            )
        args = self.arguments()
        if len(args) not in notation.arities:
            raise self._arity(notation, tok, len(args))
        return Call(notation, tuple(args), tok[POS])

    def _arity(self, notation: Notation, tok: Token, count: int) -> Exception:
        wanted = " or ".join(str(a) for a in notation.arities)
        plural = "s" if notation.arities != (1,) else ""
        return fail(
            ErrorCode.INVALID_ARITY,
            f"{notation.name} at {at(tok[POS])} takes {wanted} argument{plural} but was given "
            f"{count}; write it as {notation.written}",
        )

    def arguments(self) -> list[Node]:
        opener = self.tokens[self.i]
        self.i += 1
        self.enter(opener[POS])
        args: list[Node] = []
        if self.tokens[self.i][KIND] is not K_RPAREN:
            args.append(self.additive())
            while self.tokens[self.i][KIND] is K_COMMA:
                self.i += 1
                args.append(self.additive())
        self.leave()
        if self.tokens[self.i][KIND] is not K_RPAREN:
            raise fail(
                ErrorCode.INVALID_FORMULA,
                f"the argument list opened at {at(opener[POS])} must continue with ',' or "
                f"close with ')', but {_describe(self.tokens[self.i])} follows; add the "
                f"missing ')'",
            )
        self.advance()
        return args

    def bounded(self, notation: Notation, tok: Token) -> Node:
        variable: str | None = None
        binding: Binding | None = None
        lower: Node | None = None
        upper: Node | None = None
        has_subscript = self.tokens[self.i][KIND] is K_UNDERSCORE
        if has_subscript:
            self.advance()
            opener = self.tokens[self.i]
            if opener[KIND] is not K_LBRACE:
                raise fail(
                    ErrorCode.INVALID_FORMULA,
                    f"the '_' after {notation.name} at {at(tok[POS])} must open a position "
                    f"'{{...}}', but {_describe(opener)} follows; write {notation.written}",
                )
            self.advance()
            self.enter(opener[POS])
            if self.tokens[self.i][KIND] is K_NAME and self.peek()[KIND] in (K_EQUALS, K_ARROW):
                variable = self.advance()[TEXT]
                binding = Binding.EQUALS if self.advance()[KIND] is K_EQUALS else Binding.ARROW
            lower = self.additive()
            self.leave()
            self.expect_close(K_RBRACE, opener, "to end the subscript")
        has_upper = self.tokens[self.i][KIND] is K_CARET and self.peek()[KIND] is K_LBRACE
        if has_upper:
            self.advance()
            opener = self.advance()
            self.enter(opener[POS])
            upper = self.additive()
            self.leave()
            self.expect_close(K_RBRACE, opener, "to end the upper bound")
        self._check_positions(notation, tok, has_subscript, has_upper, binding)
        if self.tokens[self.i][KIND] is not K_LPAREN:
            raise fail(
                ErrorCode.INVALID_NOTATION,
                f"{notation.name} at {at(tok[POS])} needs its body in parentheses after its "
                f"positions; write it as {notation.written}",
            )
        args = self.arguments()
        if len(args) not in notation.arities:
            raise self._arity(notation, tok, len(args))
        return Bounded(notation, variable, lower, upper, tuple(args), tok[POS])

    def _check_positions(
        self,
        notation: Notation,
        tok: Token,
        has_subscript: bool,
        has_upper: bool,
        binding: Binding | None,
    ) -> None:
        where = f"{notation.name} at {at(tok[POS])}"
        form = notation.written
        positions = notation.positions
        if positions is Positions.NONE:
            if has_subscript or has_upper:
                raise fail(
                    ErrorCode.INVALID_NOTATION,
                    f"{where} takes no position; write it as {form}",
                )
            return
        if not has_subscript:
            if positions is Positions.BOTH_OR_NONE and not has_upper:
                return
            missing = "its bounds" if positions is not Positions.SUBSCRIPT else "its subscript"
            raise fail(
                ErrorCode.INVALID_ARITY,
                f"{where} is written without {missing}; write it as {form}",
            )
        if positions is Positions.SUBSCRIPT:
            if has_upper:
                raise fail(
                    ErrorCode.INVALID_ARITY,
                    f"{where} takes a subscript only, no upper bound; write it as {form}",
                )
        elif not has_upper:
            raise fail(
                ErrorCode.INVALID_ARITY,
                f"{where} is missing its upper bound '^{{...}}'; write it as {form}",
            )
        if notation.binding is Binding.NONE and binding is not None:
            raise fail(
                ErrorCode.INVALID_ARITY,
                f"{where} takes plain bounds, not a bound variable in its subscript; write it "
                f"as {form}, naming the variable as the last argument",
            )
        if notation.binding is not Binding.NONE and binding is not notation.binding:
            if binding is None:
                problem = "its subscript binds no variable"
            else:
                problem = f"its subscript binds with '{binding.value[1:-1]}'"
            raise fail(
                ErrorCode.INVALID_ARITY,
                f"{where}: {problem}, but it needs '{notation.binding.value}'; write it as {form}",
            )
