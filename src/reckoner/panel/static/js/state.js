// What the page's views share: the element they render into, the state of the route on
// screen, and keeping the keyboard's place when a view is rendered again.

import { Conditional } from "./api.js";

export const main = document.getElementById("main");

export const state = {
  route: { view: "list" },
  index: null,
  indexError: null,
  indexRes: new Conditional("/records-index"),
  selecting: false,
  selected: new Set(),
  record: null,
  recordError: null,
  recordRes: null,
  typesetRes: null,
  typeset: {},
  showAll: false,
  settings: null,
  settingsError: null,
  anchors: new Map(),
  pollTimer: 0,
  settingsReady: Promise.resolve(),
  // What the timeline on screen shows, so a grown record can be appended to.
  rendered: null,
};

/** A selector for the focused element of the view, to focus it again after a re-render. */
export function focusKey() {
  const el = document.activeElement;
  if (!el || el === document.body || !main.contains(el)) return null;
  if (el.id) return `#${CSS.escape(el.id)}`;
  if (el.dataset.id) return `[data-id="${CSS.escape(el.dataset.id)}"]`;
  if (el.classList.contains("pick")) return `.pick[value="${CSS.escape(el.value)}"]`;
  return null;
}

export function restoreFocus(selector) {
  if (!selector) return;
  const el = main.querySelector(selector);
  if (el) el.focus({ preventScroll: true });
}
