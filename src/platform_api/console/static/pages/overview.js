// Overview: the organization, its counts, and what changed lately (repos created or updated, tags moved).
import { api } from "../api.js";
import { url } from "../app.js";
import { clear, empty, failure, h, link, loading, section, when } from "../ui.js";

async function count(path, query) {
  const d = await api(path, { query: { ...query, pageSize: 1 } });
  return d.totalCount !== undefined ? d.totalCount : "—";
}

export async function render(view, { org, orgs }) {
  if (!org) {
    clear(view, h("h1", {}, "Overview"), empty("You can see no organization yet. Ask an owner for an invite."));
    return;
  }
  const counts = h("dl", { class: "counts" }, loading());
  const recent = h("div", {}, loading());
  clear(
    view,
    h("h1", {}, org.name || org.uid),
    org.description ? h("p", {}, org.description) : null,
    h("p", { class: "muted" }, `${orgs.length} organization${orgs.length === 1 ? "" : "s"} visible to you · uid `, h("code", {}, org.uid)),
    section("In numbers", counts),
    section("Recent changes", recent),
  );
  const under = { "uidp.descendantsOf": org.uid };
  Promise.all([
    count("/registry/v2/repos", under),
    count("/iam/v2/groups", under),
    // The daily count reports of the last two days; the v1 call has no organization filter, so these are the
    // latest tags of every image the person may see.
    api("/registry/v1/vuln_reports/counts", { query: { tag: "latest", from: new Date(Date.now() - 2 * 86400e3).toISOString() } }).catch(() => null),
  ])
    .then(([repos, groups, vulns]) => {
      const newest = new Map();
      for (const r of (vulns && vulns.items) || []) if (!newest.has(r.repo) || newest.get(r.repo).date < r.date) newest.set(r.repo, r);
      const sev = (name) => (vulns ? [...newest.values()].reduce((n, r) => n + ((r.vulnCounts || []).find((c) => c.severity === name) || { count: 0 }).count, 0) : "—");
      clear(
        counts,
        h("div", {}, h("dt", {}, "Images"), h("dd", {}, repos)),
        h("div", {}, h("dt", {}, "Groups"), h("dd", {}, groups)),
        h("div", {}, h("dt", {}, "Critical vulnerabilities (latest tags)"), h("dd", {}, String(sev("CRITICAL")))),
        h("div", {}, h("dt", {}, "High vulnerabilities (latest tags)"), h("dd", {}, String(sev("HIGH")))),
      );
    })
    .catch((e) => clear(counts, failure(e)));
  try {
    const [repos, tags] = await Promise.all([
      api("/registry/v2/repos", { query: { ...under, orderBy: "updated_at desc", pageSize: 8 } }),
      api("/registry/v2/tags", { query: { ...under, orderBy: "updated_at desc", pageSize: 8 } }),
    ]);
    const items = [
      ...(repos.repos || []).map((r) => ({ t: r.updateTime || r.createTime, what: "Image", name: r.name, uid: r.uid })),
      ...(tags.tags || []).map((t) => ({ t: t.updateTime || t.createTime, what: "Tag", name: `${t.name} → ${(t.digest || "").slice(0, 19)}`, uid: t.uid.split("/").slice(0, -1).join("/") })),
    ].sort((a, b) => (b.t || "").localeCompare(a.t || ""));
    if (!items.length) clear(recent, empty("Nothing has changed yet: no images in this organization."));
    else clear(recent, h("ul", { class: "recent" }, items.slice(0, 10).map((x) => h("li", {}, h("span", { class: "badge" }, x.what), " ", link(url("images/" + encodeURIComponent(x.uid)), x.name), " ", when(x.t)))));
  } catch (e) {
    clear(recent, failure(e));
  }
}
