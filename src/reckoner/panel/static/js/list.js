// The record list (manual 11.1): every open record (one per engine sharing the home)
// pinned with an incomplete badge, the closed ones newest first, Select mode, and the line
// of unreadable identifiers.

import { formatTime, t } from "./i18n.js";
import { esc } from "./util.js";

// Rows per content-visibility chunk (see style.css).
const CHUNK = 100;

function recordHref(id) {
  return `#/records/${encodeURIComponent(id)}`;
}

function times(entry) {
  const opened = t("opened", { t: formatTime(entry.openedAt) });
  const ended = entry.endedAt == null ? "" : ` · ${t("ended", { t: formatTime(entry.endedAt) })}`;
  return `<span class="times">${esc(opened + ended)}</span>`;
}

function displayName(entry) {
  return entry.title && entry.title.trim() ? entry.title : entry.id;
}

function openCard(entry, selecting) {
  const note = selecting ? `<p class="muted small">${esc(t("openRecordNotSelectable"))}</p>` : "";
  return (
    `<section class="open-record" aria-label="${esc(`${t("openRecord")} ${entry.id}`)}">` +
    `<a class="record-link" href="${recordHref(entry.id)}" data-id="${esc(entry.id)}">` +
    `<span class="title">${esc(displayName(entry))}</span> <span class="badge incomplete">${esc(t("incomplete"))}</span>` +
    `<span class="id">${esc(entry.id)}</span>${times(entry)}</a>${note}</section>`
  );
}

function closedItem(entry, selecting, selected) {
  const name = displayName(entry);
  const untitled = entry.title && entry.title.trim() ? "" : " untitled";
  if (selecting) {
    const checked = selected.has(entry.id) ? " checked" : "";
    return (
      `<li class="record-row selecting"><label><input type="checkbox" class="pick" value="${esc(entry.id)}"${checked}` +
      ` aria-label="${esc(t("selectRecord", { name }))}"> <span class="title${untitled}">${esc(name)}</span>` +
      `${untitled ? "<span></span>" : `<span class="id">${esc(entry.id)}</span>`}${times(entry)}</label></li>`
    );
  }
  return (
    `<li class="record-row"><a class="record-link" href="${recordHref(entry.id)}" data-id="${esc(entry.id)}">` +
    `<span class="title${untitled}">${esc(name)}</span>${untitled ? "<span></span>" : `<span class="id">${esc(entry.id)}</span>`}` +
    `${times(entry)}</a></li>`
  );
}

/** The whole list view as one HTML string. */
export function renderList(index, selecting, selected) {
  const closed = Array.isArray(index.closed) ? index.closed : [];
  const unreadable = Array.isArray(index.unreadable) ? index.unreadable : [];
  // A body from a build with one engine per home carries only "open".
  const opened = Array.isArray(index.openRecords) ? index.openRecords : index.open ? [index.open] : [];
  const tools = selecting
    ? `<button type="button" id="select-all">${esc(t("selectAll"))}</button>` +
      `<button type="button" id="delete-selected" class="danger"${selected.size ? "" : " disabled"}>` +
      `${esc(t("deleteSelected", { n: selected.size }))}</button>` +
      `<button type="button" id="select-done">${esc(t("done"))}</button>`
    : `<button type="button" id="select-mode"${closed.length ? "" : " disabled"}>${esc(t("select"))}</button>`;
  const parts = [
    `<div class="list-head"><h2 id="list-title">${esc(t("records"))}</h2><div class="list-tools">${tools}</div></div>`,
  ];
  for (const entry of opened) parts.push(openCard(entry, selecting));
  if (unreadable.length) {
    parts.push(
      `<p class="unreadable" role="note">${esc(t("unreadable", { n: unreadable.length, ids: unreadable.join(", ") }))} ` +
        `<button type="button" id="delete-unreadable" class="link danger">${esc(t("deleteUnreadable"))}</button></p>`,
    );
  }
  if (!closed.length && !opened.length) {
    parts.push(`<p class="empty">${esc(t("noRecords"))}</p>`);
  } else if (closed.length) {
    parts.push(`<div class="records" role="list" aria-labelledby="list-title">`);
    for (let start = 0; start < closed.length; start += CHUNK) {
      const items = closed.slice(start, start + CHUNK).map((entry) => closedItem(entry, selecting, selected));
      parts.push(`<ul class="chunk" role="none">${items.join("")}</ul>`);
    }
    parts.push(`</div>`);
  }
  return parts.join("");
}
