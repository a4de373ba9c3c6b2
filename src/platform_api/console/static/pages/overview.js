// Overview: the organization, its counts, and what changed lately (repos created or updated, tags moved).
import { api } from "../api.js";
import { url } from "../app.js";
import { clear, empty, failure, h, link, loading, section, when } from "../ui.js";

async function count(path, query) {
  const d = await api(path, { query: { ...query, pageSize: 1 } });
  return d.totalCount !== undefined ? d.totalCount : "—";
}

const IMAGES = 100;

function tally(out, list) {
  for (const c of list || []) if (c.severity in out) out[c.severity] += c.count || 0;
}

// Critical and high vulnerabilities of tag `latest` of the organization's images (the first IMAGES by name),
// from the daily count reports of the last two days. The counts call has no organization filter and its items
// name a repo by its name only, not its uid: an item counts when an image of that name is in the organization.
// A name that an image outside it shares (another organization the person sees) cannot be told apart there,
// so those images are counted from their own latest report instead.
async function severities(org, orgCount) {
  const out = { CRITICAL: 0, HIGH: 0, images: 0, more: false };
  const since = new Date(Date.now() - 2 * 86400e3).toISOString();
  const [mine, reports] = await Promise.all([
    api("/registry/v2/repos", { query: { "uidp.descendantsOf": org.uid, pageSize: IMAGES, orderBy: "name" } }),
    api("/registry/v1/vuln_reports/counts", { query: { tag: "latest", from: since } }),
  ]);
  const repos = mine.repos || [];
  out.images = repos.length;
  out.more = Boolean(mine.nextPageToken);
  const here = new Map();
  for (const r of repos) here.set(r.name, [...(here.get(r.name) || []), r]);
  // The newest day's items of each name (one item per image of that name reported that day).
  const newest = new Map();
  for (const r of reports.items || []) {
    if (!here.has(r.repo)) continue;
    const [day, items] = newest.get(r.repo) || ["", []];
    if (r.date > day) newest.set(r.repo, [r.date, [r]]);
    else if (r.date === day) items.push(r);
  }
  await Promise.all([...newest].map(async ([name, [, items]]) => {
    const shared = orgCount > 1 && (await api("/registry/v2/repos", { query: { name, pageSize: 1 } })).totalCount > here.get(name).length;
    if (!shared) return items.forEach((r) => tally(out, r.vulnCounts));
    for (const repo of here.get(name)) {
      const t = await api("/registry/v2/tags", { query: { "uidp.childrenOf": repo.uid, name: "latest", pageSize: 1 } });
      const tag = (t.tags || [])[0];
      if (!tag) continue;
      const report = await api(`/registry/v1/repos/${repo.uid}/digests/${tag.digest}/vulnreport`).catch(() => null);
      // Distinct vulnerabilities, as the count reports count them (a CVE in two packages is one).
      const found = { CRITICAL: new Set(), HIGH: new Set() };
      for (const m of (report && report.vulnerabilityMatches) || []) {
        const v = m.vulnerability || {};
        if (v.severity in found) found[v.severity].add(v.id);
      }
      tally(out, Object.entries(found).map(([severity, ids]) => ({ severity, count: ids.size })));
    }
  }));
  return out;
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
  Promise.all([count("/registry/v2/repos", under), count("/iam/v2/groups", under), severities(org, orgs.length)])
    .then(([repos, groups, sev]) => {
      const scope = sev.more ? `tag latest of the first ${sev.images} images by name` : "tag latest of each image";
      clear(
        counts,
        h("div", {}, h("dt", {}, "Images"), h("dd", {}, repos)),
        h("div", {}, h("dt", {}, "Groups"), h("dd", {}, groups)),
        h("div", {}, h("dt", {}, `Critical vulnerabilities (${scope})`), h("dd", {}, String(sev.CRITICAL))),
        h("div", {}, h("dt", {}, `High vulnerabilities (${scope})`), h("dd", {}, String(sev.HIGH))),
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
