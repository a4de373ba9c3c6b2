// Vulnerability counts per day as an inline SVG bar chart (stacked by severity), drawn from the count
// reports; a picture with a text summary for screen readers.
import { h } from "./ui.js";

export const SEVERITIES = ["CRITICAL", "HIGH", "MEDIUM", "LOW", "UNKNOWN"];

export function perDay(reports) {
  const days = new Map();
  for (const r of reports) {
    const day = (r.date || "").slice(0, 10);
    if (!day) continue;
    const row = days.get(day) || Object.fromEntries(SEVERITIES.map((s) => [s, 0]));
    for (const c of r.vulnCounts || []) {
      const sev = SEVERITIES.includes(c.severity) ? c.severity : "UNKNOWN";
      row[sev] += Number(c.count || 0);
    }
    days.set(day, row);
  }
  return [...days.entries()].sort((a, b) => a[0].localeCompare(b[0]));
}

export function chart(days, title) {
  const W = 640;
  const H = 200;
  const pad = 28;
  const max = Math.max(1, ...days.map(([, row]) => SEVERITIES.reduce((n, s) => n + row[s], 0)));
  const bw = Math.max(2, Math.floor((W - pad * 2) / Math.max(days.length, 1)) - 2);
  const svg = h("svg:svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": title, class: "chart" });
  svg.append(h("svg:title", {}, title));
  svg.append(h("svg:line", { x1: pad, y1: H - pad, x2: W - pad, y2: H - pad, class: "axis" }));
  svg.append(h("svg:text", { x: 2, y: pad, class: "label" }, String(max)));
  days.forEach(([day, row], i) => {
    let y = H - pad;
    const x = pad + i * (bw + 2);
    for (const s of SEVERITIES) {
      const hgt = ((H - pad * 2) * row[s]) / max;
      if (hgt <= 0) continue;
      y -= hgt;
      const bar = h("svg:rect", { x, y, width: bw, height: hgt, class: "sev-" + s.toLowerCase() });
      bar.append(h("svg:title", {}, `${day}: ${row[s]} ${s.toLowerCase()}`));
      svg.append(bar);
    }
    if (i === 0 || i === days.length - 1) svg.append(h("svg:text", { x, y: H - 8, class: "label" }, day));
  });
  const legend = h("ul", { class: "legend" }, SEVERITIES.map((s) => h("li", {}, h("span", { class: "swatch sev-" + s.toLowerCase() }), s.toLowerCase())));
  return h("figure", {}, svg, legend, h("figcaption", {}, title));
}
