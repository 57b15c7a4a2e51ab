// The Settings tab's Generation block: one form per format and one for the writer, each
// saved on its own.

import { putSettings } from "./api.js";
import { t } from "./i18n.js";
import { esc } from "./util.js";
import { languageOptions, value, writerFields } from "./articles-fields.js";
import "./articles-strings.js";

const FORMATS = { markdown: "markdown", latex: "latex" };

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
