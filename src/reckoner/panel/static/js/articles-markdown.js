import { loadKatex } from "./katex.js";
import { esc } from "./util.js";

// A small Markdown renderer for the preview: headings, paragraphs, pipe tables, lists,
// quotes, $...$ and $$...$$ mathematics, **bold**, *italic*, `code` and the figures an
// article carries as <svg> blocks. Everything is escaped first; the mathematics is handed
// to KaTeX as text; a figure is shown as an image of its bytes (below), never as markup.

const PLACEHOLDER = 0xe000;

// A figure block: a line that opens <svg, up to the line that closes it.
const SVG_OPEN = /^<svg[\s>]/i;
const SVG_CLOSE = /<\/svg\s*>/i;
const XML_ENTITIES = { "&lt;": "<", "&gt;": ">", "&quot;": '"', "&apos;": "'", "&amp;": "&" };

function base64(text) {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  // In slices: one String.fromCharCode over a large figure would pass the argument limit.
  for (let at = 0; at < bytes.length; at += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(at, at + 0x8000));
  }
  return btoa(binary);
}

/**
 * An <svg> block as an <img> of a data: URL. A document loaded as an image runs no script
 * and fetches nothing, so a hostile figure (onload, <script>, a foreign href) is inert; the
 * markup itself never enters the page. Its <title> becomes the image's alternative text.
 */
function figure(source) {
  const title = source.match(/<title>([^<]*)<\/title>/i);
  const alt = title ? title[1].replace(/&(lt|gt|quot|apos|amp);/g, (e) => XML_ENTITIES[e]) : "";
  return `<figure class="md-figure"><img src="data:image/svg+xml;base64,${base64(source)}" alt="${esc(alt)}"></figure>`;
}

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
    const closing = SVG_OPEN.test(trimmed) ? lines.findIndex((l, at) => at >= i && SVG_CLOSE.test(l)) : -1;
    if (closing >= 0) {
      // Unclosed, it is text like any other line, escaped in its paragraph.
      flush();
      const close = SVG_CLOSE.exec(lines[closing]);
      const end = close.index + close[0].length;
      out.push(figure([...lines.slice(i, closing), lines[closing].slice(0, end)].join("\n").trim()));
      const after = lines[closing].slice(end).trim();
      if (after) paragraph.push(after);
      i = closing;
    } else if (trimmed === "$$" || (trimmed.startsWith("$$") && !trimmed.endsWith("$$"))) {
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

/** Typeset the mathematics the renderer left in ``root`` with KaTeX, once it loads. */
export async function typesetMath(root) {
  const nodes = root.querySelectorAll(".math[data-tex]");
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
