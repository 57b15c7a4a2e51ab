// English and Simplified Chinese strings; the language follows the browser unless the
// user picked one with the switch (remembered in localStorage).

const STRINGS = {
  en: {
    skip: "Skip to content",
    tabsLabel: "Panel sections",
    tabRecords: "Records",
    tabSettings: "Settings",
    tabPitfalls: "Pitfalls",
    language: "Language",
    loading: "Loading…",
    cancel: "Cancel",
    delete: "Delete",
    records: "Records",
    select: "Select",
    selectAll: "Select all",
    deleteSelected: "Delete selected ({n})",
    done: "Done",
    noRecords: "No records yet. A record appears here once an agent calls record_start.",
    openRecord: "Open record",
    incomplete: "incomplete",
    opened: "opened {t}",
    ended: "ended {t}",
    selectRecord: "Select record {name}",
    openRecordNotSelectable: "The open record cannot be deleted until it ends.",
    unreadable: "{n} record files cannot be read by this build: {ids}.",
    unreadable_one: "1 record file cannot be read by this build: {ids}.",
    confirmDeleteBody_one: "Its file is removed from the home directory. This cannot be undone.",
    confirmUnreadableTitle_one: "Delete 1 unreadable record file?",
    deletedN_one: "Deleted 1 record.",
    visibleRows_one: "1 row shown",
    items_one: "1 item",
    fields_one: "1 field",
    deleteUnreadable: "Delete them",
    confirmDeleteTitle: "Delete {n} records?",
    confirmDeleteOne: "Delete this record?",
    confirmDeleteBody: "Their files are removed from the home directory. This cannot be undone.",
    confirmUnreadableTitle: "Delete {n} unreadable record files?",
    deletedN: "Deleted {n} records.",
    deleteFailed: "Could not delete {id}: {error}",
    loadFailed: "Could not load: {error}",
    backToList: "← Records",
    recordLabel: "Record",
    visibleRows: "{n} rows shown",
    failedRows: "{n} failed",
    endedAt: "ended {t}",
    displayAll: "Display all",
    displayAllHint: "Also show refused calls and notes hidden from the record view",
    prefSaveFailed: "Could not save the preference: {error}",
    writes: "Writes ({n})",
    reads: "Reads ({n})",
    failedAttempts: "Failed attempts ({n})",
    step: "Step",
    rev: "rev {n}",
    deleted: "deleted",
    reads_: "Read",
    result: "Result",
    readAs: "read as",
    jumpTo: "Jump to where @{name} was written",
    showAscii: "ASCII",
    showTypeset: "Typeset",
    formulaToggle: "Switch between typeset and ASCII formula",
    recordStart: "Record started",
    recordEnd: "Record ended",
    message: "Message",
    hiddenNote: "note for the writer (hidden)",
    unverifiedNumber: "unverified number",
    unverifiedNumbers: "Numbers no receipt of this record showed",
    refusedStart: "Refused record_start",
    refusedEnd: "Refused record_end",
    lookup: "Lookup",
    computeRun: "Compute run",
    engine: "engine",
    exit: "exit",
    timedOut: "timed out",
    duration: "duration",
    attempt: "attempt",
    stdout: "stdout (last lines)",
    receipt: "Receipt",
    scriptCut: "The script is cut here; the archive holds all of it.",
    sources: "Sources ({n})",
    notAllowed: "Cited but not allowed by the policy ({n})",
    openWeb: "open web",
    openWebNote: "Looked up on the open web and not verified.",
    searchSection: "Search policy",
    searchIntro: "Each lookup resolves every key from three layers: your override, then the preset {preset}, then the code default. An empty field clears your override; [] in a host list sets an empty list.",
    policyKey: "Key",
    layerDefault: "Default",
    layerPreset: "Preset",
    layerOverride: "Your override",
    effectiveIs: "effective: {v}",
    unset: "unset",
    save: "Save",
    resetOverrides: "Reset all overrides",
    overridesReset: "All overrides cleared.",
    searchSaveFailed: "Not saved: {error}",
    seq: "seq",
    tool: "tool",
    formula: "formula",
    code: "code",
    error: "error",
    items: "{n} items",
    fields: "{n} fields",
    plotLabel: "Plot of {name}: {n} values from {min} to {max}",
    emptyTimeline: "No rows to show yet.",
    emptyTimelineHidden: "No rows to show; Display all also shows refused calls and hidden notes.",
    recordGone: "This record no longer exists.",
    settings: "Settings",
    panelSection: "Panel",
    showAllDefault: "Show hidden rows in the record detail by default",
    saved: "Saved.",
    restartRequired: "A change is waiting for the engine's next start to take effect.",
  },
  "zh-CN": {
    skip: "跳到内容",
    tabsLabel: "面板分区",
    tabRecords: "记录",
    tabSettings: "设置",
    tabPitfalls: "踩坑记录",
    language: "语言",
    loading: "加载中…",
    cancel: "取消",
    delete: "删除",
    records: "记录",
    select: "选择",
    selectAll: "全选",
    deleteSelected: "删除所选（{n}）",
    done: "完成",
    noRecords: "还没有记录。智能体调用 record_start 后，记录会出现在这里。",
    openRecord: "进行中的记录",
    incomplete: "未完成",
    opened: "开始于 {t}",
    ended: "结束于 {t}",
    selectRecord: "选择记录 {name}",
    openRecordNotSelectable: "进行中的记录结束前不能删除。",
    unreadable: "有 {n} 个记录文件无法被当前版本读取：{ids}。",
    deleteUnreadable: "删除它们",
    confirmDeleteTitle: "删除 {n} 条记录？",
    confirmDeleteOne: "删除这条记录？",
    confirmDeleteBody: "它们的文件会从主目录中移除，且无法恢复。",
    confirmUnreadableTitle: "删除 {n} 个无法读取的记录文件？",
    deletedN: "已删除 {n} 条记录。",
    deleteFailed: "无法删除 {id}：{error}",
    loadFailed: "加载失败：{error}",
    backToList: "← 记录",
    recordLabel: "记录",
    visibleRows: "显示 {n} 行",
    failedRows: "{n} 行失败",
    endedAt: "结束于 {t}",
    displayAll: "显示全部",
    displayAllHint: "同时显示被拒绝的调用和对记录视图隐藏的备注",
    prefSaveFailed: "无法保存偏好：{error}",
    writes: "写入（{n}）",
    reads: "读取（{n}）",
    failedAttempts: "失败的尝试（{n}）",
    step: "步骤",
    rev: "版本 {n}",
    deleted: "已删除",
    reads_: "读取",
    result: "结果",
    readAs: "读作",
    jumpTo: "跳到写入 @{name} 的位置",
    showAscii: "ASCII",
    showTypeset: "排版",
    formulaToggle: "在排版公式与 ASCII 公式之间切换",
    recordStart: "记录开始",
    recordEnd: "记录结束",
    message: "说明",
    hiddenNote: "写作备注（已隐藏）",
    unverifiedNumber: "未经核实的数字",
    unverifiedNumbers: "本记录的回执中没有出现过的数字",
    refusedStart: "被拒绝的 record_start",
    refusedEnd: "被拒绝的 record_end",
    lookup: "查询",
    computeRun: "计算运行",
    engine: "引擎",
    exit: "退出码",
    timedOut: "超时",
    duration: "耗时",
    attempt: "第几次",
    stdout: "标准输出（末几行）",
    receipt: "回执",
    scriptCut: "脚本在此截断；完整脚本在归档里。",
    sources: "来源（{n}）",
    notAllowed: "已引用但策略不允许（{n}）",
    openWeb: "开放网络",
    openWebNote: "来自开放网络的查询结果，未经核实。",
    searchSection: "查询策略",
    searchIntro: "每次查询按三层解析每个键：你的覆盖值，然后是预设 {preset}，最后是代码默认值。留空即清除你的覆盖值；在主机列表中填写 [] 表示空列表。",
    policyKey: "键",
    layerDefault: "默认",
    layerPreset: "预设",
    layerOverride: "你的覆盖值",
    effectiveIs: "生效值：{v}",
    unset: "未设置",
    save: "保存",
    resetOverrides: "清除全部覆盖值",
    overridesReset: "已清除全部覆盖值。",
    searchSaveFailed: "未保存：{error}",
    seq: "序号",
    tool: "工具",
    formula: "公式",
    code: "代码",
    error: "错误",
    items: "{n} 项",
    fields: "{n} 个字段",
    plotLabel: "{name} 的曲线：{n} 个值，从 {min} 到 {max}",
    emptyTimeline: "暂时没有可显示的行。",
    emptyTimelineHidden: "没有可显示的行；打开“显示全部”可看到被拒绝的调用和隐藏的备注。",
    recordGone: "这条记录已不存在。",
    settings: "设置",
    panelSection: "面板",
    showAllDefault: "记录详情默认显示隐藏的行",
    saved: "已保存。",
    restartRequired: "有一项更改要等引擎下次启动后才会生效。",
  },
};

export const LANGUAGES = Object.keys(STRINGS);
const STORAGE_KEY = "reckoner.panel.lang";

function initialLanguage() {
  let saved = null;
  try {
    saved = localStorage.getItem(STORAGE_KEY);
  } catch {
    // Storage may be disabled; the browser's language still applies.
  }
  if (saved && STRINGS[saved]) return saved;
  const wanted = navigator.languages?.length ? navigator.languages : [navigator.language];
  for (const tag of wanted) {
    if (String(tag).toLowerCase().startsWith("zh")) return "zh-CN";
    if (String(tag).toLowerCase().startsWith("en")) return "en";
  }
  return "en";
}

let current = initialLanguage();

export function language() {
  return current;
}

export function setLanguage(lang) {
  if (!STRINGS[lang]) return;
  current = lang;
  try {
    localStorage.setItem(STORAGE_KEY, lang);
  } catch {
    // Not remembered across visits, still applied now.
  }
}

export function t(key, vars) {
  const table = STRINGS[current] || STRINGS.en;
  // A language that inflects for one (English) carries a `_one` variant; others need none.
  const one = vars && vars.n === 1 ? table[`${key}_one`] : undefined;
  let text = one ?? table[key] ?? STRINGS.en[key] ?? key;
  if (vars) {
    for (const [name, value] of Object.entries(vars)) {
      text = text.replaceAll(`{${name}}`, String(value));
    }
  }
  return text;
}

/** Translate the static parts of the page marked with data-i18n / data-i18n-label. */
export function translateStatic(root = document) {
  document.documentElement.lang = current;
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll("[data-i18n-label]")) {
    el.setAttribute("aria-label", t(el.dataset.i18nLabel));
  }
}

const dayFormats = new Map();
const DAY_MS = 86_400_000;

/**
 * A millisecond clock reading as a local date and time in the current language.
 * Intl formatting costs microseconds a call and a list shows two per record, so the date
 * part is formatted once per local day and the time of day is written out directly.
 */
export function formatTime(ms) {
  if (typeof ms !== "number" || !Number.isFinite(ms)) return "—";
  const date = new Date(ms);
  const offset = date.getTimezoneOffset() * 60_000;
  const day = Math.floor((ms - offset) / DAY_MS);
  const key = `${current}|${day}`;
  let dayText = dayFormats.get(key);
  if (dayText === undefined) {
    dayText = new Intl.DateTimeFormat(current, { dateStyle: "medium" }).format(date);
    dayFormats.set(key, dayText);
  }
  const pad = (n) => String(n).padStart(2, "0");
  return `${dayText} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

/** A view module's own strings, added to the tables (``{en: {...}, "zh-CN": {...}}``). */
export function addStrings(tables) {
  for (const [lang, table] of Object.entries(tables)) Object.assign(STRINGS[lang], table);
}
