"""The LaTeX an article body may use: an allow-list of commands and environments. No I/O.

A body is held to this list whoever wrote it (a model, or the template): text, emphasis,
lists, tables, sectioning below the article's own level (the host owns the document, its
class, its packages and its title block), and mathematics. Nothing here reads or writes a
file, runs a program, defines or redefines a command, changes how TeX reads its input
(catcodes, ``\\csname``, ``@``-names, ``^^`` notation) or reads its argument verbatim, so
the body's text means to TeX what it means to the check. The commands the math renderer's
tables spell and those the escapes of prose are spelled with are taken from those modules,
so the template's own output always passes (the property tests hold it to that).
"""

from __future__ import annotations

from reckoner.articles.escape import TEX_ESCAPE_COMMANDS
from reckoner.articles.mathtex import TABLE_COMMANDS

_TEXT = """
    par noindent indent newline linebreak nolinebreak allowbreak pagebreak newpage mbox
    hfill hspace vspace smallskip medskip bigskip quad qquad enspace thinspace nobreakspace
    ldots dots textendash textemdash textquoteleft textquoteright textquotedblleft
    textquotedblright textbullet textperiodcentered textdegree textbar textless textgreater
    textunderscore textbackslash textasciicircum textasciitilde textellipsis textsection
    textparagraph textcopyright textregistered texttrademark textsuperscript textsubscript
    S P dag ddag copyright pounds textperthousand TeX LaTeX footnote
    i j l L o O oe OE ae AE aa AA ss
"""
_EMPHASIS = """
    emph textbf textit textsl textsc textsf textrm texttt textnormal textmd textup underline
    bfseries mdseries itshape slshape scshape upshape sffamily rmfamily ttfamily normalfont em
    tiny scriptsize footnotesize small normalsize large Large LARGE huge Huge
"""
_LISTS = "item"
_TABLES = """
    hline cline multicolumn toprule midrule bottomrule cmidrule addlinespace endhead
    endfirsthead endfoot endlastfoot tabularnewline centering caption textwidth linewidth
    columnwidth
"""
_SECTIONING = "section subsection subsubsection paragraph subparagraph"
_MATH = """
    frac dfrac tfrac binom dbinom tbinom sqrt sum prod coprod int iint iiint oint lim limsup
    liminf sup inf limits nolimits displaystyle textstyle scriptstyle partial nabla infty
    cdot cdots times div pm mp ast star circ bullet oplus otimes wedge vee cap cup setminus
    le leq ge geq ne neq approx equiv sim simeq cong propto ll gg prec succ
    to rightarrow leftarrow Rightarrow Leftarrow leftrightarrow Leftrightarrow longrightarrow
    Longrightarrow mapsto implies iff uparrow downarrow in notin ni subset subseteq supset
    supseteq forall exists neg emptyset varnothing angle perp parallel mid nmid
    vdots ddots dots ldots colon prime ell hbar Re Im aleph
    left right middle big Big bigg Bigg bigl bigr Bigl Bigr biggl biggr Biggl Biggr
    langle rangle lfloor rfloor lceil rceil lvert rvert lVert rVert vert Vert backslash
    hat bar vec dot ddot tilde widehat widetilde overline underline overbrace underbrace
    overrightarrow overleftarrow boxed substack stackrel overset underset xrightarrow
    xleftarrow mathrm mathbf mathit mathsf mathtt mathcal mathbb mathfrak boldsymbol text
    operatorname log ln lg exp sin cos tan sec csc cot arcsin arccos arctan sinh cosh tanh
    coth min max arg det dim gcd deg ker hom Pr mod bmod pmod tag notag nonumber intertext
    phantom hphantom vphantom quad qquad ensuremath therefore because checkmark leqslant
    geqslant lesssim gtrsim triangle square cdotp
    alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu
    xi pi varpi rho varrho sigma varsigma tau upsilon phi varphi chi psi omega
    Gamma Delta Theta Lambda Xi Pi Sigma Upsilon Phi Psi Omega
"""
_ENVIRONMENT_COMMANDS = "begin end"
# A figure of a sweep (issue 23); its shape is held further by ``plotcheck``.
_FIGURES = "addplot"

ALLOWED_COMMANDS: frozenset[str] = frozenset(
    " ".join(
        [_TEXT, _EMPHASIS, _LISTS, _TABLES, _SECTIONING, _MATH, _ENVIRONMENT_COMMANDS, _FIGURES]
    ).split()
) | frozenset(name for name in TABLE_COMMANDS | TEX_ESCAPE_COMMANDS if name.isalpha())
"""Control words a body may use (by name, without the backslash)."""

ALLOWED_SYMBOLS: frozenset[str] = frozenset(
    [
        *("\\", "$", "%", "#", "&", "_", "{", "}", ",", ";", ":", "!", " ", "\t", "\n"),
        *("[", "]", "(", ")", "-", "/", "'", "`", "^", "~", '"', "=", ".", "|"),
        *(name for name in TEX_ESCAPE_COMMANDS if len(name) == 1),
    ]
)
"""Control symbols a body may use: the escaped specials, math spacing and delimiters, the
accents, and a backslash before a space, tab or line end (an explicit space)."""

_ENVIRONMENTS = """
    itemize enumerate description
    tabular tabular* longtable table table* center flushleft flushright quote quotation verse
    minipage
    equation equation* align align* alignat alignat* gather gather* multline multline* flalign
    flalign* split aligned alignedat gathered cases matrix pmatrix bmatrix Bmatrix vmatrix
    Vmatrix smallmatrix array subequations
    tikzpicture axis
"""

ALLOWED_ENVIRONMENTS: frozenset[str] = frozenset(_ENVIRONMENTS.split())
"""Environments a body may open with ``\\begin`` and close with ``\\end``."""

ALLOWED_SUMMARY = (
    "text, emphasis, lists, tables, sectioning from \\section down and mathematics "
    "(no packages, files, definitions, catcode changes or @-commands)"
)
"""What the list allows, for the one sentence that refuses anything else."""
