// One image: tabs Tags (grouped by digest), Overview (the readme), History, SBOM, Vulnerabilities (with the
// per-day chart) and Advisories. The tab, and the tag and architecture SBOM and vulnerabilities show, are part of
// the URL (?tab=, ?tag=, ?arch=), so each is a deep link.
import { api } from "../api.js";
import { go, params, url } from "../app.js";
import { chart, perDay } from "../chart.js";
import { markdown } from "../markdown.js";
import { pullRef } from "../registry.js";
import { bytes, clear, copyButton, empty, failure, h, link, loading, pagedTable, section, table, when } from "../ui.js";

const TABS = [
  ["tags", "Tags"],
  ["overview", "Overview"],
  ["history", "History"],
  ["sbom", "SBOM"],
  ["vulnerabilities", "Vulnerabilities"],
  ["advisories", "Advisories"],
];

const PAGE = 50;

// The image the SBOM and vulnerability tabs show: ?tag= (default: the most recently changed tag) and, for a
// multi-architecture index, ?arch= (default amd64, else its first). The tag list is the API's first page, then
// "More tags" for each next one; a tag the URL names that is not on it is asked for by name. The choice is
// drawn into `box` (a change is a new URL, so a deep link) and into the page's heading.
async function chosen(box, repo, tab, withArch) {
  const tagged = { "uidp.childrenOf": repo.uid, pageSize: PAGE, orderBy: "updated_at desc" };
  const first = await api("/registry/v2/tags", { query: tagged });
  const list = first.tags || [];
  if (!list.length) return null;
  const wanted = params().get("tag") || "";
  let tag = wanted ? list.find((t) => t.name === wanted) : list[0];
  if (!tag) {
    const d = await api("/registry/v2/tags", { query: { "uidp.childrenOf": repo.uid, name: wanted, pageSize: 1 } });
    tag = (d.tags || [])[0];
    if (!tag) throw new Error(`This image has no tag “${wanted}”.`);
    list.unshift(tag);
  }
  const a = await api(`/registry/v2/repos/${repo.uid}/digests/${tag.digest}/architectures`).catch(() => ({}));
  const archs = a.architectures || [];
  const asked = params().get("arch") || "";
  const arch = archs.includes(asked) ? asked : archs.includes("amd64") ? "amd64" : archs[0] || "";
  const here = "images/" + encodeURIComponent(repo.uid);
  const tagSel = h("select", { id: "pick-tag" }, list.map((t) => h("option", { value: t.name }, t.name)));
  tagSel.value = tag.name;
  tagSel.addEventListener("change", () => go(url(here, { tab, tag: tagSel.value })));
  const controls = h("div", { class: "picker" }, h("label", { for: "pick-tag" }, "Tag "), tagSel);
  let next = first.nextPageToken || "";
  if (next) {
    const more = h("button", { type: "button" }, "More tags");
    more.addEventListener("click", async () => {
      more.disabled = true;
      try {
        const d = await api("/registry/v2/tags", { query: { ...tagged, pageToken: next } });
        const known = new Set([...tagSel.options].map((o) => o.value));
        for (const t of d.tags || []) if (!known.has(t.name)) tagSel.append(h("option", { value: t.name }, t.name));
        next = d.nextPageToken || "";
        if (next) more.disabled = false;
        else more.remove();
      } catch (e) {
        more.replaceWith(failure(e));
      }
    });
    controls.append(" ", more);
  }
  const multi = archs.length > 1;
  if (withArch && multi) {
    const archSel = h("select", { id: "pick-arch" }, archs.map((x) => h("option", { value: x }, x)));
    archSel.value = arch;
    archSel.addEventListener("change", () => go(url(here, { tab, tag: tag.name, arch: archSel.value })));
    controls.append(" ", h("label", { for: "pick-arch" }, "Architecture "), archSel);
  }
  box.append(controls);
  const shown = withArch && multi ? `${repo.name}:${tag.name} (${arch})` : `${repo.name}:${tag.name}`;
  const heading = document.querySelector("main h1");
  if (heading) heading.textContent = shown;
  return { tag, arch, multi, shown };
}

// A view under the picker: the picker stays, the rest is replaced.
function below(box, ...children) {
  const picker = box.querySelector(".picker");
  clear(box, picker, ...children);
}

// A 404 of a per-image read: nothing imported for this image (an empty state, not an error).
function missing(e, text) {
  if (e && e.status === 404) return empty(text);
  throw e;
}

async function tags(box, repo, org) {
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
    const ref = h("span", {}, "…");
    pullRef(repo, org, g.tags[0]).then((r) => clear(ref, r ? [h("code", { class: "pull" }, r), " ", copyButton(r, "Copy pull URL")] : "—"));
    const states = g.tags.map((t) => life.get(t)).filter(Boolean);
    const grace = states.find((e) => e.tagStatus === "TAG_IN_GRACE");
    const ended = states.filter((e) => e.tagStatus === "TAG_INACTIVE").map((e) => e.name);
    const lifecycle = grace
      ? `Grace period ends ${new Date(grace.gracePeriodExpiryDate).toLocaleDateString("en", { year: "numeric", month: "short", day: "numeric" })}`
      : ended.length ? `End of life: ${ended.join(", ")}` : states.length ? "Maintained" : "—";
    return [
      g.tags.join(", "),
      ref,
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
  clear(box);
  const pick = await chosen(box, repo, "sbom", true);
  if (!pick) return clear(box, empty("No tags, so no SBOM."));
  const { digest } = pick.tag;
  const query = pick.arch ? { arch: pick.arch } : {};
  let s;
  try {
    s = await api(`/registry/v1/repos/${repo.uid}/digests/${digest}/sbom`, { query });
  } catch (e) {
    return below(box, missing(e, `No SBOM imported for ${pick.shown}.`));
  }
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
    const r = await api(`/registry/v1/repos/${repo.uid}/digest/${digest}/rawsbom`, { query });
    const blob = new Blob([r.rawSbom || s.rawSbom || ""], { type: "application/json" });
    const a = h("a", { download: `${repo.name}-${pick.tag.name}${pick.arch ? "-" + pick.arch : ""}-sbom.json` });
    a.href = URL.createObjectURL(blob);
    a.click();
    URL.revokeObjectURL(a.href);
  });
  below(box, h("p", {}, `SBOM of ${pick.shown}, `, h("code", {}, digest), ". ", raw), h("label", { for: "sbom-q" }, "Filter packages "), filter, out);
  draw();
}

const ORDER = ["CRITICAL", "HIGH", "MEDIUM", "LOW", "NEGLIGIBLE", "UNKNOWN"];

async function vulnerabilities(box, repo) {
  clear(box);
  const pick = await chosen(box, repo, "vulnerabilities", false);
  if (!pick) return clear(box, empty("No tags, so no vulnerability report."));
  const { tag } = pick;
  const trend = h("div", {}, loading());
  let report;
  try {
    report = await api(`/registry/v1/repos/${repo.uid}/digests/${tag.digest}/vulnreport`);
  } catch (e) {
    return below(box, missing(e, `No vulnerability report imported for ${pick.shown}.`));
  }
  const matches = report.vulnerabilityMatches || [];
  const counts = Object.fromEntries(ORDER.map((s) => [s, 0]));
  for (const m of matches) counts[(m.vulnerability && m.vulnerability.severity) || "UNKNOWN"] = (counts[(m.vulnerability && m.vulnerability.severity) || "UNKNOWN"] || 0) + 1;
  matches.sort((a, b) => ORDER.indexOf(a.vulnerability.severity) - ORDER.indexOf(b.vulnerability.severity));
  below(
    box,
    // Reports are kept per digest and the report call takes no architecture: an index's report is the index's.
    pick.multi ? h("p", { class: "muted" }, "The report of the index ", h("code", {}, tag.digest), ", as imported for it (reports are per digest).") : null,
    h("ul", { class: "severity-counts" }, ORDER.map((s) => h("li", { class: "sev-" + s.toLowerCase() }, `${s.toLowerCase()}: ${counts[s]}`))),
    section("Per day", trend),
    matches.length
      ? table(`Vulnerabilities of ${pick.shown}`, ["CVE", "Severity", "Package", "Installed", "Fixed in"], matches.map((m) => {
          const id = m.vulnerability.displayId || m.vulnerability.id;
          return [link(url("security", { q: id }), id), m.vulnerability.severity.toLowerCase(), (m.pkg && m.pkg.name) || "", (m.pkg && m.pkg.version) || "", ((m.fix && m.fix.versions) || []).join(", ") || "—"];
        }))
      : empty(`No vulnerabilities found in the latest scan of ${pick.shown} (normal for a fresh image).`),
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
// The tag and architecture chosen stay when the tab changes.
const kept = () => ({ tag: params().get("tag") || "", arch: params().get("arch") || "" });
let focusTab = "";

export async function render(view, { arg, org }) {
  const repo = await api(`/registry/v2/repos/${arg}`);
  const tab = TABS.some(([k]) => k === params().get("tab")) ? params().get("tab") : "tags";
  const list = h("div", { role: "tablist", "aria-label": "Image" }, TABS.map(([k, label]) => {
    const b = h("button", { type: "button", role: "tab", id: "tab-" + k, "aria-selected": String(k === tab), "aria-controls": "panel", tabindex: k === tab ? "0" : "-1" }, label);
    b.addEventListener("click", () => go(url("images/" + encodeURIComponent(repo.uid), { tab: k, ...kept() })));
    b.addEventListener("keydown", (ev) => {
      const i = TABS.findIndex(([x]) => x === k);
      const next = ev.key === "ArrowRight" ? i + 1 : ev.key === "ArrowLeft" ? i - 1 : null;
      if (next === null) return;
      const target = TABS[(next + TABS.length) % TABS.length][0];
      focusTab = target; // the page is drawn again for the new tab: its button takes the focus there
      go(url("images/" + encodeURIComponent(repo.uid), { tab: target, ...kept() }));
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
