// Security data: the advisory documents feed, searched by CVE, package (document id) or advisory id.
import { api } from "../api.js";
import { go, params, url } from "../app.js";
import { clear, empty, failure, h, loading, table, when } from "../ui.js";

export async function render(view) {
  const q = params().get("q") || "";
  const input = h("input", { id: "sec-q", type: "search", name: "q", value: q, placeholder: "CVE-2024-1234, package or CGA id" });
  const f = h("form", { role: "search", class: "inline" }, h("label", { for: "sec-q" }, "Search advisories"), input, h("button", { type: "submit" }, "Search"));
  f.addEventListener("submit", (ev) => {
    ev.preventDefault();
    go(url("security", { q: input.value.trim() }));
  });
  const out = h("div", {}, q ? loading() : empty("Search by CVE, package or advisory id."));
  clear(view, h("h1", {}, "Security data"), f, out);
  if (!q) return;
  try {
    const query = q.toUpperCase().startsWith("CVE-") || q.toUpperCase().startsWith("GHSA-") ? { cves: q } : { id: q };
    let d = await api("/advisory/v2/documents", { query });
    if (!(d.documents || []).length && query.id) d = await api("/advisory/v2/documents", { query: { cves: q } });
    const rows = [];
    for (const doc of d.documents || []) for (const a of doc.advisories || []) {
      if (query.id === undefined && !(a.aliases || []).includes(q) && a.id !== q) continue;
      const last = (a.events || []).slice(-1)[0] || {};
      const status = Object.keys(last).find((k) => k !== "timestamp") || "—";
      rows.push([doc.id, a.id, (a.aliases || []).join(", "), status, when(last.timestamp)]);
    }
    clear(out, rows.length ? table(`Advisories matching “${q}”`, ["Package", "Advisory", "Aliases", "Status", "Updated"], rows.slice(0, 200)) : empty(`No advisory matches “${q}”.`));
  } catch (e) {
    clear(out, failure(e));
  }
}
