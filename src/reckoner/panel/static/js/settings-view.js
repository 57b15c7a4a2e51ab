// The Settings tab: the Generation block (articles-settings.js), the panel's own Display
// all default, and the search policy (search-policy.js).

import { getSettings, putSettings } from "./api.js";
import { t } from "./i18n.js";
import { onSearchPolicyButton, searchPolicyBlock } from "./search-policy.js";
import { main, state } from "./state.js";
import { esc } from "./util.js";
import { generationBlock } from "./articles.js";

export async function loadSettings() {
  try {
    state.settings = await getSettings();
    state.settingsError = null;
    state.showAll = state.settings.panel?.showAll === true;
  } catch (error) {
    state.settingsError = error.message;
  }
  if (state.route.view === "settings") renderSettingsView();
}

export function renderSettingsView() {
  document.title = `${t("settings")} · Reckoner`;
  if (!state.settings) {
    main.innerHTML = `<h2>${esc(t("settings"))}</h2><p class="error-line" role="alert">${esc(t("loadFailed", { error: state.settingsError || "?" }))}</p>`;
    return;
  }
  const s = state.settings;
  const restart = s.restartRequired ? `<p class="restart-line" role="note">${esc(t("restartRequired"))}</p>` : "";
  main.innerHTML =
    `<h2>${esc(t("settings"))}</h2>${restart}` +
    generationBlock(s) +
    `<section class="card settings-block" aria-labelledby="panel-section"><h3 id="panel-section">${esc(t("panelSection"))}</h3>` +
    `<label class="switch"><input type="checkbox" id="pref-show-all" role="switch"${s.panel?.showAll ? " checked" : ""}> ` +
    `<span>${esc(t("showAllDefault"))}</span></label><p id="panel-save-line" class="save-line" aria-live="polite"></p></section>` +
    searchPolicyBlock(s.search);
}

export async function onSearchPolicy(button) {
  const saved = await onSearchPolicyButton(button, main);
  if (!saved) return;
  state.settings = saved.settings;
  renderSettingsView();
  const line = document.getElementById("search-save-line");
  line.textContent = saved.message;
  line.dataset.kind = "ok";
}

export async function onPrefShowAll(checkbox) {
  const line = document.getElementById("panel-save-line");
  try {
    const answer = await putSettings({ panel: { showAll: checkbox.checked } });
    state.settings = answer.settings;
    state.showAll = answer.settings.panel.showAll === true;
    line.textContent = t("saved");
    line.dataset.kind = "ok";
  } catch (error) {
    checkbox.checked = !checkbox.checked;
    line.textContent = t("prefSaveFailed", { error: error.message });
    line.dataset.kind = "error";
  }
}
