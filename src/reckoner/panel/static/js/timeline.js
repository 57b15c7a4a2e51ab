// One record's rows turned into the narrative of manual 11.1: writes, reads and failures
// grouped, one card per accepted eval, accent cards for the markers. Everything is built
// as one HTML string in a single pass, so a 10,000-row record renders in one DOM update.

import { API } from "./api.js";
import { t } from "./i18n.js";
import { plotSlot, resetPlots } from "./plot.js";
import { highlight } from "./syntax.js";
import { esc } from "./util.js";
import { inlineValue, readingValue, realSeries, resetLazyTrees, treeValue, unitName } from "./values.js";

export const CHUNK = 50;
const MARKERS = new Set(["record_start", "record_message", "record_end"]);

function contentOf(row) {
  return row.content && typeof row.content === "object" ? row.content : {};
}

/** A `search` row that ran (manual 12.5): a fact of the record, whatever its outcome. */
export function isLookup(row) {
  return row.tool === "search" && typeof contentOf(row).outcome === "string";
}

/**
 * Whether Display all off keeps the row out of the timeline (refusals and hidden notes).
 * A lookup is always shown: an unanswered one is part of the account (manual 11.1).
 */
export function isHidden(row) {
  if (isLookup(row)) return false;
  if (row.ok !== true) return true;
  return row.tool === "record_message" && contentOf(row).hide === true;
}

/**
 * Walk every row once, in order, following the slot rules of manual 2.3: a write creates
 * a slot at revision 1 or bumps it, a deletion removes it (so the next write is 1 again).
 * Gives each set row its revision and each eval the row that last wrote every slot it read.
 */
function slotHistory(rows) {
  const rev = new Map();
  const lastWrite = new Map();
  const setRev = new Map();
  const sources = new Map();
  for (const row of rows) {
    if (row.ok !== true) continue;
    const c = contentOf(row);
    if (row.tool === "set" && typeof c.name === "string") {
      if (c.value === null) {
        rev.delete(c.name);
        setRev.set(row.seq, null);
      } else {
        const next = (rev.get(c.name) || 0) + 1;
        rev.set(c.name, next);
        setRev.set(row.seq, next);
      }
      lastWrite.set(c.name, row.seq);
    } else if (row.tool === "eval" && typeof c.target === "string") {
      const read = {};
      for (const name of Object.keys(c.vars || {})) read[name] = lastWrite.get(name) ?? null;
      sources.set(row.seq, read);
      // The eval row carries its own revision; trust it over the count.
      const next = typeof c.rev === "number" ? c.rev : (rev.get(c.target) || 0) + 1;
      rev.set(c.target, next);
      lastWrite.set(c.target, row.seq);
    } else if (row.tool === "record_end") {
      rev.clear();
      lastWrite.clear();
    }
  }
  return { setRev, sources };
}

/** Split the visible rows into the cards of the timeline. */
export function groupRows(rows) {
  const cards = [];
  let open = null;
  const push = (kind, row) => {
    if (open && open.kind === kind) {
      open.rows.push(row);
      return;
    }
    open = { kind, rows: [row] };
    cards.push(open);
  };
  for (const row of rows) {
    const accepted = row.ok === true;
    if (isLookup(row)) {
      open = null;
      cards.push({ kind: "search", rows: [row] });
    } else if (row.tool === "compute" && typeof contentOf(row).runId === "string") {
      // A run that reached the archive is a card even when it failed: its receipt stands.
      open = null;
      cards.push({ kind: "compute", rows: [row] });
    } else if (MARKERS.has(row.tool) && (accepted || row.tool !== "record_message")) {
      open = null;
      cards.push({ kind: "marker", rows: [row] });
    } else if (!accepted) push("failed", row);
    else if (row.tool === "set") push("writes", row);
    else if (row.tool === "get") push("reads", row);
    else {
      open = null;
      cards.push({ kind: row.tool === "eval" ? "eval" : "other", rows: [row] });
    }
  }
  return cards;
}

// The time of a row is shown on hover: main.js fills the title from the row's `at` on
// demand, which keeps thousands of date formats out of the first render.
function seqLabel(row) {
  return `<span class="seq">#${esc(row.seq)}</span>`;
}

function writesCard(card, history, anchors) {
  // One line per slot: the group's last write to it, with that write's revision.
  const lines = new Map();
  for (const row of card.rows) {
    const c = contentOf(row);
    const line = lines.get(c.name) || { first: row.seq, seqs: [] };
    line.row = row;
    line.seqs.push(row.seq);
    lines.set(c.name, line);
  }
  const items = [];
  for (const [name, line] of lines) {
    const anchor = `row-${line.first}`;
    for (const seq of line.seqs) anchors.set(seq, anchor);
    const c = contentOf(line.row);
    const rev = history.setRev.get(line.row.seq);
    const revText = rev == null ? t("deleted") : t("rev", { n: rev });
    items.push(
      `<li id="${anchor}">${seqLabel(line.row)} <span class="slot">@${esc(name)}</span>` +
        ` = ${inlineValue(c.value)} <span class="rev">${esc(revText)}</span>${readingHtml(c, "reading")}</li>`,
    );
  }
  return (
    `<section class="card writes"><h3>${esc(t("writes", { n: card.rows.length }))}</h3>` +
    `<ul class="lines">${items.join("")}</ul></section>`
  );
}

function readsCard(card, anchors) {
  const items = card.rows.map((row) => {
    const c = contentOf(row);
    return (
      `<li>${seqLabel(row)} <span class="slot">@${esc(c.name)}</span>` +
      ` = ${inlineValue(c.value)}</li>`
    );
  });
  return (
    `<section class="card reads"><h3>${esc(t("reads", { n: card.rows.length }))}</h3>` +
    `<ul class="lines">${items.join("")}</ul></section>`
  );
}

function failedCard(card, anchors) {
  // A refused eval keeps no formula in its row; the column shows only when one has one.
  const withFormula = card.rows.some((row) => typeof contentOf(row).formula === "string");
  const body = card.rows.map((row) => {
    const c = contentOf(row);
    const formula = typeof c.formula === "string" ? `<code>${esc(c.formula)}</code>` : "";
    return (
      `<tr><td>${seqLabel(row)}</td><td>${esc(row.tool)}</td>` +
      (withFormula ? `<td>${formula}</td>` : "") +
      `<td><code class="code">${esc(c.code ?? "")}</code></td>` +
      `<td class="error-text">${esc(c.error ?? "")}</td></tr>`
    );
  });
  const formulaHead = withFormula ? `<th scope="col">${esc(t("formula"))}</th>` : "";
  return (
    `<section class="card failed"><h3>${esc(t("failedAttempts", { n: card.rows.length }))}</h3>` +
    `<div class="table-wrap"><table><thead><tr><th scope="col">${esc(t("seq"))}</th>` +
    `<th scope="col">${esc(t("tool"))}</th>${formulaHead}` +
    `<th scope="col">${esc(t("code"))}</th><th scope="col">${esc(t("error"))}</th></tr></thead>` +
    `<tbody>${body.join("")}</tbody></table></div></section>`
  );
}

function formulaHtml(seq, formula, latex) {
  const ascii = `<code class="ascii">${esc(formula)}</code>`;
  if (!latex) return `<div class="fx" data-mode="ascii" data-seq="${esc(seq)}">${ascii}</div>`;
  return `<div class="fx" data-mode="tex" data-seq="${esc(seq)}" data-latex="${esc(latex)}">${texParts()}${ascii}</div>`;
}

function texParts() {
  return (
    `<span class="tex"></span><button type="button" class="fx-toggle" title="${esc(t("formulaToggle"))}"` +
    ` aria-pressed="false">${esc(t("showAscii"))}</button>`
  );
}

/** Give an ASCII-only formula its LaTeX once the typeset map arrives. */
export function upgradeFormula(fx, latex) {
  if (fx.dataset.latex) return false;
  fx.dataset.latex = latex;
  fx.dataset.mode = "tex";
  fx.insertAdjacentHTML("afterbegin", texParts());
  // The ASCII code stays last, as the toggle's alternative.
  fx.append(fx.querySelector(".ascii"));
  return true;
}

// What a `read` showed the model in the same call (a set row keeps it as `reading`, an eval
// row as `value`): the number it quoted, in the unit it asked for.
function readingHtml(c, key, tag = "span") {
  if (!(key in c)) return "";
  const label = `<span class="label">${esc(t("readAs"))}</span>`;
  return ` <${tag} class="reading">${label} ${readingValue(c[key])}</${tag}>`;
}

function evalCard(row, history, typeset, anchors) {
  const c = contentOf(row);
  const id = `row-${row.seq}`;
  anchors.set(row.seq, id);
  const read = history.sources.get(row.seq) || {};
  const vars = Object.entries(c.vars || {}).map(([name, value]) => {
    const from = read[name];
    const chip =
      from == null
        ? `<span class="chip" aria-disabled="true">@${esc(name)}</span>`
        : `<button type="button" class="chip" data-jump="${esc(from)}" title="${esc(t("jumpTo", { name }))}">@${esc(name)}</button>`;
    return `<li>${chip} = ${inlineValue(value)}</li>`;
  });
  const series = realSeries(c.result);
  const plot = series ? plotSlot(series, c.target, unitName(c.result.dim)) : "";
  return (
    `<section class="card eval" id="${id}"><header><h3>${esc(t("step"))} ${seqLabel(row)}</h3>` +
    `<span class="target">→ <span class="slot">@${esc(c.target)}</span> ` +
    `<span class="rev">${esc(t("rev", { n: c.rev ?? "?" }))}</span></span></header>` +
    formulaHtml(row.seq, String(c.formula ?? ""), typeset[row.seq]) +
    (vars.length ? `<ul class="vars" aria-label="${esc(t("reads_"))}">${vars.join("")}</ul>` : "") +
    (plot ? `<div class="result-row">` : "") +
    `<div class="result"><span class="label">${esc(t("result"))}</span> ${treeValue(c.result)}</div>` +
    (plot ? `${plot}</div>` : "") +
    readingHtml(c, "value", "div") +
    `</section>`
  );
}

/**
 * The mark of a message or end row whose text quotes a number no receipt showed: a badge
 * for its heading and its sentences under the text, each as text (issue 27). A row with no
 * ``warnings`` list, or an empty one, has neither.
 */
function warningParts(c) {
  const warnings = Array.isArray(c.warnings) ? c.warnings.filter((w) => typeof w === "string") : [];
  if (!warnings.length) return { badge: "", list: "", kind: "" };
  return {
    badge: ` <span class="badge unverified">${esc(t("unverifiedNumber"))}</span>`,
    list:
      `<ul class="warnings" aria-label="${esc(t("unverifiedNumbers"))}">` +
      warnings.map((w) => `<li>${esc(w)}</li>`).join("") +
      `</ul>`,
    kind: " flagged",
  };
}

function markerCard(row, anchors) {
  const c = contentOf(row);
  anchors.set(row.seq, `row-${row.seq}`);
  let kind;
  let title;
  let body;
  if (row.ok !== true) {
    kind = "marker refused";
    title = row.tool === "record_start" ? t("refusedStart") : t("refusedEnd");
    body = `<p><code class="code">${esc(c.code ?? "")}</code> <span class="error-text">${esc(c.error ?? "")}</span></p>`;
  } else if (row.tool === "record_start") {
    kind = "marker start";
    title = t("recordStart");
    body = `<p class="marker-title">${esc(c.title ?? "")}</p>`;
  } else if (row.tool === "record_end") {
    const flag = warningParts(c);
    kind = `marker end${flag.kind}`;
    body = (c.text ? `<p class="prose">${esc(c.text)}</p>` : "") + flag.list;
    return (
      `<section class="card ${kind}" id="row-${esc(row.seq)}"><h3>${esc(t("recordEnd"))} ${seqLabel(row)}${flag.badge}</h3>${body}</section>`
    );
  } else {
    const flag = warningParts(c);
    kind = (c.hide === true ? "marker message hidden-note" : "marker message") + flag.kind;
    const note = c.hide === true ? ` <span class="badge">${esc(t("hiddenNote"))}</span>` : "";
    body = `<p class="prose">${esc(c.text ?? "")}</p>` + flag.list;
    return (
      `<section class="card ${kind}" id="row-${esc(row.seq)}"><h3>${esc(t("message"))} ${seqLabel(row)}${note}${flag.badge}</h3>${body}</section>`
    );
  }
  return `<section class="card ${kind}" id="row-${esc(row.seq)}"><h3>${esc(title)} ${seqLabel(row)}</h3>${body}</section>`;
}

/**
 * The link target of a recorded source, or null. The row holds the canonical URL the server
 * read once (lookup/urls.py); it is linked exactly as held, and only when the browser's own
 * reading of it is the same string, so the host shown is the host the allow-list checked.
 * A source the server skipped, or any other string (an older row's raw citation, a
 * backslash or userinfo trick), is shown as text and never linked.
 */
function canonicalHref(source) {
  if (source.skipped !== undefined || typeof source.url !== "string") return null;
  const url = source.url;
  if (!/^https?:\/\/[^\\@\s]+$/.test(url)) return null;
  try {
    const parsed = new URL(url);
    return parsed.href === url ? { href: url, host: parsed.host } : null;
  } catch {
    return null;
  }
}

function sourceItem(source) {
  const s = source && typeof source === "object" ? source : { url: String(source) };
  const link = canonicalHref(s);
  const label = esc(s.title || s.url || "?");
  const shown = link
    ? `<a href="${esc(link.href)}" target="_blank" rel="noopener noreferrer">${label}</a>`
    : `<span>${label}</span>`;
  const host = link ? ` <span class="host">${esc(link.host)}</span>` : "";
  const skipped =
    typeof s.skipped === "string" ? ` <span class="skipped">${esc(s.skipped)}</span>` : "";
  const date = s.publishedAt ? ` <span class="date">${esc(s.publishedAt)}</span>` : "";
  const snippet = s.snippet ? `<blockquote class="snippet">${esc(s.snippet)}</blockquote>` : "";
  return `<li>${shown}${host}${skipped}${date}${snippet}</li>`;
}

const LOOKUP_ACCENT = { answered: "answered", insufficient: "warning", refused: "warning" };

function searchCard(row, anchors) {
  const c = contentOf(row);
  anchors.set(row.seq, `row-${row.seq}`);
  const outcome = String(c.outcome);
  const accent = LOOKUP_ACCENT[outcome] || "error";
  const synthesis = c.synthesis && typeof c.synthesis === "object" ? c.synthesis : {};
  const answered = outcome === "answered" && typeof synthesis.answer === "string";
  const used = Array.isArray(c.used) ? c.used : [];
  const cited = Array.isArray(c.candidates) ? c.candidates : [];
  const usedUrls = new Set(used.map((s) => s && s.url));
  const notAllowed = cited.filter((s) => !usedUrls.has(s && s.url));
  const tier =
    c.tier === "open"
      ? ` <span class="badge open-web" title="${esc(t("openWebNote"))}">${esc(t("openWeb"))}</span>`
      : c.tier
        ? ` <span class="badge">${esc(c.tier)}</span>`
        : "";
  const body = answered
    ? `<p class="answer">${esc(synthesis.answer)}</p>`
    : `<p class="lookup-error" role="note"><code class="code">${esc(c.code ?? outcome)}</code> ` +
      `<span class="error-text">${esc(c.error ?? "")}</span></p>`;
  const sources = used.length
    ? `<details class="sources used"><summary>${esc(t("sources", { n: used.length }))}</summary>` +
      `<ul>${used.map(sourceItem).join("")}</ul></details>`
    : "";
  const others = notAllowed.length
    ? `<details class="sources not-allowed"><summary>${esc(t("notAllowed", { n: notAllowed.length }))}</summary>` +
      `<ul>${notAllowed.map(sourceItem).join("")}</ul></details>`
    : "";
  return (
    `<section class="card search ${accent}" id="row-${esc(row.seq)}" data-outcome="${esc(outcome)}">` +
    `<h3>${esc(t("lookup"))} ${seqLabel(row)}${tier}</h3>` +
    `<p class="question">${esc(c.question ?? "")}</p>${body}${sources}${others}</section>`
  );
}

// The record whose cards are being built: a compute card links to its receipt through it.
let currentRecordId = "";

function computeCard(row, anchors) {
  const c = contentOf(row);
  anchors.set(row.seq, `row-${row.seq}`);
  const failed = row.ok !== true;
  const facts = [
    [t("engine"), `${c.engine ?? ""} ${c.version ?? ""}`.trim()],
    [t("exit"), c.timedOut ? t("timedOut") : String(c.exit)],
    [t("duration"), `${c.durationMs} ms`],
    [t("attempt"), String(c.attempt)],
  ];
  const href = `${API}/compute-receipt/${encodeURIComponent(currentRecordId)}/${encodeURIComponent(row.seq)}`;
  const script = typeof c.script === "string" ? c.script : "";
  return (
    `<section class="card compute${failed ? " failed-run" : ""}" id="row-${esc(row.seq)}">` +
    `<h3>${esc(t("computeRun"))} ${seqLabel(row)}</h3>` +
    `<dl class="compute-facts">${facts.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(v)}</dd>`).join("")}</dl>` +
    (c.error ? `<p class="error-text">${esc(c.code ?? "")}: ${esc(c.error)}</p>` : "") +
    `<pre class="script lang-${esc(c.language ?? "")}"><code>${highlight(script, c.language)}</code></pre>` +
    (c.scriptTruncated ? `<p class="muted">${esc(t("scriptCut"))}</p>` : "") +
    `<p class="label">${esc(t("stdout"))}</p><pre class="stdout">${esc(c.stdoutTail ?? "")}</pre>` +
    `<p class="receipt-line"><a class="receipt-link" href="${esc(href)}" target="_blank" rel="noopener">` +
    `${esc(t("receipt"))}</a> <code>${esc(c.receipt ?? "")}</code> ` +
    `<span class="hash" title="sha256">${esc(String(c.scriptHash ?? "").slice(0, 12))}</span></p>` +
    `</section>`
  );
}

function otherCard(row, anchors) {
  anchors.set(row.seq, `row-${row.seq}`);
  return (
    `<section class="card other" id="row-${esc(row.seq)}"><h3>${esc(row.tool)} ${seqLabel(row)}</h3>` +
    `<pre>${esc(JSON.stringify(row.content, null, 2))}</pre></section>`
  );
}

function cardHtml(card, history, typeset, anchors) {
  switch (card.kind) {
    case "writes":
      return writesCard(card, history, anchors);
    case "reads":
      return readsCard(card, anchors);
    case "failed":
      return failedCard(card, anchors);
    case "eval":
      return evalCard(card.rows[0], history, typeset, anchors);
    case "marker":
      return markerCard(card.rows[0], anchors);
    case "search":
      return searchCard(card.rows[0], anchors);
    case "compute":
      return computeCard(card.rows[0], anchors);
    default:
      return otherCard(card.rows[0], anchors);
  }
}

function plan(record, showAll) {
  currentRecordId = String(record.id ?? "");
  const rows = Array.isArray(record.rows) ? record.rows : [];
  const visible = showAll ? rows : rows.filter((row) => !isHidden(row));
  return {
    visible: visible.length,
    failed: visible.reduce((n, row) => n + (row.ok === true || isLookup(row) ? 0 : 1), 0),
    hiddenCount: rows.length - visible.length,
    history: slotHistory(rows),
    cards: groupRows(visible),
  };
}

const GROUPS = new Set(["writes", "reads", "failed"]);

/** Whether the last card is a group that a later row may still join. */
function lastCanGrow(cards) {
  return cards.length > 0 && GROUPS.has(cards[cards.length - 1].kind);
}

/** The header card's figures and the timeline HTML for one record. */
export function renderTimeline(record, showAll, typeset) {
  const p = plan(record, showAll);
  const anchors = new Map();
  resetLazyTrees();
  resetPlots();
  const parts = [];
  for (let i = 0; i < p.cards.length; i++) {
    // Cards come in chunks that skip layout while off screen (see style.css).
    if (i % CHUNK === 0) parts.push(i ? `</div><div class="chunk">` : `<div class="chunk">`);
    parts.push(cardHtml(p.cards[i], p.history, typeset, anchors));
  }
  if (p.cards.length) parts.push("</div>");
  return {
    html: parts.join(""),
    cardCount: p.cards.length,
    lastCanGrow: lastCanGrow(p.cards),
    visible: p.visible,
    failed: p.failed,
    anchors,
    hiddenCount: p.hiddenCount,
  };
}

/**
 * The cards from index `from` on, for a record that only grew since the last render: a live
 * solve appends rows, so only a trailing group can change and new cards follow it. Keeps the
 * rest of the page (scroll, opened arrays, ASCII toggles) as the reader left it.
 */
export function renderTail(record, showAll, typeset, from, anchors) {
  const p = plan(record, showAll);
  const cards = p.cards.slice(from).map((card) => cardHtml(card, p.history, typeset, anchors));
  return {
    cards,
    cardCount: p.cards.length,
    lastCanGrow: lastCanGrow(p.cards),
    visible: p.visible,
    failed: p.failed,
  };
}
