// Values as the record stores them, rendered for people: numbers cut to a readable width
// with the full double on hover, and the unit named from the engine's own table (served
// by the page, never copied here).

import { t } from "./i18n.js";
import { esc } from "./util.js";

const table = JSON.parse(document.getElementById("name-table").textContent);
const byVector = new Map(table.rows.map((row) => [row.vector.join(","), row]));
const byName = new Map();
for (const row of table.rows) for (const name of row.names) byName.set(name, row);

const ZERO_KEY = "0,0,0,0,0,0,0";

// The spelling table is reckoner.units.spelling's, served with the name table: the same
// symbols (Ω, W/(m·K), s⁻¹) as the articles and `reckoner show`.
const SPELLING = table.spelling;
const DERIVED = new Map(Object.entries(SPELLING.derived));
const bySpelling = new Map();
for (const row of table.rows) {
  const shown = DERIVED.get(row.vector.join(","));
  if (shown) bySpelling.set(shown, row);
}

function power(exp) {
  const text = String(exp);
  let out = "";
  for (const c of text) out += c === "-" ? SPELLING.superscripts[10] : SPELLING.superscripts[Number(c)];
  return out;
}

/** The unit to show after a value: its SI symbol or derived unit from the spelling table,
 * else the base symbols with their powers. */
export function unitName(dim) {
  if (dim == null) return "";
  if (typeof dim === "string") {
    const row = byName.get(dim);
    if (!row) return dim;
    dim = row.vector;
  }
  if (!Array.isArray(dim)) return "";
  const key = dim.join(",");
  if (key === ZERO_KEY) return "";
  const known = DERIVED.get(key);
  if (known) return known;
  const parts = [];
  dim.forEach((exp, i) => {
    if (exp === 1) parts.push(SPELLING.base[i]);
    else if (exp !== 0) parts.push(`${SPELLING.base[i]}${power(exp)}`);
  });
  return parts.join(SPELLING.join);
}

/** The kind label and the 7 integers, for the unit's tooltip. */
export function unitTitle(dim) {
  if (dim == null) return "";
  if (typeof dim === "string") {
    const row = byName.get(dim);
    return row ? `${row.kind} [${row.vector.join(",")}]` : dim;
  }
  if (!Array.isArray(dim)) return "";
  const row = byVector.get(dim.join(","));
  return `${row ? row.kind : "unnamed"} [${dim.join(",")}]`;
}

/** A short form of a double: 6 significant digits, exponent form when very large or small. */
export function shortNumber(x) {
  if (typeof x !== "number") return String(x);
  if (!Number.isFinite(x)) return String(x);
  if (x === 0) return "0";
  const abs = Math.abs(x);
  if (abs >= 1e6 || abs < 1e-3) {
    const [mantissa, exponent] = x.toExponential(5).split("e");
    return `${trimZeros(mantissa)}e${exponent.replace("+", "")}`;
  }
  return trimZeros(x.toPrecision(6));
}

function trimZeros(text) {
  return text.includes(".") ? text.replace(/\.?0+$/, "") : text;
}

/** A number in a span; when the short form cuts digits, the title carries the exact double. */
function numberHtml(x) {
  const full = String(x);
  const short = shortNumber(x);
  if (short === full) return `<span class="num">${short}</span>`;
  return `<span class="num" title="${full}">${short}</span>`;
}

function complexHtml(re, im) {
  const sign = im < 0 || Object.is(im, -0) ? "−" : "+";
  const full = `${re} ${im < 0 ? "-" : "+"} ${Math.abs(im)}i`;
  return (
    `<span class="num" title="${esc(full)}">${esc(shortNumber(re))} ${sign} ` +
    `${esc(shortNumber(Math.abs(im)))}i</span>`
  );
}

function unitHtml(dim) {
  const name = unitName(dim);
  if (!name) return "";
  // A table name's kind and vector are looked up on hover (see unitTitleFor); only a
  // vector the table does not name carries its integers here.
  if (bySpelling.has(name)) return ` <span class="unit">${esc(name)}</span>`;
  return ` <span class="unit" title="${esc(unitTitle(dim))}">${esc(name)}</span>`;
}

/** The unit after a value: the unit a reading was asked in (its numbers are in that unit,
 * so showing the stored vector's name would misstate them by the unit's factor), else the
 * stored vector's name. */
function valueUnitHtml(value) {
  if (typeof value.unit !== "string") return unitHtml(value.dim);
  return ` <span class="unit" title="${esc(unitTitle(value.dim))}">${esc(value.unit)}</span>`;
}

/** What a `read` answered: one reading, or a list of them in the order asked. */
export function readingValue(value) {
  if (Array.isArray(value)) return value.map(inlineValue).join("; ");
  return inlineValue(value);
}

/** The tooltip of a unit shown by its table name: its kind and its 7 integers. */
export function unitTitleFor(name) {
  const row = bySpelling.get(name);
  return row ? unitTitle(row.vector) : "";
}

/** A bare array element: a number, {re,im}, {mag,ang} or a nested array. */
function elementHtml(item) {
  if (typeof item === "number") return numberHtml(item);
  if (Array.isArray(item)) return `[${item.map(elementHtml).join(", ")}]`;
  if (item && typeof item === "object") {
    if ("re" in item) return complexHtml(item.re, item.im);
    if ("mag" in item) {
      return `${numberHtml(item.mag)}∠${numberHtml(item.ang)}`;
    }
  }
  return esc(JSON.stringify(item));
}

/** Whether a value is a flat array of real numbers (worth a plot). */
export function realSeries(value) {
  if (!value || !Array.isArray(value.array) || value.array.length < 2) return null;
  return value.array.every((x) => typeof x === "number" && Number.isFinite(x)) ? value.array : null;
}

const INLINE_ITEMS = 12;
const TREE_ITEMS = 100;

/** One line for a value (used in Writes/Reads lines and slot rows). */
export function inlineValue(value) {
  if (value === null || value === undefined) return `<span class="muted">${esc(t("deleted"))}</span>`;
  if (typeof value !== "object") return esc(JSON.stringify(value));
  if ("num" in value) return numberHtml(value.num) + valueUnitHtml(value);
  if ("re" in value) return complexHtml(value.re, value.im) + valueUnitHtml(value);
  if ("mag" in value) return `${numberHtml(value.mag)}∠${numberHtml(value.ang)}${valueUnitHtml(value)}`;
  if (Array.isArray(value.array)) {
    const items = value.array;
    const shown = items.slice(0, INLINE_ITEMS).map(elementHtml).join(", ");
    const more = items.length > INLINE_ITEMS ? `, … <span class="muted">(${esc(t("items", { n: items.length }))})</span>` : "";
    return `[${shown}${more}]${valueUnitHtml(value)}`;
  }
  if (value.object && typeof value.object === "object") {
    const fields = Object.entries(value.object);
    return `{${fields.map(([k, v]) => `<span class="field">${esc(k)}</span>: ${inlineValue(v)}`).join(", ")}}`;
  }
  return esc(JSON.stringify(value));
}

/** A value as a tree: arrays and objects expand, scalars sit on their line. */
export function treeValue(value) {
  if (value && typeof value === "object" && Array.isArray(value.array)) {
    return arrayTree(value.array, value.dim, valueUnitHtml(value));
  }
  if (value && typeof value === "object" && value.object && typeof value.object === "object") {
    const fields = Object.entries(value.object);
    const rows = fields
      .map(([k, v]) => `<li><span class="field">${esc(k)}</span>: ${treeValue(v)}</li>`)
      .join("");
    return (
      `<details class="tree" open><summary>${esc(t("fields", { n: fields.length }))}</summary>` +
      `<ul>${rows}</ul></details>`
    );
  }
  return inlineValue(value);
}

// Large arrays start closed and build their items when first opened: a record of
// thousands of sweeps would otherwise put every element in the DOM up front.
const lazyTrees = new Map();
let nextTree = 0;

/** Forget the arrays of the previous render (called before each timeline render). */
export function resetLazyTrees() {
  lazyTrees.clear();
}

/** Fill a closed array tree the first time it opens (wired to the toggle event). */
export function fillLazyTree(details) {
  const key = details.dataset.tree;
  if (key === undefined || !details.open) return;
  const entry = lazyTrees.get(key);
  if (!entry) return;
  lazyTrees.delete(key);
  delete details.dataset.tree;
  details.insertAdjacentHTML("beforeend", arrayItems(entry.items, entry.dim));
}

function arrayItems(items, dim) {
  const shown = items.slice(0, TREE_ITEMS);
  const rows = shown
    .map((item, i) => {
      const inner = Array.isArray(item) ? arrayTree(item, dim, "") : elementHtml(item);
      return `<li><span class="index">${i}</span> ${inner}</li>`;
    })
    .join("");
  const more =
    items.length > TREE_ITEMS
      ? `<li class="muted">… ${esc(t("items", { n: items.length - TREE_ITEMS }))}</li>`
      : "";
  return `<ol start="0">${rows}${more}</ol>`;
}

// `unit` is the top array's unit markup; a nested array shows none.
function arrayTree(items, dim, unit) {
  const summary = `<summary>array · ${esc(t("items", { n: items.length }))}${unit}</summary>`;
  if (items.length <= INLINE_ITEMS) {
    return `<details class="tree" open>${summary}${arrayItems(items, dim)}</details>`;
  }
  const key = String(nextTree++);
  lazyTrees.set(key, { items, dim });
  return `<details class="tree" data-tree="${key}">${summary}</details>`;
}
