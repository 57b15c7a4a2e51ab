// The Settings tab's Search policy block (manual 11.2, 12.4): per key the code default, the
// preset's value and the user's override side by side, the effective value as each field's
// placeholder. An empty field saves null, which clears that override; Reset all overrides
// clears the whole `search` subtree. A hosts field holding just `[]` saves the empty list
// (a strict lookup then answers insufficient without asking the provider).

import { putSettings } from "./api.js";
import { t } from "./i18n.js";
import { esc } from "./util.js";

function shown(value) {
  if (value === null || value === undefined) return "";
  if (Array.isArray(value)) return value.join(", ");
  return String(value);
}

function placeholder(field) {
  const value = field.effective;
  if (value === null || value === undefined) return t("unset");
  if (Array.isArray(value) && value.length === 0) return "[]";
  return shown(value);
}

function inputHtml(field) {
  const id = `search-${field.key.replace(".", "-")}`;
  const attrs = `id="${esc(id)}" data-search-key="${esc(field.key)}" aria-describedby="${esc(id)}-meaning"`;
  const current = shown(field.override);
  if (field.kind === "choice" || field.kind === "boolean") {
    const choices = field.kind === "boolean" ? ["true", "false"] : field.choices;
    const options = choices
      .map((c) => `<option value="${esc(c)}"${current === c ? " selected" : ""}>${esc(c)}</option>`)
      .join("");
    // A select has no placeholder: its empty option names the effective value instead.
    return (
      `<select ${attrs} data-kind="${esc(field.kind)}"><option value="">` +
      `${esc(t("effectiveIs", { v: placeholder(field) }))}</option>${options}</select>`
    );
  }
  if (field.kind === "hosts") {
    // An empty list override is shown as `[]`, so saving the block again keeps it.
    const hosts = Array.isArray(field.override) && field.override.length === 0 ? "[]" : current;
    return (
      `<textarea ${attrs} data-kind="hosts" rows="3" placeholder="${esc(placeholder(field))}">` +
      `${esc(hosts)}</textarea>`
    );
  }
  const type = field.kind === "integer" ? "number" : "text";
  return (
    `<input ${attrs} data-kind="${esc(field.kind)}" type="${type}" value="${esc(current)}"` +
    ` placeholder="${esc(placeholder(field))}">`
  );
}

function layerCell(field, layer) {
  const value = field[layer];
  const effective = field.from === layer ? " effective" : "";
  const text = value === null || value === undefined ? "—" : shown(value) || "[]";
  return `<td class="layer-${layer}${effective}">${esc(text)}</td>`;
}

/** The block's HTML for the settings view's `search` section. */
export function searchPolicyBlock(search) {
  if (!search || !Array.isArray(search.fields)) return "";
  const rows = search.fields.map((field) => {
    const id = `search-${field.key.replace(".", "-")}`;
    return (
      `<tr data-key="${esc(field.key)}"><th scope="row"><code>${esc(field.key)}</code>` +
      `<div class="meaning" id="${esc(id)}-meaning">${esc(field.meaning)}</div></th>` +
      `${layerCell(field, "default")}${layerCell(field, "preset")}` +
      `<td class="layer-override${field.from === "override" ? " effective" : ""}">${inputHtml(field)}</td></tr>`
    );
  });
  const notes = (search.notes || []).map((n) => `<li>${esc(n)}</li>`).join("");
  return (
    `<section class="card settings-block search-policy" aria-labelledby="search-section">` +
    `<h3 id="search-section">${esc(t("searchSection"))}</h3>` +
    `<p class="hint">${esc(t("searchIntro", { preset: search.preset }))}</p>` +
    (notes ? `<ul class="policy-notes" role="note">${notes}</ul>` : "") +
    `<div class="table-wrap"><table class="policy-table"><thead><tr>` +
    `<th scope="col">${esc(t("policyKey"))}</th><th scope="col">${esc(t("layerDefault"))}</th>` +
    `<th scope="col">${esc(t("layerPreset"))}</th><th scope="col">${esc(t("layerOverride"))}</th>` +
    `</tr></thead><tbody>${rows.join("")}</tbody></table></div>` +
    `<p class="actions"><button type="button" id="search-save">${esc(t("save"))}</button> ` +
    `<button type="button" id="search-reset">${esc(t("resetOverrides"))}</button></p>` +
    `<p id="search-save-line" class="save-line" aria-live="polite"></p></section>`
  );
}

function valueOf(input) {
  const raw = input.value.trim();
  if (raw === "") return null; // clears the override: the layer below applies again
  switch (input.dataset.kind) {
    case "integer":
      return /^-?\d+$/.test(raw) ? Number(raw) : raw; // the server names what is wrong
    case "boolean":
      return raw === "true";
    case "hosts":
      // An empty field already means "clear", so the empty list is spelt as it is shown.
      if (raw === "[]") return [];
      return raw.split(/[\s,]+/).filter(Boolean);
    default:
      return raw;
  }
}

/**
 * Save or reset from the block's buttons. Answers the new settings view, or null when the
 * save failed (its sentence is then on the block's save line).
 */
export async function onSearchPolicyButton(button, root) {
  const line = root.querySelector("#search-save-line");
  let body;
  if (button.id === "search-reset") body = { search: null };
  else {
    const change = {};
    for (const input of root.querySelectorAll("[data-search-key]")) {
      change[input.dataset.searchKey] = valueOf(input);
    }
    body = { search: change };
  }
  try {
    const answer = await putSettings(body);
    return { settings: answer.settings, message: button.id === "search-reset" ? t("overridesReset") : t("saved") };
  } catch (error) {
    line.textContent = t("searchSaveFailed", { error: error.message });
    line.dataset.kind = "error";
    return null;
  }
}
