// A readme's Markdown as DOM nodes: headings, paragraphs, lists, block quotes, fenced code, inline code,
// emphasis and http(s) links. Raw HTML in the Markdown is shown as text, never parsed: the readme is data from
// the API, so nothing in it can become markup, script or a javascript: link.
import { h } from "./ui.js";

function inline(text) {
  const out = [];
  let i = 0;
  let plain = "";
  const flush = () => {
    if (plain) out.push(plain);
    plain = "";
  };
  while (i < text.length) {
    const c = text[i];
    if (c === "`") {
      const end = text.indexOf("`", i + 1);
      if (end > i) {
        flush();
        out.push(h("code", {}, text.slice(i + 1, end)));
        i = end + 1;
        continue;
      }
    }
    if (c === "*" || c === "_") {
      const strong = text[i + 1] === c;
      const mark = strong ? c + c : c;
      const end = text.indexOf(mark, i + mark.length);
      if (end > i + mark.length) {
        flush();
        out.push(h(strong ? "strong" : "em", {}, inline(text.slice(i + mark.length, end))));
        i = end + mark.length;
        continue;
      }
    }
    if (c === "[") {
      const close = text.indexOf("](", i);
      const end = close > 0 ? text.indexOf(")", close) : -1;
      if (close > i && end > close) {
        const target = text.slice(close + 2, end).trim();
        flush();
        const ok = /^https?:\/\//i.test(target);
        const label = inline(text.slice(i + 1, close));
        out.push(ok ? h("a", { href: target, rel: "noopener noreferrer nofollow" }, label) : h("span", {}, label));
        i = end + 1;
        continue;
      }
    }
    plain += c;
    i++;
  }
  flush();
  return out;
}

export function markdown(source) {
  const root = h("div", { class: "markdown" });
  const lines = String(source || "").replace(/\r\n?/g, "\n").split("\n");
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (/^```/.test(line)) {
      const body = [];
      i++;
      while (i < lines.length && !/^```/.test(lines[i])) body.push(lines[i++]);
      i++;
      root.append(h("pre", {}, h("code", {}, body.join("\n"))));
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      // Readme headings sit under the page's own h1/h2.
      const level = Math.min(6, heading[1].length + 2);
      root.append(h("h" + level, {}, inline(heading[2])));
      i++;
      continue;
    }
    if (/^\s*([-*+]|\d+\.)\s+/.test(line)) {
      const ordered = /^\s*\d+\./.test(line);
      const list = h(ordered ? "ol" : "ul");
      while (i < lines.length && /^\s*([-*+]|\d+\.)\s+/.test(lines[i])) {
        list.append(h("li", {}, inline(lines[i].replace(/^\s*([-*+]|\d+\.)\s+/, ""))));
        i++;
      }
      root.append(list);
      continue;
    }
    if (/^>\s?/.test(line)) {
      const body = [];
      while (i < lines.length && /^>\s?/.test(lines[i])) body.push(lines[i++].replace(/^>\s?/, ""));
      root.append(h("blockquote", {}, h("p", {}, inline(body.join(" ")))));
      continue;
    }
    if (!line.trim()) {
      i++;
      continue;
    }
    const para = [];
    while (i < lines.length && lines[i].trim() && !/^(```|#{1,6}\s|>|\s*([-*+]|\d+\.)\s)/.test(lines[i])) {
      para.push(lines[i++]);
    }
    root.append(h("p", {}, inline(para.join(" "))));
  }
  return root;
}
