// Small helpers shared by the views.

const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

const SPECIAL = /[&<>"']/;
const SPECIALS = /[&<>"']/g;

/** Text made safe to place inside HTML (element content or a quoted attribute). */
export function esc(text) {
  const s = String(text);
  // Most text has nothing to escape; testing first skips a replace per call.
  return SPECIAL.test(s) ? s.replace(SPECIALS, (ch) => ESCAPES[ch]) : s;
}

const live = () => document.getElementById("status");

/** Announce a line in the status area (read by screen readers, shown briefly). */
export function announce(text, kind = "info") {
  const el = live();
  if (!el) return;
  el.textContent = text;
  el.dataset.kind = kind;
  el.classList.add("shown");
  clearTimeout(announce.timer);
  announce.timer = setTimeout(() => el.classList.remove("shown"), kind === "error" ? 8000 : 3000);
}
