// The dialog's progress and result views: the bar with its phase, then the outcome (path,
// Reveal, writer, audit warnings, compile log) and the preview: the Markdown rendered, a
// LaTeX article's first PDF page as an image, or its source when it was not compiled.

import { API } from "./api.js";
import { t } from "./i18n.js";
import { esc } from "./util.js";
import { renderMarkdown, typesetMath } from "./articles-markdown.js";
import "./articles-strings.js";

/** The progress bar for a running job, built once and then updated in place. */
export function showProgress(body, snapshot) {
  if (!document.getElementById("gen-progress")) {
    body.innerHTML =
      `<div class="gen-progress"><progress id="gen-progress" max="100" value="0"></progress>` +
      `<p id="gen-phase" aria-live="polite"></p>` +
      `<div class="dialog-actions"><button type="button" id="gen-cancel">${esc(t("cancel"))}</button></div></div>`;
    document.getElementById("gen-cancel").focus();
  }
  document.getElementById("gen-progress").value = snapshot.percent || 0;
  document.getElementById("gen-phase").textContent = `${t(`genPhase_${snapshot.phase || "prepare"}`)} ${snapshot.percent || 0}%`;
}

function doneParts(snapshot) {
  const parts = [`<p class="ok-line" id="gen-outcome">${esc(t("genDone"))}</p>`];
  parts.push(`<p>${esc(t("genPath"))}: <code id="gen-path">${esc(snapshot.path)}</code></p>`);
  if (snapshot.pdf) parts.push(`<p>${esc(t("genPdf"))}: <code id="gen-pdf">${esc(snapshot.pdf)}</code></p>`);
  parts.push(
    `<p class="row"><button type="button" id="gen-reveal" data-path="${esc(snapshot.path)}">${esc(t("genReveal"))}</button>` +
      `<button type="button" id="gen-open" data-path="${esc(snapshot.pdf || snapshot.path)}">${esc(t("genOpenFile"))}</button></p>` +
      `<p id="gen-reveal-line" class="note" aria-live="polite"></p>`,
  );
  const by = [t("genWriterUsed", { writer: snapshot.writer })];
  if (snapshot.promptVersion) by.push(t("genPromptVersion", { v: snapshot.promptVersion }));
  parts.push(`<p class="note" id="gen-writer-used">${esc(by.join(" · "))}</p>`);
  if (snapshot.warnings.length) {
    parts.push(
      `<div class="warning-box" id="gen-warnings"><p>${esc(t("genAuditWarnings", { n: snapshot.warnings.length }))}</p><ul>` +
        snapshot.warnings.map((w) => `<li>${esc(w)}</li>`).join("") +
        `</ul></div>`,
    );
  } else {
    parts.push(`<p class="ok-line" id="gen-audit-clean">${esc(t("genAuditClean"))}</p>`);
  }
  if (snapshot.compileError) {
    parts.push(
      `<div class="error-box" id="gen-compile-error"><p>${esc(t("genCompileFailed"))} ${esc(snapshot.compileError)}</p>` +
        `<pre id="gen-log">${esc(snapshot.compileLog || "")}</pre></div>`,
    );
  }
  parts.push(previewPart(snapshot));
  return parts;
}

function previewPart(snapshot) {
  const open = (label, inner) =>
    `<details open class="preview"><summary>${esc(label)}</summary>${inner}</details>`;
  if (snapshot.pdf) {
    const src = `${API}/article-preview?${new URLSearchParams({ path: snapshot.pdf })}`;
    return open(
      t("genPreviewPage"),
      `<img id="gen-preview-image" class="pdf-preview" src="${esc(src)}" alt="${esc(t("genPreviewPage"))}">` +
        `<p id="gen-preview-error" class="error-line" role="alert" hidden></p>`,
    );
  }
  if (!snapshot.preview) return "";
  if (/^(latex|tex)$/i.test(snapshot.format || "")) {
    return open(t("genPreviewSource"), `<pre id="gen-source" class="tex-source">${esc(snapshot.preview)}</pre>`);
  }
  return open(t("genPreview"), `<article id="gen-preview" class="md-preview">${renderMarkdown(snapshot.preview)}</article>`);
}

/** An image that does not load is replaced by the endpoint's sentence. */
function watchPreviewImage() {
  const image = document.getElementById("gen-preview-image");
  if (!image) return;
  image.addEventListener("error", async () => {
    let sentence = "";
    try {
      const answer = await fetch(image.src, { cache: "no-store" });
      sentence = (await answer.json()).error || `HTTP ${answer.status}`;
    } catch (error) {
      sentence = error.message;
    }
    const line = document.getElementById("gen-preview-error");
    if (!line) return;
    image.remove(); // a broken image says nothing; the sentence takes its place
    line.textContent = `${t("genPreviewFailed")} ${sentence}`;
    line.hidden = false;
  });
}

/** The job's outcome; ``note`` is a line above it (why the dialog shows it again). */
export function showResult(body, snapshot, note = "") {
  const parts = note ? [`<p class="note" id="gen-note">${esc(note)}</p>`] : [];
  if (snapshot.status === "done") parts.push(...doneParts(snapshot));
  else if (snapshot.status === "cancelled") {
    parts.push(`<p class="note" id="gen-outcome">${esc(t("genCancelled"))}</p>`);
  } else {
    parts.push(`<p class="error-line" role="alert" id="gen-outcome">${esc(t("genFailed"))} <span id="gen-error">${esc(snapshot.error || "")}</span></p>`);
  }
  parts.push(`<div class="dialog-actions"><button type="button" id="gen-close">${esc(t("genClose"))}</button></div>`);
  body.innerHTML = parts.join("");
  watchPreviewImage();
  typesetMath(body);
  document.getElementById("gen-close").focus();
}
