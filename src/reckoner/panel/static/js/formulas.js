// Typesetting and plots, only near the viewport: KaTeX runs for the formulas close to what
// is on screen, so a record of thousands of steps renders at once and typesets as it
// scrolls; plots are drawn the same way.

import { t } from "./i18n.js";
import { loadKatex } from "./katex.js";
import { drawPlot } from "./plot.js";
import { main } from "./state.js";

const texCache = new Map();

/** An observer that hands each element to ``act`` once it comes within 800 px of the
 * viewport; null where the browser has none (then everything is handled at once). */
function nearViewport(act) {
  if (!("IntersectionObserver" in window)) return null;
  const observer = new IntersectionObserver(
    (entries) => {
      for (const entry of entries) {
        if (!entry.isIntersecting) continue;
        observer.unobserve(entry.target);
        act(entry.target);
      }
    },
    { rootMargin: "800px 0px" },
  );
  return observer;
}

const texObserver = nearViewport((fx) => typeset(fx));
const plotObserver = nearViewport(drawPlot);

export function observePlots() {
  for (const slot of main.querySelectorAll(".plot-slot")) {
    if (plotObserver) plotObserver.observe(slot);
    else drawPlot(slot);
  }
}

function typeset(fx) {
  const katex = window.katex;
  if (!katex) {
    loadKatex().then((loaded) => loaded && typeset(fx));
    return;
  }
  const latex = fx.dataset.latex;
  if (!katex || !latex) return;
  let html = texCache.get(latex);
  if (html === undefined) {
    try {
      html = katex.renderToString(latex, { throwOnError: true, displayMode: false, output: "htmlAndMathml" });
    } catch {
      html = null; // KaTeX could not read it: the ASCII form stays
    }
    texCache.set(latex, html);
  }
  if (html === null) {
    fx.dataset.mode = "ascii";
    fx.querySelector(".fx-toggle")?.remove();
    return;
  }
  fx.querySelector(".tex").innerHTML = html;
  fx.dataset.ready = "";
}

/** Typeset one formula when it comes near the viewport (at once without an observer). */
export function typesetWhenNear(fx) {
  if (texObserver) texObserver.observe(fx);
  else typeset(fx);
}

export function observeFormulas() {
  for (const fx of main.querySelectorAll(".fx[data-latex]:not([data-ready])")) typesetWhenNear(fx);
}

export function toggleFormula(button) {
  const fx = button.closest(".fx");
  if (!fx.hasAttribute("data-ready")) typeset(fx);
  const ascii = fx.dataset.mode === "tex";
  fx.dataset.mode = ascii ? "ascii" : "tex";
  button.textContent = ascii ? t("showTypeset") : t("showAscii");
  button.setAttribute("aria-pressed", String(ascii));
}
