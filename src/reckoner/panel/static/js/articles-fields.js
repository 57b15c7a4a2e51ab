// The article forms' shared fields: the language and writer pickers the dialog and the
// Settings block both show, and reading a field's trimmed value.

import { t } from "./i18n.js";
import { esc } from "./util.js";

function optionsOf(options, chosen) {
  return options
    .map(([value, label]) => `<option value="${value}"${value === chosen ? " selected" : ""}>${esc(label)}</option>`)
    .join("");
}

export function languageOptions(chosen) {
  return optionsOf([["auto", t("genLangAuto")], ["en", "English"], ["zh-CN", "简体中文"]], chosen);
}

export function writerOptions(chosen) {
  const options = [
    ["template", t("genWriterTemplate")],
    ["openai", "OpenAI (Chat Completions)"],
    ["anthropic", "Anthropic (Messages)"],
  ];
  return optionsOf(options, chosen);
}

export function writerFields(prefix, writer, withKey = false) {
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

export function value(id) {
  const el = document.getElementById(id);
  return el ? el.value.trim() : "";
}
