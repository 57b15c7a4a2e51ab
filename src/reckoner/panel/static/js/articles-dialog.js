// The article setup dialog (manual 11.1): the form with its directory browser, then the
// job's progress and result. Closing it, by Escape or by a close button, is one path: a
// running job is cancelled, and the dialog follows it to its end; should the job have
// finished before the cancel arrived, the dialog opens again on its result, so no job ever
// writes its file unseen (docs/decisions/panel-articles.md).

import { getJson, postJson, putSettings } from "./api.js";
import { t } from "./i18n.js";
import { announce, esc } from "./util.js";
import { languageOptions, value, writerFields } from "./articles-fields.js";
import { JobPoller, startJob } from "./articles-job.js";
import { showProgress, showResult } from "./articles-result.js";
import "./articles-strings.js";

let dialog = null;
let poller = null; // the job this dialog shows, while it runs
let settingsChanged = () => {};

function ensureDialog() {
  if (dialog) return dialog;
  dialog = document.createElement("dialog");
  dialog.id = "generate-dialog";
  dialog.setAttribute("aria-labelledby", "generate-title");
  dialog.innerHTML =
    `<div class="dialog-head"><h2 id="generate-title"></h2>` +
    `<button type="button" id="gen-x" class="dialog-x" aria-label="${esc(t("genCloseDialog"))}" title="${esc(t("genCloseDialog"))}">×</button></div>` +
    `<div id="generate-body"></div>`;
  document.body.append(dialog);
  dialog.addEventListener("click", onDialogClick);
  dialog.addEventListener("change", onDialogChange);
  // Escape, the × and the Close buttons all end here.
  dialog.addEventListener("close", onClosed);
  return dialog;
}

const body = () => document.getElementById("generate-body");

/** Open the setup dialog for one closed record and one format; ``onSettings`` receives the
 * settings view after the dialog remembered what it used. */
export async function openGenerateDialog(record, format, settings, onSettings = () => {}) {
  const el = ensureDialog();
  settingsChanged = onSettings;
  const remembered = settings?.generation?.[format] || { directory: "", language: "auto", compile: false };
  const writer = settings?.generation?.writer || { kind: "template", model: null, baseUrl: null };
  el.dataset.record = record.id;
  el.dataset.format = format;
  el.dataset.state = "setup";
  delete el.dataset.job;
  const x = document.getElementById("gen-x");
  x.title = t("genCloseDialog"); // in the language chosen since the dialog was made
  x.setAttribute("aria-label", x.title);
  document.getElementById("generate-title").textContent =
    format === "latex" ? t("genTitleLatex") : t("genTitleMarkdown");
  const compile =
    format === "latex"
      ? `<label class="switch"><input type="checkbox" id="gen-compile" role="switch"${remembered.compile ? " checked" : ""}> ` +
        `<span>${esc(t("genCompile"))}</span></label><p id="gen-capability" class="note" hidden></p>`
      : "";
  document.getElementById("generate-body").innerHTML =
    `<form id="gen-form" method="dialog" class="gen-form">` +
    `<label>${esc(t("genDirectory"))} <span class="row"><input id="gen-directory" value="${esc(remembered.directory || "")}" required>` +
    `<button type="button" id="gen-browse">${esc(t("genBrowse"))}</button></span></label>` +
    `<div id="gen-browser" class="dir-browser" hidden></div>` +
    `<label>${esc(t("genFileName"))} <input id="gen-name" placeholder="reckoner-${esc(record.id.slice(0, 8))}" autocomplete="off"></label>` +
    `<label>${esc(t("genLanguage"))} <select id="gen-language">${languageOptions(remembered.language)}</select></label>` +
    compile +
    writerFields("gen", writer, true) +
    `<p id="gen-setup-error" class="error-line" role="alert" hidden></p>` +
    `<div class="dialog-actions"><button type="button" id="gen-close">${esc(t("cancel"))}</button>` +
    `<button type="button" id="gen-start" class="primary">${esc(t("genStart"))}</button></div></form>`;
  if (!el.open) el.showModal();
  document.getElementById("gen-directory").focus();
  if (format === "latex") probeCapability();
}

async function probeCapability() {
  let found;
  try {
    found = await getJson("/generate-capability");
  } catch {
    return; // the compile still reports its own failure
  }
  const line = document.getElementById("gen-capability");
  const box = document.getElementById("gen-compile");
  if (!line || !box) return;
  if (!found.canCompile) {
    box.checked = false;
    box.disabled = true;
    line.textContent = t("genNoCompiler");
    line.hidden = false;
  }
}

// -- the directory browser ----------------------------------------------------------------

async function showBrowser(path) {
  const panel = document.getElementById("gen-browser");
  panel.hidden = false;
  try {
    if (!path) {
      const { roots } = await getJson("/list-roots");
      panel.innerHTML = roots
        .map((root) => `<button type="button" class="dir" data-dir="${esc(root.path)}">${esc(root.name)}</button>`)
        .join("");
      return;
    }
    const listing = await getJson("/list-dirs", { path });
    const up = listing.parent
      ? `<button type="button" class="dir up" data-dir="${esc(listing.parent)}">${esc(t("genUp"))}</button>`
      : "";
    const dirs = listing.dirs.length
      ? listing.dirs
          .map((d) => `<button type="button" class="dir" data-dir="${esc(d.path)}">${esc(d.name)}</button>`)
          .join("")
      : `<p class="note">${esc(t("genNoDirs"))}</p>`;
    panel.innerHTML =
      `<p class="where"><code>${esc(listing.path)}</code> ` +
      `<button type="button" id="gen-use-folder" data-dir="${esc(listing.path)}">${esc(t("genUseFolder"))}</button></p>` +
      up + `<div class="dirs">${dirs}</div>`;
  } catch (error) {
    panel.innerHTML = `<p class="error-line" role="alert">${esc(error.message)}</p>`;
  }
}

// -- the job: started, followed, and cancelled when the dialog closes --------------------

async function start() {
  const format = dialog.dataset.format;
  const compileBox = document.getElementById("gen-compile");
  const request = {
    recordId: dialog.dataset.record,
    format,
    directory: value("gen-directory"),
    fileName: value("gen-name") || null,
    language: value("gen-language"),
    compile: compileBox ? compileBox.checked : false,
    writer: value("gen-writer"),
    model: value("gen-model") || null,
    baseUrl: value("gen-base") || null,
    apiKey: value("gen-key") || null,
  };
  const errorLine = document.getElementById("gen-setup-error");
  let started;
  try {
    started = await startJob(request);
  } catch (error) {
    errorLine.textContent = error.message;
    errorLine.hidden = false;
    return;
  }
  // The format remembers what was used (manual 10); a failed save does not stop the job.
  const remember = { format, directory: request.directory || null, language: request.language };
  if (format === "latex") remember.compile = request.compile;
  putSettings({ generation: remember }).then(
    (answer) => settingsChanged(answer.settings),
    () => {},
  );
  dialog.dataset.state = "progress";
  dialog.dataset.job = started.jobId;
  showProgress(body(), started);
  poller = new JobPoller(started.jobId, (snapshot) => showProgress(body(), snapshot), ended);
}

function ended(snapshot, note = "") {
  poller = null;
  dialog.dataset.state = snapshot.status;
  showResult(body(), snapshot, note);
}

function cancelShown() {
  const button = document.getElementById("gen-cancel");
  if (button) button.disabled = true;
  if (poller) poller.cancel();
}

function onClosed() {
  const leaving = poller;
  if (!leaving) return;
  poller = null;
  // Cancelled as it closes; followed to its end so a job the cancel came too late for is
  // shown, not left to have written its file unseen.
  leaving.onUpdate = () => {};
  leaving.onEnd = (snapshot) => {
    if (snapshot.status !== "done") announce(t("genClosedCancelled"));
    else if (dialog.open) {
      // The dialog was opened again meanwhile: its form or job stays; the line names the file.
      announce(t("genClosedFinishedAt", { path: snapshot.path }));
    } else {
      dialog.showModal();
      ended(snapshot, t("genClosedFinished"));
    }
  };
  leaving.cancel();
}

async function reveal(button, folder) {
  const line = document.getElementById("gen-reveal-line");
  try {
    const answer = await postJson("/reveal", { path: button.dataset.path, folder });
    line.textContent = answer.opened;
    line.dataset.kind = "ok";
  } catch (error) {
    line.textContent = error.message;
    line.dataset.kind = "error";
  }
}

function onDialogClick(event) {
  const target = event.target.closest("button");
  if (!target) return;
  if (target.id === "gen-close" || target.id === "gen-x") dialog.close();
  else if (target.id === "gen-start") start();
  else if (target.id === "gen-cancel") cancelShown();
  else if (target.id === "gen-browse") showBrowser(value("gen-directory"));
  else if (target.id === "gen-use-folder") {
    document.getElementById("gen-directory").value = target.dataset.dir;
    document.getElementById("gen-browser").hidden = true;
  } else if (target.matches(".dir[data-dir]")) showBrowser(target.dataset.dir);
  else if (target.id === "gen-reveal") reveal(target, true);
  else if (target.id === "gen-open") reveal(target, false);
}

function onDialogChange(event) {
  if (event.target.id === "gen-writer") {
    document.getElementById("gen-provider").hidden = event.target.value === "template";
  }
}
