// The panel's controller: hash routes (#/records, #/records/<id>, #/settings, #/pitfalls),
// polling with conditional GETs, and the delegated event handlers of every view. The views
// are list-view.js, record-view.js, settings-view.js and pitfalls.js; what they share is in
// state.js.

import { POLL_MS, getSettings } from "./api.js";
import { LANGUAGES, language, setLanguage, translateStatic } from "./i18n.js";
import { rerenderPitfalls, showPitfalls } from "./pitfalls.js";
import { fillLazyTree } from "./values.js";
import { toggleFormula } from "./formulas.js";
import { onListClick, onPick, refreshList, renderListView } from "./list-view.js";
import { fillRowTime, jumpTo, onShowAll, openRecord, refreshRecord, renderRecordView } from "./record-view.js";
import { loadSettings, onPrefShowAll, onSearchPolicy, renderSettingsView } from "./settings-view.js";
import { main, state } from "./state.js";
import { onGenerationChange, openGenerateDialog, saveGenerationBlock } from "./articles.js";

// ---------------------------------------------------------------------------------------
// Routing

function parseRoute() {
  let hash;
  try {
    hash = decodeURIComponent(location.hash.replace(/^#\/?/, ""));
  } catch {
    return { view: "list" }; // a malformed address falls back to the list
  }
  if (hash.startsWith("records/")) return { view: "record", id: hash.slice("records/".length) };
  if (hash === "settings") return { view: "settings" };
  if (hash === "pitfalls") return { view: "pitfalls" };
  return { view: "list" };
}

async function onRoute() {
  state.route = parseRoute();
  for (const tab of document.querySelectorAll(".tabs .tab")) {
    const tabOf = { settings: "tab-settings", pitfalls: "tab-pitfalls" };
    const active = tab.id === (tabOf[state.route.view] || "tab-records");
    if (active) tab.setAttribute("aria-current", "page");
    else tab.removeAttribute("aria-current");
  }
  if (state.route.view === "record") {
    await openRecord(state.route.id);
  } else if (state.route.view === "settings") {
    await loadSettings();
  } else if (state.route.view === "pitfalls") {
    await showPitfalls(main);
  } else {
    state.indexRes.reset();
    await refreshList(true);
  }
  schedulePoll();
}

// ---------------------------------------------------------------------------------------
// Polling: one timer; an unchanged resource answers 304 and nothing re-renders.

function schedulePoll() {
  clearTimeout(state.pollTimer);
  state.pollTimer = setTimeout(poll, POLL_MS);
}

async function poll() {
  if (!document.hidden) {
    if (state.route.view === "list") await refreshList(false);
    else if (state.route.view === "record") await refreshRecord(false);
  }
  schedulePoll();
}

document.addEventListener("visibilitychange", () => {
  if (!document.hidden) poll();
});

// ---------------------------------------------------------------------------------------
// Events (delegated: the views are re-rendered as strings)

main.addEventListener("click", (event) => {
  const target = event.target.closest("button");
  if (!target) return;
  if (target.matches(".chip[data-jump]")) jumpTo(target.dataset.jump);
  else if (target.matches(".fx-toggle")) toggleFormula(target);
  else if (onListClick(target)) return;
  else if (target.matches("[data-generate]")) {
    openGenerateDialog(state.record, target.dataset.generate, state.settings, (settings) => {
      state.settings = settings;
    });
  } else if (target.matches("[data-save]")) {
    saveGenerationBlock(target.dataset.save).then((settings) => {
      if (settings) state.settings = settings;
    });
  } else if (target.id === "search-save" || target.id === "search-reset") onSearchPolicy(target);
});

main.addEventListener("change", (event) => {
  const el = event.target;
  if (el.id === "show-all") onShowAll(el);
  else if (el.id === "pref-show-all") onPrefShowAll(el);
  else if (el.id.startsWith("gen-set")) onGenerationChange(el);
  else if (el.classList.contains("pick")) onPick(el);
});

main.addEventListener("mouseover", fillRowTime);
main.addEventListener("focusin", fillRowTime);

// toggle does not bubble, so listen in the capture phase.
main.addEventListener(
  "toggle",
  (event) => {
    if (event.target.matches?.("details[data-tree]")) fillLazyTree(event.target);
  },
  true,
);

const langSelect = document.getElementById("lang-select");
langSelect.value = language();
langSelect.addEventListener("change", () => {
  setLanguage(langSelect.value);
  translateStatic();
  if (state.route.view === "list") renderListView();
  else if (state.route.view === "record") renderRecordView();
  else if (state.route.view === "pitfalls") rerenderPitfalls();
  else renderSettingsView();
});

// ---------------------------------------------------------------------------------------
// Start: the Display all preference first, so a record opens at it.

async function start() {
  if (!LANGUAGES.includes(langSelect.value)) langSelect.value = "en";
  translateStatic();
  // The preference and the first view load together; a record waits for the preference
  // before it renders (see refreshRecord).
  state.settingsReady = getSettings().then(
    (settings) => {
      state.settings = settings;
      state.showAll = settings.panel?.showAll === true;
    },
    (error) => {
      state.settingsError = error.message;
    },
  );
  window.addEventListener("hashchange", onRoute);
  await onRoute();
  await state.settingsReady;
  document.body.dataset.ready = "true";
}

start();
