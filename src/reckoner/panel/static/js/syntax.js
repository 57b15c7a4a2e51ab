// A small syntax highlighter for the scripts on compute cards (issue 12): comments, strings,
// numbers and keywords of Python, R, Octave/MATLAB, Julia, Maple and Wolfram. It only colours
// tokens; the text itself is shown exactly as it ran.

import { esc } from "./util.js";

const KEYWORDS = {
  py: "and as assert break class continue def del elif else except False finally for from global if import in is lambda None nonlocal not or pass raise return True try while with yield print",
  R: "if else repeat while function for in next break TRUE FALSE NULL Inf NaN NA library require return",
  m: "if elseif else end for while function return break continue switch case otherwise do until try catch true false endif endfor endwhile endfunction printf disp",
  jl: "if elseif else end for while function return break continue begin let local global const struct mutable module using import true false nothing in println",
  mpl: "if then elif else fi for from to by do od while proc end local global return",
  wl: "If Module Block With Table Do While For Return True False Print",
};
// Comment openers per script extension; strings are quoted with ' or " in all of them.
const COMMENTS = { py: ["#"], R: ["#"], m: ["%", "#"], jl: ["#"], mpl: ["#"], wl: [] };

const NUMBER = /^(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)/;
const WORD = /^[A-Za-z_][A-Za-z0-9_.]*/;

function span(kind, text) {
  return `<span class="tok-${kind}">${esc(text)}</span>`;
}

/** The script as HTML with each token in a span of its kind. */
export function highlight(code, language) {
  const keywords = new Set((KEYWORDS[language] || "").split(" "));
  const comments = COMMENTS[language] ?? ["#"];
  let out = "";
  let i = 0;
  let plain = "";
  const flush = () => {
    if (plain) out += esc(plain);
    plain = "";
  };
  while (i < code.length) {
    const rest = code.slice(i, i + 200);
    const ch = code[i];
    const opener = comments.find((c) => code.startsWith(c, i));
    if (opener || (language === "wl" && code.startsWith("(*", i))) {
      const end = language === "wl" ? code.indexOf("*)", i) + 2 || code.length : code.indexOf("\n", i);
      const stop = end <= i ? code.length : end;
      flush();
      out += span("com", code.slice(i, stop));
      i = stop;
      continue;
    }
    if (ch === '"' || ch === "'") {
      // Octave's transpose (A') is not a string: a quote right after a name or ) is an operator.
      const before = code[i - 1] || "";
      if (ch === "'" && language === "m" && /[\w)\].']/.test(before)) {
        plain += ch;
        i += 1;
        continue;
      }
      const triple = language === "py" && code.startsWith(ch.repeat(3), i);
      const quote = triple ? ch.repeat(3) : ch;
      let j = i + quote.length;
      while (j < code.length && !code.startsWith(quote, j) && (triple || code[j] !== "\n")) {
        j += code[j] === "\\" && language !== "m" ? 2 : 1;
      }
      j = Math.min(code.length, j + quote.length);
      flush();
      out += span("str", code.slice(i, j));
      i = j;
      continue;
    }
    const number = /[\w.]/.test(code[i - 1] || "") ? null : NUMBER.exec(rest);
    if (number) {
      flush();
      out += span("num", number[0]);
      i += number[0].length;
      continue;
    }
    const word = WORD.exec(rest);
    if (word) {
      if (keywords.has(word[0])) {
        flush();
        out += span("kw", word[0]);
      } else {
        plain += word[0];
      }
      i += word[0].length;
      continue;
    }
    plain += ch;
    i += 1;
  }
  flush();
  return out;
}
