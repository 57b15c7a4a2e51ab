// Articles (manual 10, 11.1, 11.2): the record detail's two Generate buttons, and what the
// rest of the page uses of the article modules: the setup dialog (articles-dialog.js, with
// its job in articles-job.js and its result and preview in articles-result.js) and the
// Settings tab's Generation block (articles-settings.js).

import { t } from "./i18n.js";
import { esc } from "./util.js";
import "./articles-strings.js";

export { openGenerateDialog } from "./articles-dialog.js";
export { generationBlock, onGenerationChange, saveGenerationBlock } from "./articles-settings.js";

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
