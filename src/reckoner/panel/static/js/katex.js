// KaTeX (276 KB) is loaded only once a formula needs it, so the list and the first paint
// of a record never wait for it. Shared by the timeline and the article preview.

let katexLoading = null;

export function loadKatex() {
  if (!katexLoading) {
    katexLoading = new Promise((resolve) => {
      const script = document.createElement("script");
      script.src = "/static/vendor/katex/katex.min.js";
      script.onload = () => resolve(window.katex || null);
      script.onerror = () => resolve(null); // the ASCII formulas stand
      document.head.append(script);
    });
  }
  return katexLoading;
}
