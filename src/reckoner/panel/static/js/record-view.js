// One record's view: fetched with conditional GETs, rendered by timeline.js, grown in
// place while the record is open, typeset when its LaTeX map lands, and its header card.

import { Conditional, putSettings } from "./api.js";
import { formatTime, language, t } from "./i18n.js";
import { CHUNK, renderTail, renderTimeline, upgradeFormula } from "./timeline.js";
import { focusKey, main, restoreFocus, state } from "./state.js";
import { announce, esc } from "./util.js";
import { unitTitleFor } from "./values.js";
import { observeFormulas, observePlots, typesetWhenNear } from "./formulas.js";
import { articleButtons } from "./articles.js";

/** Open the record the route names: its resources, then its first render. */
export async function openRecord(id) {
  state.record = null;
  state.recordError = null;
  state.recordRes = new Conditional(`/records/${encodeURIComponent(id)}`);
  state.typesetRes = new Conditional(`/record-typeset/${encodeURIComponent(id)}`);
  state.typeset = {};
  main.innerHTML = `<p class="loading">${esc(t("loading"))}</p>`;
  await refreshRecord(true);
}

export async function refreshRecord(force) {
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
    if (latex && upgradeFormula(fx, latex)) typesetWhenNear(fx);
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

export function renderRecordView() {
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

export function jumpTo(seq) {
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

export async function onShowAll(checkbox) {
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

// A row's time is formatted only when someone looks at it.
let timesBySeq = null;

export function fillRowTime(event) {
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
