// The Pitfalls tab: search the lessons, read one, change its status, add a note; delete or
// merge it through pitfalls-actions.js. Its strings live here in both languages; the tab's
// own label is in i18n.js.

import { API } from "./api.js";
import { language } from "./i18n.js";
import { actionsHtml, LessonActions } from "./pitfalls-actions.js";
import { announce, esc } from "./util.js";

const STRINGS = {
  en: {
    title: "Pitfalls",
    intro: "Lessons learned from tool failures: the project's library first, then the global one.",
    query: "Search",
    queryHint: "words of the task or the error",
    tag: "Tag",
    status: "Status",
    anyStatus: "any status",
    search: "Search",
    none: "No lesson matches.",
    empty: "No lessons recorded yet. An agent records one with pitfall_record.",
    failed: "Could not load: {error}",
    solved: "solved",
    workaround: "workaround",
    open: "open",
    project: "project",
    global: "global",
    solution: "Solution",
    symptom: "Symptom",
    cause: "Cause",
    evidence: "Evidence",
    area: "Area",
    tags: "Tags",
    notes: "Notes",
    noNotes: "No notes yet.",
    card: "Card",
    addNote: "Add a note",
    save: "Save",
    saved: "Saved.",
    saveFailed: "Could not save: {error}",
    back: "← Pitfalls",
    updated: "updated {t}",
  },
  "zh-CN": {
    title: "踩坑记录",
    intro: "从工具失败中得到的教训：先查项目档案，再查全局档案。",
    query: "搜索",
    queryHint: "任务或报错里的词",
    tag: "标签",
    status: "状态",
    anyStatus: "全部状态",
    search: "搜索",
    none: "没有匹配的记录。",
    empty: "还没有记录。智能体用 pitfall_record 记下一条。",
    failed: "无法加载：{error}",
    solved: "已解决",
    workaround: "已绕过",
    open: "未解决",
    project: "项目",
    global: "全局",
    solution: "解决办法",
    symptom: "现象",
    cause: "原因",
    evidence: "证据",
    area: "位置",
    tags: "标签",
    notes: "补记",
    noNotes: "还没有补记。",
    card: "卡片",
    addNote: "添加补记",
    save: "保存",
    saved: "已保存。",
    saveFailed: "无法保存：{error}",
    back: "← 踩坑记录",
    updated: "更新于 {t}",
  },
};
const STATUSES = ["solved", "workaround", "open"];

function s(key, vars) {
  let text = (STRINGS[language()] || STRINGS.en)[key] ?? STRINGS.en[key] ?? key;
  for (const [name, value] of Object.entries(vars || {})) text = text.replaceAll(`{${name}}`, String(value));
  return text;
}

const view = { main: null, query: "", tag: "", status: "", lessons: null, error: null, open: null, line: "", notice: "" };

async function fetchJson(path, init) {
  const response = await fetch(API + path, { cache: "no-store", ...init });
  let body = null;
  try {
    body = await response.json();
  } catch {
    // not JSON: the status line below says what happened
  }
  if (!response.ok) throw new Error(body?.error || `HTTP ${response.status}`);
  return body;
}

async function load() {
  const params = new URLSearchParams();
  if (view.query) params.set("q", view.query);
  if (view.tag) params.set("tag", view.tag);
  if (view.status) params.set("status", view.status);
  try {
    view.lessons = (await fetchJson(`/pitfalls?${params}`)).lessons;
    view.error = null;
  } catch (error) {
    view.error = error.message;
  }
}

function statusOptions(selected, withAny) {
  const any = withAny ? `<option value="">${esc(s("anyStatus"))}</option>` : "";
  return any + STATUSES.map((st) => `<option value="${st}"${st === selected ? " selected" : ""}>${esc(s(st))}</option>`).join("");
}

function listHtml() {
  if (view.error) return `<p class="error-line" role="alert">${esc(s("failed", { error: view.error }))}</p>`;
  if (!view.lessons) return "";
  if (view.lessons.length === 0) {
    const searching = view.query || view.tag || view.status;
    return `<p class="empty-line">${esc(s(searching ? "none" : "empty"))}</p>`;
  }
  return (
    `<ul class="pitfall-list">` +
    view.lessons
      .map(
        (lesson) =>
          `<li><button type="button" class="pitfall-link" data-pitfall="${esc(lesson.id)}">` +
          `<strong>${esc(lesson.title || lesson.id)}</strong> ` +
          `<span class="pitfall-status pitfall-${esc(lesson.status)}">${esc(s(lesson.status))}</span> ` +
          `<span class="pitfall-tier">${esc(s(lesson.tier))}</span>` +
          (lesson.solution ? `<span class="pitfall-solution">${esc(lesson.solution.slice(0, 200))}</span>` : "") +
          `</button></li>`,
      )
      .join("") +
    `</ul>`
  );
}

function field(key, lesson) {
  const value = key === "tags" ? (lesson.tags || []).join(", ") : lesson[key];
  if (!value) return "";
  const block = key === "evidence" ? `<pre>${esc(value)}</pre>` : `<p>${esc(value)}</p>`;
  return `<h4>${esc(s(key))}</h4>${block}`;
}

function detailHtml(lesson, card) {
  const notes = (lesson.notes || []).map((n) => `<li><time>${esc(n.at)}</time> ${esc(n.text)}</li>`).join("");
  return (
    `<p><a href="#/pitfalls" id="pitfall-back">${esc(s("back"))}</a></p>` +
    `<article class="card pitfall-card" aria-labelledby="pitfall-title">` +
    `<h3 id="pitfall-title">${esc(lesson.title || lesson.id)}</h3>` +
    `<p class="pitfall-meta"><code>${esc(lesson.id)}</code> · ${esc(s("updated", { t: lesson.updated }))}</p>` +
    ["solution", "symptom", "cause", "evidence", "area", "tags"].map((k) => field(k, lesson)).join("") +
    `<h4>${esc(s("notes"))}</h4>` +
    (notes ? `<ul class="pitfall-notes">${notes}</ul>` : `<p class="empty-line">${esc(s("noNotes"))}</p>`) +
    `<p class="pitfall-path">${esc(s("card"))}: <code>${esc(card)}</code></p>` +
    `<form id="pitfall-edit" class="pitfall-edit">` +
    `<label>${esc(s("status"))} <select id="pitfall-status">${statusOptions(lesson.status, false)}</select></label>` +
    `<label>${esc(s("addNote"))} <textarea id="pitfall-note" rows="3"></textarea></label>` +
    `<button type="submit" id="pitfall-save">${esc(s("save"))}</button>` +
    `<p id="pitfall-save-line" class="save-line" aria-live="polite">${esc(view.line)}</p>` +
    `</form>${actionsHtml()}</article>`
  );
}

function render() {
  const main = view.main;
  document.title = `${s("title")} · Reckoner`;
  if (view.open) {
    actions.remember();
    main.innerHTML = `<h2>${esc(s("title"))}</h2>` + detailHtml(view.open.lesson, view.open.card);
    document.getElementById("pitfall-confirm").innerHTML = actions.html();
    return;
  }
  main.innerHTML =
    `<h2>${esc(s("title"))}</h2><p>${esc(s("intro"))}</p>` +
    `<form id="pitfall-search" class="pitfall-search" role="search">` +
    `<label>${esc(s("query"))} <input type="search" id="pitfall-query" placeholder="${esc(s("queryHint"))}" value="${esc(view.query)}"></label>` +
    `<label>${esc(s("tag"))} <input type="text" id="pitfall-tag" value="${esc(view.tag)}"></label>` +
    `<label>${esc(s("status"))} <select id="pitfall-status-filter">${statusOptions(view.status, true)}</select></label>` +
    `<button type="submit">${esc(s("search"))}</button></form>` +
    `<p id="pitfall-notice" class="save-line" data-kind="ok" aria-live="polite">${esc(view.notice)}</p>` +
    `<div id="pitfall-results" aria-live="polite">${listHtml()}</div>`;
}

async function openLesson(id, line = "") {
  actions.reset();
  try {
    view.open = await fetchJson(`/pitfalls/${encodeURIComponent(id)}`);
    view.line = line;
  } catch (error) {
    view.error = error.message;
    view.open = null;
  }
  render();
  document.getElementById("pitfall-title")?.focus?.();
}

async function save() {
  const status = document.getElementById("pitfall-status").value;
  const note = document.getElementById("pitfall-note").value.trim();
  const body = { status };
  if (note) body.note = note;
  try {
    const answer = await fetchJson(`/pitfalls/${encodeURIComponent(view.open.lesson.id)}`, {
      method: "PATCH",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    view.open = { ...view.open, lesson: { ...view.open.lesson, ...answer.lesson } };
    view.line = s("saved");
  } catch (error) {
    view.line = s("saveFailed", { error: error.message });
  }
  render();
  announce(view.line);
}

function onSubmit(event) {
  if (event.target.id === "pitfall-search") {
    event.preventDefault();
    view.query = document.getElementById("pitfall-query").value.trim();
    view.tag = document.getElementById("pitfall-tag").value.trim();
    view.status = document.getElementById("pitfall-status-filter").value;
    view.notice = "";
    load().then(render);
  } else if (event.target.id === "pitfall-edit") {
    event.preventDefault();
    save();
  }
}

const actions = new LessonActions({
  request: fetchJson,
  onDeleted(id, line) {
    view.open = null;
    view.notice = line;
    announce(line);
    load().then(render);
  },
  onMerged(kept, line) {
    announce(line);
    openLesson(kept, line);
  },
});

function onClick(event) {
  if (view.open && actions.onClick(event, view.open.lesson)) return;
  const link = event.target.closest?.("[data-pitfall]");
  if (link) {
    openLesson(link.dataset.pitfall);
  } else if (event.target.id === "pitfall-back") {
    event.preventDefault();
    view.open = null;
    view.notice = "";
    actions.reset();
    load().then(render);
  }
}

/** Show the tab in `main` (the hash route #/pitfalls). */
export async function showPitfalls(main) {
  if (view.main !== main) {
    main.addEventListener("submit", onSubmit);
    main.addEventListener("click", onClick);
    if (!view.main) document.addEventListener("keydown", (event) => actions.onKeydown(event));
    view.main = main;
  }
  view.open = null;
  view.notice = "";
  actions.reset();
  await load();
  render();
}

/** Re-render in the language just chosen. */
export function rerenderPitfalls() {
  if (view.main) render();
}
