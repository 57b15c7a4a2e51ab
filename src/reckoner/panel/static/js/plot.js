// A small inline SVG line plot for an eval whose result is an array of reals.

import { t } from "./i18n.js";
import { esc } from "./util.js";
import { shortNumber } from "./values.js";

const W = 360;
const H = 140;
const PAD = { left: 52, right: 10, top: 10, bottom: 22 };

// A record of thousands of sweeps would carry thousands of SVGs; a plot is drawn when
// its card comes near the viewport, into a placeholder of the same size.
const pending = new Map();
let nextPlot = 0;

export function resetPlots() {
  pending.clear();
}

/** A placeholder the size of the plot, filled by drawPlot when it nears the viewport. */
export function plotSlot(ys, name, unit) {
  const key = String(nextPlot++);
  pending.set(key, [ys, name, unit]);
  return `<div class="plot-slot" data-plot="${key}"></div>`;
}

/** Replace a placeholder with its plot (once). */
export function drawPlot(slot) {
  const args = pending.get(slot.dataset.plot);
  if (!args) return;
  pending.delete(slot.dataset.plot);
  slot.outerHTML = linePlot(...args);
}

/** An SVG line plot of `ys` against their index; `name` labels it for screen readers. */
export function linePlot(ys, name, unit) {
  const n = ys.length;
  let min = Infinity;
  let max = -Infinity;
  for (const y of ys) {
    if (y < min) min = y;
    if (y > max) max = y;
  }
  const flat = min === max;
  const lo = flat ? min - 1 : min;
  const hi = flat ? max + 1 : max;
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const x = (i) => PAD.left + (n === 1 ? plotW / 2 : (i * plotW) / (n - 1));
  const y = (v) => PAD.top + plotH - ((v - lo) * plotH) / (hi - lo);
  // Thousands of points would only overdraw the same pixels; keep about one per pixel.
  const step = Math.max(1, Math.floor(n / plotW));
  const points = [];
  for (let i = 0; i < n; i += step) points.push(`${x(i).toFixed(1)},${y(ys[i]).toFixed(1)}`);
  if ((n - 1) % step !== 0) points.push(`${x(n - 1).toFixed(1)},${y(ys[n - 1]).toFixed(1)}`);
  const dots =
    n <= 24
      ? ys
          .map(
            (v, i) =>
              `<circle cx="${x(i).toFixed(1)}" cy="${y(v).toFixed(1)}" r="2.5"><title>[${i}] ${esc(String(v))}</title></circle>`,
          )
          .join("")
      : "";
  const label = t("plotLabel", { name, n, min: shortNumber(min), max: shortNumber(max) });
  const unitText = unit ? ` ${unit}` : "";
  return `<figure class="plot">
<svg viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${esc(label)}">
<title>${esc(label)}</title>
<line class="axis" x1="${PAD.left}" y1="${PAD.top}" x2="${PAD.left}" y2="${PAD.top + plotH}"/>
<line class="axis" x1="${PAD.left}" y1="${PAD.top + plotH}" x2="${PAD.left + plotW}" y2="${PAD.top + plotH}"/>
<text class="tick" x="${PAD.left - 4}" y="${PAD.top + 8}" text-anchor="end">${esc(shortNumber(max))}</text>
<text class="tick" x="${PAD.left - 4}" y="${PAD.top + plotH}" text-anchor="end">${esc(shortNumber(min))}</text>
<text class="tick" x="${PAD.left}" y="${H - 6}" text-anchor="start">0</text>
<text class="tick" x="${PAD.left + plotW}" y="${H - 6}" text-anchor="end">${n - 1}</text>
<polyline class="line" points="${points.join(" ")}"/>
<g class="dots">${dots}</g>
</svg>
<figcaption>@${esc(name)}${esc(unitText)}</figcaption>
</figure>`;
}
