// The panel's controller: hash routes (#/records, #/records/<id>, #/settings), polling
// with conditional GETs, and the event handlers of every view.

import { Conditional, POLL_MS, deleteRecord, getSettings, putSettings } from "./api.js";
import { onSearchPolicyButton, searchPolicyBlock } from "./search-policy.js";
import { LANGUAGES, formatTime, language, setLanguage, t, translateStatic } from "./i18n.js";
import { renderList } from "./list.js";
import { CHUNK, renderTail, renderTimeline, upgradeFormula } from "./timeline.js";
import { announce, esc } from "./util.js";
import { drawPlot } from "./plot.js";
import { rerenderPitfalls, showPitfalls } from "./pitfalls.js";
import { fillLazyTree, unitTitleFor } from "./values.js";
import { loadKatex } from "./katex.js";
import {
  articleButtons,
  generationBlock,
  onGenerationChange,
  openGenerateDialog,
  saveGenerationBlock,
} from "./articles.js";

const main = document.getElementById("main");
const dialog = document.getElementById("confirm-dialog");

const state = {
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
    state.record = null;
    state.recordError = null;
    state.recordRes = new Conditional(`/records/${encodeURIComponent(state.route.id)}`);
    state.typesetRes = new Conditional(`/record-typeset/${encodeURIComponent(state.route.id)}`);
    state.typeset = {};
    main.innerHTML = `<p class="loading">${esc(t("loading"))}</p>`;
    await refreshRecord(true);
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
// The list

async function refreshList(force) {
  try {
    performance.mark("list:fetch");
    const body = await state.indexRes.get();
    performance.measure("list:fetch", "list:fetch");
    state.indexError = null;
    if (body === null && !force) return;
    if (body !== null) state.index = body;
  } catch (error) {
    state.indexError = error.message;
    state.indexRes.reset();
  }
  if (state.route.view === "list") renderListView();
}

function renderListView() {
  const focus = focusKey();
  if (state.index) {
    const closedIds = new Set(state.index.closed.map((e) => e.id));
    for (const id of state.selected) if (!closedIds.has(id)) state.selected.delete(id);
  }
  const error = state.indexError
    ? `<p class="error-line" role="alert">${esc(t("loadFailed", { error: state.indexError }))}</p>`
    : "";
  performance.mark("list:render");
  main.innerHTML = error + (state.index ? renderList(state.index, state.selecting, state.selected) : "");
  performance.measure("list:render", "list:render");
  document.title = `${t("records")} · Reckoner`;
  restoreFocus(focus);
}

function focusKey() {
  const el = document.activeElement;
  if (!el || el === document.body || !main.contains(el)) return null;
  if (el.id) return `#${CSS.escape(el.id)}`;
  if (el.dataset.id) return `[data-id="${CSS.escape(el.dataset.id)}"]`;
  if (el.classList.contains("pick")) return `.pick[value="${CSS.escape(el.value)}"]`;
  return null;
}

function restoreFocus(selector) {
  if (!selector) return;
  const el = main.querySelector(selector);
  if (el) el.focus({ preventScroll: true });
}

function confirmDialog(title, body, okLabel) {
  document.getElementById("confirm-title").textContent = title;
  document.getElementById("confirm-body").textContent = body;
  document.getElementById("confirm-ok").textContent = okLabel;
  document.getElementById("confirm-cancel").textContent = t("cancel");
  return new Promise((resolve) => {
    const ok = document.getElementById("confirm-ok");
    const cancel = document.getElementById("confirm-cancel");
    const finish = (answer) => {
      ok.removeEventListener("click", onOk);
      cancel.removeEventListener("click", onCancel);
      dialog.removeEventListener("close", onClose);
      if (dialog.open) dialog.close();
      resolve(answer);
    };
    const onOk = () => finish(true);
    const onCancel = () => finish(false);
    const onClose = () => finish(false);
    ok.addEventListener("click", onOk);
    cancel.addEventListener("click", onCancel);
    dialog.addEventListener("close", onClose);
    dialog.showModal();
    cancel.focus();
  });
}

async function deleteIds(ids) {
  let deleted = 0;
  const failures = [];
  for (const id of ids) {
    try {
      await deleteRecord(id);
      deleted += 1;
      state.selected.delete(id);
    } catch (error) {
      failures.push(t("deleteFailed", { id, error: error.message }));
    }
  }
  if (failures.length) announce(failures.join(" "), "error");
  else announce(t("deletedN", { n: deleted }));
  state.indexRes.reset();
  await refreshList(true);
  // The button that opened the dialog is gone; keep the keyboard in the list.
  (main.querySelector("#select-mode:enabled, #select-all") || main).focus();
}

async function onDeleteSelected() {
  const ids = [...state.selected];
  if (!ids.length) return;
  const title = ids.length === 1 ? t("confirmDeleteOne") : t("confirmDeleteTitle", { n: ids.length });
  const body = t("confirmDeleteBody", { n: ids.length });
  if (!(await confirmDialog(title, body, t("delete")))) return;
  state.selecting = false;
  await deleteIds(ids);
}

async function onDeleteUnreadable() {
  const ids = [...(state.index?.unreadable || [])];
  if (!ids.length) return;
  const title = t("confirmUnreadableTitle", { n: ids.length });
  const body = `${ids.join(", ")}. ${t("confirmDeleteBody", { n: ids.length })}`;
  if (!(await confirmDialog(title, body, t("delete")))) return;
  await deleteIds(ids);
}

// ---------------------------------------------------------------------------------------
// One record

async function refreshRecord(force) {
  const res = state.recordRes;
  if (!res) return;
  try {
    performance.mark("record:fetch");
    const body = await res.get();
    performance.measure("record:fetch", "record:fetch");
    if (res !== state.recordRes) return; // the user moved on while this was in flight
    state.recordError = null;
    if (body === null && !force) return;
    if (body !== null) state.record = body;
  } catch (error) {
    if (res !== state.recordRes) return;
    res.reset();
    if (state.record && error.status !== 404) {
      // A failed poll keeps the timeline on screen; the next poll tries again.
      announce(t("loadFailed", { error: error.message }), "error");
      return;
    }
    state.recordError = error;
  }
  if (state.route.view === "record") {
    await state.settingsReady; // open at the saved Display all preference
    if (res !== state.recordRes) return;
    if (!force && canAppend(state.record)) appendRecordTail();
    else renderRecordView();
    refreshTypeset(res);
  }
}

// The LaTeX of the formulas is a resource of its own: the timeline shows first with ASCII
// formulas, and they turn into typeset mathematics when the map lands.
async function refreshTypeset(recordRes) {
  const res = state.typesetRes;
  if (!res) return;
  let map;
  try {
    map = await res.get();
  } catch {
    res.reset();
    return; // no typesetting this time; the ASCII formulas stand
  }
  if (map === null || recordRes !== state.recordRes) return;
  state.typeset = map;
  for (const fx of main.querySelectorAll(".fx[data-seq]")) {
    const latex = map[fx.dataset.seq];
    if (latex && upgradeFormula(fx, latex)) {
      if (texObserver) texObserver.observe(fx);
      else typeset(fx);
    }
  }
}

function headerCard(record, figures) {
  const name = record.title && record.title.trim() ? record.title : record.id;
  const status =
    record.endedAt == null
      ? `<span class="badge incomplete">${esc(t("incomplete"))}</span>`
      : `<span>${esc(t("endedAt", { t: formatTime(record.endedAt) }))}</span>`;
  return (
    `<section class="card header-card" aria-labelledby="record-title">` +
    `<h2 id="record-title">${esc(name)}</h2>` +
    `<p class="facts"><span class="id">${esc(t("recordLabel"))} <code>${esc(record.id)}</code></span>` +
    `<span id="visible-count">${esc(t("visibleRows", { n: figures.visible }))}</span>` +
    `<span id="failed-count" class="${figures.failed ? "has-failed" : ""}">${esc(t("failedRows", { n: figures.failed }))}</span>` +
    `${status}</p>` +
    `<label class="switch" title="${esc(t("displayAllHint"))}"><input type="checkbox" id="show-all" role="switch"` +
    `${state.showAll ? " checked" : ""}> <span>${esc(t("displayAll"))}</span></label>` +
    articleButtons(record) +
    `</section>`
  );
}

function renderRecordView() {
  const back = `<p class="back-line"><a class="back" href="#/records">${esc(t("backToList"))}</a></p>`;
  if (state.recordError) {
    const text = state.recordError.status === 404 ? t("recordGone") : t("loadFailed", { error: state.recordError.message });
    main.innerHTML = `${back}<p class="error-line" role="alert">${esc(text)}</p>`;
    return;
  }
  const record = state.record;
  if (!record) return;
  const scroller = document.scrollingElement;
  const atBottom = scroller.scrollTop > 0 && scroller.scrollTop + innerHeight >= scroller.scrollHeight - 40;
  const keepTop = scroller.scrollTop;
  const focus = focusKey();
  performance.mark("record:render");
  const figures = renderTimeline(record, state.showAll, state.typeset);
  performance.measure("record:build", "record:render");
  state.anchors = figures.anchors;
  const empty = figures.visible
    ? ""
    : `<p class="empty">${esc(figures.hiddenCount ? t("emptyTimelineHidden") : t("emptyTimeline"))}</p>`;
  main.innerHTML =
    back + headerCard(record, figures) + `<div id="timeline" class="timeline">${figures.html}</div>` + empty;
  state.rendered = renderedState(record, figures);
  document.title = `${record.title || record.id} · Reckoner`;
  performance.measure("record:render", "record:render");
  observeFormulas();
  observePlots();
  // A live record grows at the bottom: keep following it when the reader was there.
  scroller.scrollTop = atBottom ? scroller.scrollHeight : keepTop;
  restoreFocus(focus);
}

function renderedState(record, figures) {
  const rows = record.rows;
  return {
    id: record.id,
    rows: rows.length,
    lastSeq: rows.length ? rows[rows.length - 1].seq : null,
    showAll: state.showAll,
    lang: language(),
    cardCount: figures.cardCount,
    lastCanGrow: figures.lastCanGrow,
  };
}

/** Whether the new body only added rows to the open record on screen. */
function canAppend(record) {
  const r = state.rendered;
  if (!r || !record || r.id !== record.id || r.showAll !== state.showAll || r.lang !== language()) {
    return false;
  }
  if (record.endedAt != null || r.cardCount === 0 || record.rows.length <= r.rows) return false;
  if (record.rows[r.rows - 1]?.seq !== r.lastSeq) return false;
  return document.getElementById("timeline")?.lastElementChild != null;
}

function appendRecordTail() {
  const record = state.record;
  const scroller = document.scrollingElement;
  const atBottom = scroller.scrollTop > 0 && scroller.scrollTop + innerHeight >= scroller.scrollHeight - 40;
  const regrow = state.rendered.lastCanGrow;
  const from = state.rendered.cardCount - (regrow ? 1 : 0);
  const tail = renderTail(record, state.showAll, state.typeset, from, state.anchors);
  const timeline = document.getElementById("timeline");
  let chunk = timeline.lastElementChild;
  // A trailing group may have grown: it is rebuilt with the rows that joined it.
  if (regrow) chunk.lastElementChild.remove();
  for (const html of tail.cards) {
    if (chunk.childElementCount >= CHUNK) {
      chunk = document.createElement("div");
      chunk.className = "chunk";
      timeline.append(chunk);
    }
    chunk.insertAdjacentHTML("beforeend", html);
  }
  document.getElementById("visible-count").textContent = t("visibleRows", { n: tail.visible });
  const failed = document.getElementById("failed-count");
  failed.textContent = t("failedRows", { n: tail.failed });
  failed.className = tail.failed ? "has-failed" : "";
  state.rendered = renderedState(record, tail);
  observeFormulas();
  observePlots();
  if (atBottom) scroller.scrollTop = scroller.scrollHeight;
}

function jumpTo(seq) {
  const id = state.anchors.get(Number(seq));
  const target = id && document.getElementById(id);
  if (!target) return;
  target.tabIndex = -1; // focusable by script only, so the keyboard lands where the eye does
  const calm = matchMedia("(prefers-reduced-motion: reduce)").matches;
  target.scrollIntoView({ block: "center", behavior: calm ? "auto" : "smooth" });
  target.focus({ preventScroll: true });
  target.classList.remove("flash");
  void target.offsetWidth; // restart the highlight animation
  target.classList.add("flash");
}

// KaTeX runs only for formulas near the viewport, so a record of thousands of steps
// renders at once and typesets as it scrolls.
const texCache = new Map();
const texObserver =
  "IntersectionObserver" in window
    ? new IntersectionObserver(
        (entries) => {
          for (const entry of entries) {
            if (!entry.isIntersecting) continue;
            texObserver.unobserve(entry.target);
            typeset(entry.target);
          }
        },
        { rootMargin: "800px 0px" },
      )
    : null;

// Plots are drawn, like formulas, only near the viewport.
const plotObserver =
  "IntersectionObserver" in window
    ? new IntersectionObserver(
        (entries) => {
          for (const entry of entries) {
            if (!entry.isIntersecting) continue;
            plotObserver.unobserve(entry.target);
            drawPlot(entry.target);
          }
        },
        { rootMargin: "800px 0px" },
      )
    : null;

function observePlots() {
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

function observeFormulas() {
  for (const fx of main.querySelectorAll(".fx[data-latex]:not([data-ready])")) {
    if (texObserver) texObserver.observe(fx);
    else typeset(fx);
  }
}

function toggleFormula(button) {
  const fx = button.closest(".fx");
  if (!fx.hasAttribute("data-ready")) typeset(fx);
  const ascii = fx.dataset.mode === "tex";
  fx.dataset.mode = ascii ? "ascii" : "tex";
  button.textContent = ascii ? t("showTypeset") : t("showAscii");
  button.setAttribute("aria-pressed", String(ascii));
}

async function onShowAll(checkbox) {
  state.showAll = checkbox.checked;
  renderRecordView();
  document.getElementById("show-all")?.focus();
  try {
    const answer = await putSettings({ panel: { showAll: state.showAll } });
    state.settings = answer.settings;
  } catch (error) {
    announce(t("prefSaveFailed", { error: error.message }), "error");
  }
}

// ---------------------------------------------------------------------------------------
// Settings

async function loadSettings() {
  try {
    state.settings = await getSettings();
    state.settingsError = null;
    state.showAll = state.settings.panel?.showAll === true;
  } catch (error) {
    state.settingsError = error.message;
  }
  if (state.route.view === "settings") renderSettingsView();
}

function renderSettingsView() {
  document.title = `${t("settings")} · Reckoner`;
  if (!state.settings) {
    main.innerHTML = `<h2>${esc(t("settings"))}</h2><p class="error-line" role="alert">${esc(t("loadFailed", { error: state.settingsError || "?" }))}</p>`;
    return;
  }
  const s = state.settings;
  const restart = s.restartRequired ? `<p class="restart-line" role="note">${esc(t("restartRequired"))}</p>` : "";
  main.innerHTML =
    `<h2>${esc(t("settings"))}</h2>${restart}` +
    generationBlock(s) +
    `<section class="card settings-block" aria-labelledby="panel-section"><h3 id="panel-section">${esc(t("panelSection"))}</h3>` +
    `<label class="switch"><input type="checkbox" id="pref-show-all" role="switch"${s.panel?.showAll ? " checked" : ""}> ` +
    `<span>${esc(t("showAllDefault"))}</span></label><p id="panel-save-line" class="save-line" aria-live="polite"></p></section>` +
    searchPolicyBlock(s.search);
}

async function onSearchPolicy(button) {
  const saved = await onSearchPolicyButton(button, main);
  if (!saved) return;
  state.settings = saved.settings;
  renderSettingsView();
  const line = document.getElementById("search-save-line");
  line.textContent = saved.message;
  line.dataset.kind = "ok";
}

async function onPrefShowAll(checkbox) {
  const line = document.getElementById("panel-save-line");
  try {
    const answer = await putSettings({ panel: { showAll: checkbox.checked } });
    state.settings = answer.settings;
    state.showAll = answer.settings.panel.showAll === true;
    line.textContent = t("saved");
    line.dataset.kind = "ok";
  } catch (error) {
    checkbox.checked = !checkbox.checked;
    line.textContent = t("prefSaveFailed", { error: error.message });
    line.dataset.kind = "error";
  }
}

// ---------------------------------------------------------------------------------------
// Events (delegated: the views are re-rendered as strings)

main.addEventListener("click", (event) => {
  const target = event.target.closest("button");
  if (!target) return;
  if (target.matches(".chip[data-jump]")) jumpTo(target.dataset.jump);
  else if (target.matches(".fx-toggle")) toggleFormula(target);
  else if (target.id === "select-mode") {
    state.selecting = true;
    renderListView();
    main.querySelector("#select-all")?.focus();
  } else if (target.id === "select-done") {
    state.selecting = false;
    state.selected.clear();
    renderListView();
    main.querySelector("#select-mode")?.focus();
  } else if (target.id === "select-all") {
    for (const entry of state.index?.closed || []) state.selected.add(entry.id);
    renderListView();
  } else if (target.id === "delete-selected") onDeleteSelected();
  else if (target.id === "delete-unreadable") onDeleteUnreadable();
  else if (target.matches("[data-generate]")) {
    openGenerateDialog(state.record, target.dataset.generate, state.settings, (settings) => {
      state.settings = settings;
    });
  } else if (target.matches("[data-save]")) {
    saveGenerationBlock(target.dataset.save).then((settings) => {
      if (settings) state.settings = settings;
    });
  }
  else if (target.id === "search-save" || target.id === "search-reset") onSearchPolicy(target);
});

main.addEventListener("change", (event) => {
  const el = event.target;
  if (el.id === "show-all") onShowAll(el);
  else if (el.id === "pref-show-all") onPrefShowAll(el);
  else if (el.id.startsWith("gen-set")) onGenerationChange(el);
  else if (el.classList.contains("pick")) {
    if (el.checked) state.selected.add(el.value);
    else state.selected.delete(el.value);
    const button = main.querySelector("#delete-selected");
    if (button) {
      button.disabled = state.selected.size === 0;
      button.textContent = t("deleteSelected", { n: state.selected.size });
    }
  }
});

// A row's time is formatted only when someone looks at it.
let timesBySeq = null;

function fillRowTime(event) {
  const seq = event.target.closest?.(".seq:not([title])");
  if (seq && state.record) {
    if (!timesBySeq || timesBySeq.rows !== state.record.rows) {
      timesBySeq = { rows: state.record.rows, at: new Map(state.record.rows.map((r) => [r.seq, r.at])) };
    }
    seq.title = formatTime(timesBySeq.at.get(Number(seq.textContent.slice(1))));
  }
  const unit = event.target.closest?.(".unit:not([title])");
  if (unit) unit.title = unitTitleFor(unit.textContent);
}
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
  // before it renders (see renderRecordView's caller).
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
