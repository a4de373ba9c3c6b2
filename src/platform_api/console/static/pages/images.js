// Images: the organization's repos (or one group's), searched by name, paged by the API's page tokens; a
// group tree narrows the list.
import { api, page } from "../api.js";
import { can, go, params, url } from "../app.js";
import { pullRef } from "../registry.js";
import { clear, copyButton, empty, failure, form, h, link, pagedTable, section, when } from "../ui.js";

// The pull URL cell: filled once the groups on the repo's registry path are named.
function pull(repo, org) {
  const cell = h("span", {}, "…");
  pullRef(repo, org).then((ref) => clear(cell, ref ? [h("code", { class: "pull" }, ref), " ", copyButton(ref, "Copy")] : "—"));
  return cell;
}

async function tree(org, box, selected) {
  try {
    const d = await api("/iam/v2/groups", { query: { "uidp.childrenOf": org.uid, pageSize: 100 } });
    const groups = d.groups || [];
    const item = (g) => {
      const a = link(url("images", { group: g.uid === org.uid ? "" : g.uid, q: params().get("q") || "" }), g.name || g.uid);
      if (g.uid === selected) a.setAttribute("aria-current", "true");
      const remove = g.uid !== org.uid && can("groups.delete", g.uid) ? h("button", { type: "button", class: "danger copy", "aria-label": `Delete group ${g.name}` }, "Delete") : null;
      if (remove) remove.addEventListener("click", async () => {
        try {
          await api(`/iam/v2/groups/${g.uid}`, { method: "DELETE" });
          tree(org, box, selected);
        } catch (e) {
          remove.replaceWith(failure(e));
        }
      });
      return h("li", {}, a, remove ? [" ", remove] : null);
    };
    const add = can("groups.create") ? form("Create group", [["name", "New group", { required: true, autocomplete: "off" }]], "Create", async (v) => {
      await api(`/iam/v2/groups/${org.uid}`, { method: "POST", body: { name: v.name } });
      tree(org, box, selected);
    }) : null;
    clear(box, h("ul", { class: "tree" }, item(org), h("li", {}, h("ul", {}, groups.map(item)))), add);
    if (d.nextPageToken) box.append(h("p", { class: "muted" }, "More groups exist: use search."));
  } catch (e) {
    clear(box, failure(e));
  }
}

export async function render(view, { org }) {
  if (!org) return clear(view, h("h1", {}, "Images"), empty("No organization to show."));
  const q = params().get("q") || "";
  const group = params().get("group") || org.uid;
  const search = h("input", { id: "q", name: "q", type: "search", value: q, placeholder: "name" });
  const f = h("form", { role: "search", class: "inline" }, h("label", { for: "q" }, "Search images"), search, h("button", { type: "submit" }, "Search"));
  f.addEventListener("submit", (ev) => {
    ev.preventDefault();
    go(url("images", { q: search.value.trim(), group: group === org.uid ? "" : group }));
  });
  const groups = h("nav", { "aria-label": "Groups", class: "groups" });
  const query = { "uidp.descendantsOf": group, pageSize: 50, orderBy: "name" };
  if (q) query.name = q;
  const list = pagedTable(
    "Images",
    ["Name", "Latest tag", "Pull URL", "Last change"],
    (token) => page("/registry/v2/repos", "repos", { ...query, pageToken: token }),
    (r) => {
      const tags = r.activeTags || [];
      return [
        link(url("images/" + encodeURIComponent(r.uid)), r.name),
        tags.length ? [h("code", {}, tags[0]), tags.length > 1 ? ` + ${tags.length - 1} more tags` : ""] : "—",
        pull(r, org),
        when(r.updateTime || r.createTime),
      ];
    },
    q ? `No image matches “${q}”.` : "No images here yet: push one or import one with `platform-api import oci`.",
  );
  clear(view, h("h1", {}, "Images"), f, h("div", { class: "split" }, section("Groups", groups), h("div", {}, list)));
  tree(org, groups, group);
}
