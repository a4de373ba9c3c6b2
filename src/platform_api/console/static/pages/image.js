// One image: tabs Tags (grouped by digest), Overview (the readme), History, SBOM, Vulnerabilities (with the
// per-day chart) and Advisories. The tab is part of the URL (?tab=), so each is a deep link.
import { api } from "../api.js";
import { go, params, url } from "../app.js";
import { chart, perDay } from "../chart.js";
import { markdown } from "../markdown.js";
import { bytes, clear, copyButton, empty, failure, h, link, loading, pagedTable, section, table, when } from "../ui.js";

const TABS = [
  ["tags", "Tags"],
  ["overview", "Overview"],
  ["history", "History"],
  ["sbom", "SBOM"],
  ["vulnerabilities", "Vulnerabilities"],
  ["advisories", "Advisories"],
];

// The most recently changed tag: the SBOM, vulnerability and chart tabs show its image.
async function latestTag(repo) {
  const d = await api("/registry/v2/tags", { query: { "uidp.childrenOf": repo.uid, pageSize: 1, orderBy: "updated_at desc" } });
  return (d.tags || [])[0] || null;
}

async function latestDigest(repo) {
  const t = await latestTag(repo);
  return t ? t.digest : "";
}

async function tags(box, repo, org) {
  const host = document.body.dataset.registry;
  const [d, eol] = await Promise.all([
    api("/registry/v2/tags", { query: { "uidp.childrenOf": repo.uid, pageSize: 100, orderBy: "updated_at desc" } }),
    api("/registry/v1/eoltags", { query: { "uidp.childrenOf": repo.uid, pageSize: 100 } }).catch(() => ({})),
  ]);
  const life = new Map((eol.items || []).map((e) => [e.name, e]));
  const byDigest = new Map();
  for (const t of d.tags || []) {
    const g = byDigest.get(t.digest) || { digest: t.digest, tags: [], time: t.updateTime || t.createTime };
    g.tags.push(t.name);
    byDigest.set(t.digest, g);
  }
  if (!byDigest.size) return clear(box, empty("No tags yet: push this image or import it."));
  const rows = [...byDigest.values()].map((g) => {
    g.tags.sort((a, b) => (b.startsWith("latest") ? 1 : 0) - (a.startsWith("latest") ? 1 : 0));
    const size = h("span", {}, "…");
    Promise.all([
      api(`/registry/v2/repos/${repo.uid}/digests/${g.digest}/size`).catch(() => ({})),
      api(`/registry/v2/repos/${repo.uid}/digests/${g.digest}/architectures`).catch(() => ({})),
    ]).then(([s, a]) => (size.textContent = `${s.size !== undefined ? bytes(s.size) : "—"} / ${(a.architectures || []).join(" + ") || "—"}`));
    const ref = `${host}/${org.name}/${repo.name}:${g.tags[0]}`;
    const states = g.tags.map((t) => life.get(t)).filter(Boolean);
    const grace = states.find((e) => e.tagStatus === "TAG_IN_GRACE");
    const ended = states.filter((e) => e.tagStatus === "TAG_INACTIVE").map((e) => e.name);
    const lifecycle = grace
      ? `Grace period ends ${new Date(grace.gracePeriodExpiryDate).toLocaleDateString("en", { year: "numeric", month: "short", day: "numeric" })}`
      : ended.length ? `End of life: ${ended.join(", ")}` : states.length ? "Maintained" : "—";
    return [
      g.tags.join(", "),
      [h("code", { class: "pull" }, ref), " ", copyButton(ref, "Copy pull URL")],
      [h("code", { title: g.digest }, g.digest.slice(0, 19) + "…"), " ", copyButton(g.digest, "Copy digest")],
      size,
      when(g.time),
      lifecycle,
    ];
  });
  clear(box, table("Tags by digest", ["Tags", "Pull URL", "Digest", "Compressed size / architectures", "Last changed", "Lifecycle"], rows));
  if (d.nextPageToken) box.append(h("p", { class: "muted" }, "Showing the 100 most recently changed tags."));
}

async function overview(box, repo) {
  const r = await api(`/registry/v2/repos/${repo.uid}/readme`);
  if (!r.content) return clear(box, empty("This image has no readme."));
  clear(box, markdown(r.content));
}

async function history(box, repo) {
  const d = await api("/registry/v2/tags", { query: { "uidp.childrenOf": repo.uid, pageSize: 20, orderBy: "updated_at desc" } });
  const list = d.tags || [];
  if (!list.length) return clear(box, empty("No tags, so no history."));
  const pick = h("select", { id: "hist-tag" }, list.map((t) => h("option", { value: t.uid }, t.name)));
  const out = h("div");
  const load = async () => {
    clear(out, loading());
    try {
      const hist = await api(`/registry/v1/tags/${pick.value}/history`);
      const items = hist.items || [];
      clear(out, items.length ? table("Tag history", ["Changed", "Digest"], items.map((x) => [when(x.updateTimestamp), h("code", {}, x.digest)])) : empty("No history for this tag."));
    } catch (e) {
      clear(out, failure(e));
    }
  };
  pick.addEventListener("change", load);
  clear(box, h("label", { for: "hist-tag" }, "Tag "), pick, out);
  load();
}

async function sbom(box, repo) {
  const digest = await latestDigest(repo);
  if (!digest) return clear(box, empty("No tags, so no SBOM."));
  const s = await api(`/registry/v1/repos/${repo.uid}/digests/${digest}/sbom`);
  const pkgs = ((s.graph && s.graph.nodes) || []).map((n) => n.package).filter(Boolean);
  const filter = h("input", { id: "sbom-q", type: "search", placeholder: "package" });
  const out = h("div");
  const draw = () => {
    const q = filter.value.trim().toLowerCase();
    const rows = pkgs.filter((p) => !q || (p.name || "").toLowerCase().includes(q)).slice(0, 500);
    clear(out, rows.length ? table(`Packages (${pkgs.length})`, ["Name", "Version", "Licence", "purl"], rows.map((p) => [p.name, p.version, p.license || "—", h("code", {}, p.purl || "")])) : empty("No packages in this SBOM."));
  };
  filter.addEventListener("input", draw);
  const raw = h("button", { type: "button" }, "Download raw SBOM");
  raw.addEventListener("click", async () => {
    const r = await api(`/registry/v1/repos/${repo.uid}/digest/${digest}/rawsbom`);
    const blob = new Blob([r.rawSbom || s.rawSbom || ""], { type: "application/json" });
    const a = h("a", { download: `${repo.name}-sbom.json` });
    a.href = URL.createObjectURL(blob);
    a.click();
    URL.revokeObjectURL(a.href);
  });
  clear(box, h("p", {}, "SBOM of ", h("code", {}, digest), " (latest tag). ", raw), h("label", { for: "sbom-q" }, "Filter packages "), filter, out);
  draw();
}

const ORDER = ["CRITICAL", "HIGH", "MEDIUM", "LOW", "NEGLIGIBLE", "UNKNOWN"];

async function vulnerabilities(box, repo) {
  const tag = await latestTag(repo);
  const digest = tag ? tag.digest : "";
  if (!digest) return clear(box, empty("No tags, so no vulnerability report."));
  const trend = h("div", {}, loading());
  const [report] = await Promise.all([api(`/registry/v1/repos/${repo.uid}/digests/${digest}/vulnreport`)]);
  const matches = report.vulnerabilityMatches || [];
  const counts = Object.fromEntries(ORDER.map((s) => [s, 0]));
  for (const m of matches) counts[(m.vulnerability && m.vulnerability.severity) || "UNKNOWN"] = (counts[(m.vulnerability && m.vulnerability.severity) || "UNKNOWN"] || 0) + 1;
  matches.sort((a, b) => ORDER.indexOf(a.vulnerability.severity) - ORDER.indexOf(b.vulnerability.severity));
  clear(
    box,
    h("ul", { class: "severity-counts" }, ORDER.map((s) => h("li", { class: "sev-" + s.toLowerCase() }, `${s.toLowerCase()}: ${counts[s]}`))),
    section("Per day", trend),
    matches.length
      ? table("Vulnerabilities of the latest tag", ["CVE", "Severity", "Package", "Installed", "Fixed in"], matches.map((m) => {
          const id = m.vulnerability.displayId || m.vulnerability.id;
          return [link(url("security", { q: id }), id), m.vulnerability.severity.toLowerCase(), (m.pkg && m.pkg.name) || "", (m.pkg && m.pkg.version) || "", ((m.fix && m.fix.versions) || []).join(", ") || "—"];
        }))
      : empty("No vulnerabilities found in the latest scan (normal for a fresh image)."),
  );
  try {
    const c = await api("/registry/v1/vuln_reports/counts", { query: { repo: repo.name, tag: tag.name } });
    const days = perDay(c.items || []);
    clear(trend, days.length ? chart(days, `Vulnerabilities per day, ${repo.name}:${tag.name}`) : empty("No daily counts yet."));
  } catch (e) {
    clear(trend, failure(e));
  }
}

async function advisories(box, repo) {
  const d = await api("/advisory/v2/documents", { query: { id: repo.name } });
  const docs = d.documents || [];
  const rows = [];
  for (const doc of docs) for (const a of doc.advisories || []) {
    const last = (a.events || []).slice(-1)[0] || {};
    const status = Object.keys(last).find((k) => k !== "timestamp") || "—";
    rows.push([a.id, (a.aliases || []).join(", "), doc.id, status, when(last.timestamp)]);
  }
  clear(box, rows.length ? table("Advisories", ["Advisory", "CVE", "Package", "Status", "Updated"], rows) : empty(`No advisories for ${repo.name}.`));
}

const SHOW = { tags, overview, history, sbom, vulnerabilities, advisories };
let focusTab = "";

export async function render(view, { arg, org }) {
  const repo = await api(`/registry/v2/repos/${arg}`);
  const tab = TABS.some(([k]) => k === params().get("tab")) ? params().get("tab") : "tags";
  const list = h("div", { role: "tablist", "aria-label": "Image" }, TABS.map(([k, label]) => {
    const b = h("button", { type: "button", role: "tab", id: "tab-" + k, "aria-selected": String(k === tab), "aria-controls": "panel", tabindex: k === tab ? "0" : "-1" }, label);
    b.addEventListener("click", () => go(url("images/" + encodeURIComponent(repo.uid), { tab: k })));
    b.addEventListener("keydown", (ev) => {
      const i = TABS.findIndex(([x]) => x === k);
      const next = ev.key === "ArrowRight" ? i + 1 : ev.key === "ArrowLeft" ? i - 1 : null;
      if (next === null) return;
      const target = TABS[(next + TABS.length) % TABS.length][0];
      focusTab = target; // the page is drawn again for the new tab: its button takes the focus there
      go(url("images/" + encodeURIComponent(repo.uid), { tab: target }));
    });
    return b;
  }));
  const panel = h("div", { role: "tabpanel", id: "panel", "aria-labelledby": "tab-" + tab, tabindex: "0" }, loading());
  clear(
    view,
    h("p", {}, link(url("images"), "← Images")),
    h("h1", {}, repo.name),
    repo.description ? h("p", {}, repo.description) : null,
    h("p", { class: "muted" }, "Last changed ", when(repo.updateTime || repo.createTime), " · uid ", h("code", {}, repo.uid), " ", copyButton(repo.uid, "Copy uid")),
    list,
    panel,
  );
  if (focusTab === tab) document.getElementById("tab-" + tab).focus();
  focusTab = "";
  try {
    await SHOW[tab](panel, repo, org);
  } catch (e) {
    clear(panel, failure(e));
  }
}
