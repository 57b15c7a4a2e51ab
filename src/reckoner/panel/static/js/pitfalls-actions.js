// A lesson's Delete and "Merge into…" actions in the Pitfalls tab (issue 26). Both ask first
// in the page itself (never window.confirm, which a user may have silenced and a test cannot
// see), Escape or Cancel closes the question, and the answer goes to the memory's own
// pitfall_delete / pitfall_merge through the panel's endpoints.

import { addStrings, t } from "./i18n.js";
import { esc } from "./util.js";

addStrings({
  en: {
    pfDelete: "Delete…",
    pfMergeInto: "Merge into…",
    pfDeleteAsk: "Delete “{title}”? It leaves the search and the list; its history stays in the log.",
    pfDeleteYes: "Delete",
    pfCancel: "Cancel",
    pfMergeAsk:
      "Merge “{title}” into the lesson that stays: its notes, tags and any field that lesson lacks go there, and this one is deleted.",
    pfKeepId: "Id of the lesson to keep",
    pfPick: "Or pick it:",
    pfNoCandidates: "No other lesson is recorded.",
    pfMergeYes: "Merge",
    pfKeepMissing: "Give the id of the lesson to keep, or pick one from the list.",
    pfDeleted: "Deleted {id}.",
    pfMerged: "Merged {id} into this lesson.",
    pfFailed: "Not done: {error}",
  },
  "zh-CN": {
    pfDelete: "删除…",
    pfMergeInto: "合并到…",
    pfDeleteAsk: "删除“{title}”？它将不再出现在搜索和列表中；历史仍保留在日志里。",
    pfDeleteYes: "删除",
    pfCancel: "取消",
    pfMergeAsk: "把“{title}”合并到保留的那条：它的补记、标签和那条缺少的字段并过去，这一条随后删除。",
    pfKeepId: "保留的那条的 id",
    pfPick: "或从中选择：",
    pfNoCandidates: "没有其他记录。",
    pfMergeYes: "合并",
    pfKeepMissing: "请填写要保留的那条的 id，或从列表中选一条。",
    pfDeleted: "已删除 {id}。",
    pfMerged: "已把 {id} 合并到这一条。",
    pfFailed: "未完成：{error}",
  },
});

const OPENERS = { delete: "pitfall-delete", merge: "pitfall-merge" };

/** The two buttons under a lesson, and the place their question appears. */
export function actionsHtml() {
  return (
    `<div class="pitfall-actions">` +
    `<button type="button" class="danger" id="${OPENERS.delete}">${esc(t("pfDelete"))}</button>` +
    `<button type="button" id="${OPENERS.merge}">${esc(t("pfMergeInto"))}</button>` +
    `</div><div id="pitfall-confirm"></div>`
  );
}

/**
 * The open question of one lesson. `request(path, init)` is the tab's JSON fetch (it throws
 * the endpoint's sentence); `onDeleted(id)` and `onMerged(kept, duplicate)` run after a change.
 */
export class LessonActions {
  constructor({ request, onDeleted, onMerged }) {
    this.request = request;
    this.onDeleted = onDeleted;
    this.onMerged = onMerged;
    this.reset();
  }

  reset() {
    this.kind = null;
    this.lesson = null;
    this.candidates = null;
    this.line = "";
    this.keep = "";
  }

  /** The question's HTML for the current state ("" when none is open). */
  html() {
    if (!this.kind) return "";
    const title = this.lesson.title || this.lesson.id;
    const line = `<p id="pitfall-confirm-line" class="save-line" data-kind="error" role="alert">${esc(this.line)}</p>`;
    const cancel = `<button type="button" id="pitfall-cancel">${esc(t("pfCancel"))}</button>`;
    if (this.kind === "delete") {
      return (
        `<div class="pitfall-confirm" role="group" aria-labelledby="pitfall-confirm-ask">` +
        `<p id="pitfall-confirm-ask">${esc(t("pfDeleteAsk", { title }))}</p>` +
        `<button type="button" class="danger" id="pitfall-delete-yes">${esc(t("pfDeleteYes"))}</button> ${cancel}${line}</div>`
      );
    }
    return (
      `<div class="pitfall-confirm" role="group" aria-labelledby="pitfall-confirm-ask">` +
      `<p id="pitfall-confirm-ask">${esc(t("pfMergeAsk", { title }))}</p>` +
      `<label>${esc(t("pfKeepId"))} <input type="text" id="pitfall-keep" autocomplete="off" spellcheck="false" value="${esc(this.keep)}"></label>` +
      `<p>${esc(t("pfPick"))}</p>${this.candidatesHtml()}` +
      `<button type="button" id="pitfall-merge-yes">${esc(t("pfMergeYes"))}</button> ${cancel}${line}</div>`
    );
  }

  candidatesHtml() {
    if (this.candidates === null) return "";
    if (this.candidates.length === 0) return `<p class="empty-line">${esc(t("pfNoCandidates"))}</p>`;
    return (
      `<ul class="pitfall-candidates">` +
      this.candidates
        .map(
          (c) =>
            `<li><button type="button" class="pitfall-keep-pick" data-keep="${esc(c.id)}" aria-pressed="${c.id === this.keep}">` +
            `<strong>${esc(c.title || c.id)}</strong> <code>${esc(c.id)}</code></button></li>`,
        )
        .join("") +
      `</ul>`
    );
  }

  draw(focusId) {
    const box = document.getElementById("pitfall-confirm");
    if (!box) return;
    box.innerHTML = this.html();
    document.getElementById(focusId)?.focus();
  }

  async open(kind, lesson) {
    this.reset();
    this.kind = kind;
    this.lesson = lesson;
    // Cancel is the safe default under a delete; under a merge the id is asked first.
    this.draw(kind === "delete" ? "pitfall-cancel" : "pitfall-keep");
    if (kind === "merge") {
      this.candidates = await this.others(lesson);
      if (this.kind !== "merge" || this.lesson !== lesson) return;
      this.remember(); // what was typed while the list loaded stays
      this.draw(document.activeElement?.id || "pitfall-keep");
    }
  }

  /** The lessons it could be merged into: those like it first, else the most recent. */
  async others(lesson) {
    const not = (list) => list.filter((l) => l.id !== lesson.id);
    try {
      const params = new URLSearchParams({ q: lesson.title || "" });
      const alike = not((await this.request(`/pitfalls?${params}`)).lessons);
      return alike.length ? alike : not((await this.request("/pitfalls")).lessons);
    } catch (error) {
      this.line = t("pfFailed", { error: error.message });
      return [];
    }
  }

  /** Keep the id typed so far across a redraw (a new list, another language). */
  remember() {
    const input = document.getElementById("pitfall-keep");
    if (input) this.keep = input.value;
  }

  cancel() {
    const opener = OPENERS[this.kind];
    this.reset();
    this.draw(opener);
  }

  /** Handle a click inside the tab; true when it was one of these actions. */
  onClick(event, lesson) {
    const target = event.target.closest?.("button");
    if (!target) return false;
    if (target.id === OPENERS.delete) this.open("delete", lesson);
    else if (target.id === OPENERS.merge) this.open("merge", lesson);
    else if (target.id === "pitfall-cancel") this.cancel();
    else if (target.id === "pitfall-delete-yes") this.remove();
    else if (target.id === "pitfall-merge-yes") this.merge();
    else if (target.dataset.keep) {
      this.keep = target.dataset.keep;
      this.draw("pitfall-merge-yes");
    } else return false;
    return true;
  }

  /** Escape closes an open question, wherever the focus is; Enter in the id field merges. */
  onKeydown(event) {
    if (!this.kind || !document.getElementById("pitfall-confirm")) return;
    if (event.key === "Escape") {
      event.preventDefault();
      this.cancel();
    } else if (event.key === "Enter" && event.target.id === "pitfall-keep") {
      event.preventDefault();
      this.merge();
    }
  }

  async remove() {
    const id = this.lesson.id;
    try {
      await this.request(`/pitfalls/${encodeURIComponent(id)}`, { method: "DELETE" });
    } catch (error) {
      this.line = t("pfFailed", { error: error.message });
      this.draw("pitfall-cancel");
      return;
    }
    this.reset();
    this.onDeleted(id, t("pfDeleted", { id }));
  }

  async merge() {
    const keep = (document.getElementById("pitfall-keep")?.value || "").trim();
    this.keep = keep;
    if (!keep) {
      this.line = t("pfKeepMissing");
      this.draw("pitfall-keep");
      return;
    }
    const duplicate = this.lesson.id;
    try {
      await this.request("/pitfalls/merge", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ id: keep, duplicate }),
      });
    } catch (error) {
      this.line = t("pfFailed", { error: error.message });
      this.draw("pitfall-keep");
      return;
    }
    this.reset();
    this.onMerged(keep, t("pfMerged", { id: duplicate }));
  }
}
