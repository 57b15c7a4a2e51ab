// Articles (manual 10, 11.1, 11.2): the record detail's two Generate buttons, the setup
// dialog with its directory browser, the progress bar with Cancel, the result (path, Reveal,
// audit warnings, compile log, Markdown preview) and the Settings tab's Generation block.

import { getJson, postJson, putSettings } from "./api.js";
import { addStrings, t } from "./i18n.js";
import { loadKatex } from "./katex.js";
import { esc } from "./util.js";

addStrings({
  en: {
    genMarkdown: "Generate Markdown",
    genLatex: "Generate LaTeX",
    genOpenRecord: "An open record has no article yet; it can be generated once it ends.",
    genTitleMarkdown: "Generate a Markdown article",
    genTitleLatex: "Generate a LaTeX article",
    genDirectory: "Directory",
    genBrowse: "Browse…",
    genUp: "Up",
    genUseFolder: "Use this folder",
    genNoDirs: "No sub-folders here.",
    genFileName: "File name",
    genLanguage: "Language",
    genLangAuto: "Automatic (from the record)",
    genCompile: "Compile to PDF with XeLaTeX",
    genNoCompiler: "No XeLaTeX was found on this machine, so the PDF cannot be made.",
    genWriter: "Writer",
    genWriterTemplate: "Template (no model)",
    genModel: "Model",
    genBaseUrl: "Base URL",
    genKeyNote: "The API key from the environment (OPENAI_API_KEY, ANTHROPIC_API_KEY) is sent only to the provider's configured base URL.",
    genApiKey: "API key for another base URL (this article only, never saved)",
    genStart: "Generate",
    genClose: "Close",
    genPhase_prepare: "Preparing the facts…",
    genPhase_generate: "Writing the article…",
    genPhase_write: "Writing the file…",
    genPhase_compile: "Compiling the PDF…",
    genDone: "The article is written.",
    genCancelled: "The job was cancelled; nothing was written.",
    genFailed: "The article could not be generated.",
    genPath: "File",
    genPdf: "PDF",
    genReveal: "Show in folder",
    genOpenFile: "Open file",
    genAuditClean: "Every number in the article matches the record.",
    genAuditWarnings: "The audit found {n} things the record does not back:",
    genAuditWarnings_one: "The audit found 1 thing the record does not back:",
    genCompileFailed: "The PDF was not made:",
    genPreview: "Preview",
    genWriterUsed: "Written by {writer}",
    genPromptVersion: "prompt {v}",
    generationSection: "Generation",
    genMarkdownBlock: "Markdown articles",
    genLatexBlock: "LaTeX articles",
    genWriterBlock: "Article writer",
    genSave: "Save",
  },
  "zh-CN": {
    genMarkdown: "生成 Markdown",
    genLatex: "生成 LaTeX",
    genOpenRecord: "进行中的记录还没有文章；记录结束后才能生成。",
    genTitleMarkdown: "生成 Markdown 文章",
    genTitleLatex: "生成 LaTeX 文章",
    genDirectory: "目录",
    genBrowse: "浏览…",
    genUp: "上一级",
    genUseFolder: "使用此文件夹",
    genNoDirs: "这里没有子文件夹。",
    genFileName: "文件名",
    genLanguage: "语言",
    genLangAuto: "自动（根据记录）",
    genCompile: "用 XeLaTeX 编译为 PDF",
    genNoCompiler: "本机没有找到 XeLaTeX，无法生成 PDF。",
    genWriter: "撰写方式",
    genWriterTemplate: "模板（不用模型）",
    genModel: "模型",
    genBaseUrl: "接口地址",
    genKeyNote: "环境变量中的 API 密钥（OPENAI_API_KEY、ANTHROPIC_API_KEY）只发送到该服务商已配置的接口地址。",
    genApiKey: "其他接口地址的 API 密钥（只用于这篇文章，从不保存）",
    genStart: "生成",
    genClose: "关闭",
    genPhase_prepare: "正在整理事实…",
    genPhase_generate: "正在撰写文章…",
    genPhase_write: "正在写入文件…",
    genPhase_compile: "正在编译 PDF…",
    genDone: "文章已写好。",
    genCancelled: "任务已取消，没有写入任何文件。",
    genFailed: "文章未能生成。",
    genPath: "文件",
    genPdf: "PDF",
    genReveal: "在文件夹中显示",
    genOpenFile: "打开文件",
    genAuditClean: "文章中的每个数字都与记录一致。",
    genAuditWarnings: "核对发现 {n} 处没有依据：",
    genCompileFailed: "PDF 未生成：",
    genPreview: "预览",
    genWriterUsed: "撰写：{writer}",
    genPromptVersion: "提示词 {v}",
    generationSection: "文章生成",
    genMarkdownBlock: "Markdown 文章",
    genLatexBlock: "LaTeX 文章",
    genWriterBlock: "撰写方式",
    genSave: "保存",
  },
});

const POLL_MS = 250;
const FORMATS = { markdown: "markdown", latex: "latex" };

// ---------------------------------------------------------------------------------------
// The record detail's buttons

export function articleButtons(record) {
  const open = record.endedAt == null;
  const hint = open ? ` title="${esc(t("genOpenRecord"))}" disabled` : "";
  return (
    `<div class="article-actions">` +
    `<button type="button" id="generate-markdown" data-generate="markdown"${hint}>${esc(t("genMarkdown"))}</button>` +
    `<button type="button" id="generate-latex" data-generate="latex"${hint}>${esc(t("genLatex"))}</button>` +
    `</div>`
  );
}

// ---------------------------------------------------------------------------------------
// The dialog

let dialog = null;
let job = null; // {id, timer}
let settingsChanged = () => {};

function ensureDialog() {
  if (dialog) return dialog;
  dialog = document.createElement("dialog");
  dialog.id = "generate-dialog";
  dialog.setAttribute("aria-labelledby", "generate-title");
  dialog.innerHTML = `<h2 id="generate-title"></h2><div id="generate-body"></div>`;
  document.body.append(dialog);
  dialog.addEventListener("click", onDialogClick);
  dialog.addEventListener("change", onDialogChange);
  dialog.addEventListener("close", () => stopPolling());
  return dialog;
}

function languageOptions(chosen) {
  const options = [
    ["auto", t("genLangAuto")],
    ["en", "English"],
    ["zh-CN", "简体中文"],
  ];
  return options
    .map(([value, label]) => `<option value="${value}"${value === chosen ? " selected" : ""}>${esc(label)}</option>`)
    .join("");
}

function writerOptions(chosen) {
  const options = [
    ["template", t("genWriterTemplate")],
    ["openai", "OpenAI (Chat Completions)"],
    ["anthropic", "Anthropic (Messages)"],
  ];
  return options
    .map(([value, label]) => `<option value="${value}"${value === chosen ? " selected" : ""}>${esc(label)}</option>`)
    .join("");
}

function writerFields(prefix, writer, withKey = false) {
  const provider = writer.kind !== "template";
  // A typed URL's own key: a password field, never filled from or saved to the settings.
  const key = withKey ? `<label>${esc(t("genApiKey"))} <input id="${prefix}-key" type="password" autocomplete="off"></label>` : "";
  return (
    `<label>${esc(t("genWriter"))} <select id="${prefix}-writer">${writerOptions(writer.kind)}</select></label>` +
    `<div class="provider-fields" id="${prefix}-provider"${provider ? "" : " hidden"}>` +
    `<label>${esc(t("genModel"))} <input id="${prefix}-model" value="${esc(writer.model || "")}" autocomplete="off"></label>` +
    `<label>${esc(t("genBaseUrl"))} <input id="${prefix}-base" value="${esc(writer.baseUrl || "")}" placeholder="https://…" autocomplete="off"></label>` +
    key +
    `<p class="note">${esc(t("genKeyNote"))}</p></div>`
  );
}

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

// -- starting, polling, cancelling ---------------------------------------------------------

function value(id) {
  const el = document.getElementById(id);
  return el ? el.value.trim() : "";
}

async function startJob() {
  const format = dialog.dataset.format;
  const compileBox = document.getElementById("gen-compile");
  const body = {
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
    started = await postJson("/generate", body);
  } catch (error) {
    errorLine.textContent = error.message;
    errorLine.hidden = false;
    return;
  }
  // The format remembers what was used (manual 10); a failed save does not stop the job.
  const remember = { format, directory: body.directory || null, language: body.language };
  if (format === "latex") remember.compile = body.compile;
  putSettings({ generation: remember }).then(
    (answer) => settingsChanged(answer.settings),
    () => {},
  );
  showProgress(started);
  job = { id: started.jobId, timer: 0 };
  pollJob();
}

function stopPolling() {
  if (job) clearTimeout(job.timer);
  job = null;
}

async function pollJob() {
  if (!job) return;
  const current = job;
  let snapshot;
  try {
    snapshot = await getJson("/generate-progress", { jobId: current.id });
  } catch (error) {
    showResult({ status: "failed", error: error.message });
    stopPolling();
    return;
  }
  if (current !== job) return;
  if (snapshot.status === "running") {
    showProgress(snapshot);
    job.timer = setTimeout(pollJob, POLL_MS);
  } else {
    stopPolling();
    showResult(snapshot);
  }
}

function showProgress(snapshot) {
  dialog.dataset.state = "progress";
  const body = document.getElementById("generate-body");
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

async function cancelJob() {
  if (!job) return;
  const button = document.getElementById("gen-cancel");
  if (button) button.disabled = true;
  try {
    await postJson("/generate-cancel", { jobId: job.id });
  } catch {
    // the next poll shows how the job ended
  }
}

function showResult(snapshot) {
  dialog.dataset.state = snapshot.status;
  const parts = [];
  if (snapshot.status === "done") {
    parts.push(`<p class="ok-line" id="gen-outcome">${esc(t("genDone"))}</p>`);
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
    if (snapshot.preview) {
      parts.push(
        `<details open class="preview"><summary>${esc(t("genPreview"))}</summary>` +
          `<article id="gen-preview" class="md-preview">${renderMarkdown(snapshot.preview)}</article></details>`,
      );
    }
  } else if (snapshot.status === "cancelled") {
    parts.push(`<p class="note" id="gen-outcome">${esc(t("genCancelled"))}</p>`);
  } else {
    parts.push(`<p class="error-line" role="alert" id="gen-outcome">${esc(t("genFailed"))} <span id="gen-error">${esc(snapshot.error || "")}</span></p>`);
  }
  parts.push(`<div class="dialog-actions"><button type="button" id="gen-close">${esc(t("genClose"))}</button></div>`);
  document.getElementById("generate-body").innerHTML = parts.join("");
  typesetPreview();
  document.getElementById("gen-close").focus();
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
  if (target.id === "gen-close") dialog.close();
  else if (target.id === "gen-start") startJob();
  else if (target.id === "gen-cancel") cancelJob();
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

// ---------------------------------------------------------------------------------------
// A small Markdown renderer for the preview: headings, paragraphs, pipe tables, lists,
// quotes, $...$ and $$...$$ mathematics, **bold**, *italic* and `code`. Everything is
// escaped first; the mathematics is handed to KaTeX as text.

const PLACEHOLDER = 0xe000;

function inline(text) {
  const escapes = [];
  const protectedText = text.replace(/\\([\\`*_$<>[\]|#{}()!.+-])/g, (_, ch) => {
    escapes.push(ch);
    return String.fromCharCode(PLACEHOLDER + escapes.length - 1);
  });
  const restore = (s) => s.replace(/[\ue000-\uf8ff]/g, (ch) => escapes[ch.charCodeAt(0) - PLACEHOLDER] ?? ch);
  return protectedText
    .split(/(\$[^$\n]+\$|`[^`\n]+`)/)
    .map((part, i) => {
      if (i % 2 === 1 && part.startsWith("$")) {
        const tex = restore(part.slice(1, -1));
        return `<span class="math" data-tex="${esc(tex)}">${esc(tex)}</span>`;
      }
      if (i % 2 === 1) return `<code>${esc(restore(part.slice(1, -1)))}</code>`;
      return esc(restore(part))
        .replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>")
        .replace(/\*([^*]+)\*/g, "<em>$1</em>");
    })
    .join("");
}

function cells(line) {
  return line.replace(/^\s*\|/, "").replace(/\|\s*$/, "").split(/(?<!\\)\|/).map((c) => c.trim());
}

export function renderMarkdown(text) {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const out = [];
  let paragraph = [];
  const flush = () => {
    if (paragraph.length) out.push(`<p>${paragraph.map(inline).join("<br>")}</p>`);
    paragraph = [];
  };
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i];
    const trimmed = line.trim();
    if (trimmed === "$$" || (trimmed.startsWith("$$") && !trimmed.endsWith("$$"))) {
      flush();
      const math = [trimmed.slice(2)];
      i += 1;
      while (i < lines.length && !lines[i].trim().endsWith("$$")) math.push(lines[i++]);
      if (i < lines.length) math.push(lines[i].trim().slice(0, -2));
      const tex = math.join("\n").trim();
      out.push(`<div class="math display" data-tex="${esc(tex)}">${esc(tex)}</div>`);
    } else if (trimmed.startsWith("$$") && trimmed.endsWith("$$") && trimmed.length > 4) {
      flush();
      const tex = trimmed.slice(2, -2).trim();
      out.push(`<div class="math display" data-tex="${esc(tex)}">${esc(tex)}</div>`);
    } else if (/^#{1,6}\s/.test(trimmed)) {
      flush();
      const level = Math.min(trimmed.match(/^#+/)[0].length + 1, 6); // the dialog owns h2
      out.push(`<h${level}>${inline(trimmed.replace(/^#+\s*/, ""))}</h${level}>`);
    } else if (trimmed.startsWith("|") && /^\s*\|?\s*:?-{3,}/.test(lines[i + 1] || "")) {
      flush();
      const head = cells(trimmed).map((c) => `<th>${inline(c)}</th>`).join("");
      const rows = [];
      i += 2;
      while (i < lines.length && lines[i].trim().startsWith("|")) {
        rows.push(`<tr>${cells(lines[i].trim()).map((c) => `<td>${inline(c)}</td>`).join("")}</tr>`);
        i += 1;
      }
      i -= 1;
      out.push(`<table><thead><tr>${head}</tr></thead><tbody>${rows.join("")}</tbody></table>`);
    } else if (/^([-*]|\d+\.)\s/.test(trimmed)) {
      flush();
      const ordered = /^\d/.test(trimmed);
      const items = [];
      while (i < lines.length && /^([-*]|\d+\.)\s/.test(lines[i].trim())) {
        items.push(`<li>${inline(lines[i].trim().replace(/^([-*]|\d+\.)\s+/, ""))}</li>`);
        i += 1;
      }
      i -= 1;
      out.push(ordered ? `<ol>${items.join("")}</ol>` : `<ul>${items.join("")}</ul>`);
    } else if (trimmed.startsWith(">")) {
      flush();
      out.push(`<blockquote>${inline(trimmed.replace(/^>\s?/, ""))}</blockquote>`);
    } else if (!trimmed) {
      flush();
    } else {
      paragraph.push(line.replace(/\s+$/, ""));
    }
  }
  flush();
  return out.join("\n");
}

async function typesetPreview() {
  const nodes = dialog.querySelectorAll(".math[data-tex]");
  if (!nodes.length) return;
  const katex = await loadKatex();
  if (!katex) return; // the TeX source stays readable
  for (const node of nodes) {
    try {
      katex.render(node.dataset.tex, node, {
        displayMode: node.classList.contains("display"),
        throwOnError: true,
      });
      node.dataset.ready = "";
    } catch {
      node.dataset.failed = "";
    }
  }
}

// ---------------------------------------------------------------------------------------
// The Settings tab's Generation block: one form per format and one for the writer, each
// saved on its own.

export function generationBlock(settings) {
  const generation = settings.generation;
  if (!generation) return "";
  const md = generation.markdown;
  const tex = generation.latex;
  return (
    `<section class="card settings-block" aria-labelledby="generation-section"><h3 id="generation-section">${esc(t("generationSection"))}</h3>` +
    `<fieldset id="gen-md-block"><legend>${esc(t("genMarkdownBlock"))}</legend>` +
    `<label>${esc(t("genDirectory"))} <input id="gen-md-directory" value="${esc(md.directory)}"></label>` +
    `<label>${esc(t("genLanguage"))} <select id="gen-md-language">${languageOptions(md.language)}</select></label>` +
    `<button type="button" id="gen-md-save" data-save="markdown">${esc(t("genSave"))}</button>` +
    `<p id="gen-md-line" class="save-line" aria-live="polite"></p></fieldset>` +
    `<fieldset id="gen-tex-block"><legend>${esc(t("genLatexBlock"))}</legend>` +
    `<label>${esc(t("genDirectory"))} <input id="gen-tex-directory" value="${esc(tex.directory)}"></label>` +
    `<label>${esc(t("genLanguage"))} <select id="gen-tex-language">${languageOptions(tex.language)}</select></label>` +
    `<label class="switch"><input type="checkbox" id="gen-tex-compile" role="switch"${tex.compile ? " checked" : ""}> <span>${esc(t("genCompile"))}</span></label>` +
    `<button type="button" id="gen-tex-save" data-save="latex">${esc(t("genSave"))}</button>` +
    `<p id="gen-tex-line" class="save-line" aria-live="polite"></p></fieldset>` +
    `<fieldset id="gen-writer-block"><legend>${esc(t("genWriterBlock"))}</legend>` +
    writerFields("gen-set", generation.writer) +
    `<button type="button" id="gen-writer-save" data-save="writer">${esc(t("genSave"))}</button>` +
    `<p id="gen-writer-line" class="save-line" aria-live="polite"></p></fieldset>` +
    `</section>`
  );
}

/** Save one block of the Generation settings; answers the new settings view. */
export async function saveGenerationBlock(which) {
  let change;
  let line;
  if (which === "writer") {
    change = {
      writer: {
        kind: value("gen-set-writer"),
        model: value("gen-set-model") || null,
        baseUrl: value("gen-set-base") || null,
      },
    };
    line = document.getElementById("gen-writer-line");
  } else {
    const prefix = which === "latex" ? "gen-tex" : "gen-md";
    change = {
      format: FORMATS[which],
      directory: value(`${prefix}-directory`) || null,
      language: value(`${prefix}-language`),
    };
    if (which === "latex") change.compile = document.getElementById("gen-tex-compile").checked;
    line = document.getElementById(`${prefix}-line`);
  }
  try {
    const answer = await putSettings({ generation: change });
    line.textContent = t("saved");
    line.dataset.kind = "ok";
    return answer.settings;
  } catch (error) {
    line.textContent = t("prefSaveFailed", { error: error.message });
    line.dataset.kind = "error";
    return null;
  }
}

/** The Settings writer block shows its provider fields only for a provider. */
export function onGenerationChange(el) {
  if (el.id === "gen-set-writer") {
    document.getElementById("gen-set-provider").hidden = el.value === "template";
  }
}
