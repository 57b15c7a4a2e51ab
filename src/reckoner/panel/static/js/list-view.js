// The records list view: fetched with conditional GETs, rendered by list.js, and the
// deletion of selected or unreadable records behind a confirmation dialog.

import { deleteRecord } from "./api.js";
import { t } from "./i18n.js";
import { renderList } from "./list.js";
import { focusKey, main, restoreFocus, state } from "./state.js";
import { announce, esc } from "./util.js";

const dialog = document.getElementById("confirm-dialog");

export async function refreshList(force) {
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

export function renderListView() {
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

export async function onDeleteSelected() {
  const ids = [...state.selected];
  if (!ids.length) return;
  const title = ids.length === 1 ? t("confirmDeleteOne") : t("confirmDeleteTitle", { n: ids.length });
  const body = t("confirmDeleteBody", { n: ids.length });
  if (!(await confirmDialog(title, body, t("delete")))) return;
  state.selecting = false;
  await deleteIds(ids);
}

export async function onDeleteUnreadable() {
  const ids = [...(state.index?.unreadable || [])];
  if (!ids.length) return;
  const title = t("confirmUnreadableTitle", { n: ids.length });
  const body = `${ids.join(", ")}. ${t("confirmDeleteBody", { n: ids.length })}`;
  if (!(await confirmDialog(title, body, t("delete")))) return;
  await deleteIds(ids);
}

/** A click in the list view: selection mode, select all, delete. */
export function onListClick(target) {
  if (target.id === "select-mode") {
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
  else return false;
  return true;
}

/** A record's checkbox ticked or cleared in selection mode. */
export function onPick(el) {
  if (el.checked) state.selected.add(el.value);
  else state.selected.delete(el.value);
  const button = main.querySelector("#delete-selected");
  if (button) {
    button.disabled = state.selected.size === 0;
    button.textContent = t("deleteSelected", { n: state.selected.size });
  }
}
