// Access: identities with their role bindings, roles, invites, verified e-mail domains and access requests;
// identity providers, external group mappings and account associations (access_sso.js). Each control shows
// only when WhoAmI says the person holds its capability; the API checks again anyway.
import { api, page } from "../api.js";
import { can } from "../app.js";
import { action, clear, copyButton, empty, failure, form, h, loading, pagedTable, section, table, when } from "../ui.js";
import { drawSso } from "./access_sso.js";

// The built-in roles (at the root) and the organization's own.
async function roles(org) {
  const [builtin, own] = await Promise.all([
    api("/iam/v2/roles", { query: { "uidp.inRoot": "true", pageSize: 100 } }),
    api("/iam/v2/roles", { query: { "uidp.childrenOf": org.uid, pageSize: 100 } }),
  ]);
  return [...(builtin.roles || []), ...(own.roles || [])];
}

export async function render(view, { org }) {
  if (!org) return clear(view, h("h1", {}, "Access"), empty("No organization to show."));
  const g = org.uid;
  const bindingsBox = h("div");
  const rolesBox = h("div", {}, loading());
  const invitesBox = h("div");
  const idpBox = h("div");
  const mappingsBox = h("div");
  const assocBox = h("div");
  const domainsBox = h("div");
  const requestsBox = h("div");
  clear(
    view,
    h("h1", {}, "Access"),
    section("People and their roles", bindingsBox),
    section("Roles", rolesBox),
    section("Invites", invitesBox),
    section("Verified e-mail domains", domainsBox),
    section("Access requests", requestsBox),
    section("Identity providers", idpBox),
    section("External group mappings", mappingsBox),
    section("Account associations", assocBox),
  );
  if (!can("role_bindings.list")) {
    clear(view, h("h1", {}, "Access"), empty("You may not see who has access to this organization."));
    return;
  }
  let roleList = [];
  const drawRoles = async () => {
    try {
      roleList = await roles(org);
    } catch (e) {
      clear(rolesBox, failure(e));
      return;
    }
    // Every capability there is: the owner role holds them all.
    const all = [...new Set(roleList.flatMap((r) => r.capabilities || []))].sort();
    const picker = (id, chosen = []) => h("select", { id, name: "capabilities", multiple: true, size: 8 }, all.map((c) => h("option", { value: c, selected: chosen.includes(c) }, c)));
    const edit = (r) => {
      if (!r.uid.includes("/") || !can("roles.update")) return "";
      const f = h("form", { class: "inline", "aria-label": `Edit role ${r.name}` }, h("label", { for: "edit-" + r.name }, "Capabilities"), picker("edit-" + r.name, r.capabilities || []), h("button", { type: "submit" }, "Save changes"));
      f.addEventListener("submit", async (ev) => {
        ev.preventDefault();
        const caps = [...f.querySelector("select").selectedOptions].map((o) => o.value);
        try {
          await api(`/iam/v2/roles/${r.uid}`, { method: "PATCH", body: { capabilities: caps }, query: { updateMask: "capabilities" } });
          drawRoles();
        } catch (e) {
          f.append(failure(e));
        }
      });
      return h("details", {}, h("summary", {}, "Edit"), f);
    };
    const create = can("roles.create") ? h("form", { class: "inline", "aria-label": "Create role" }, h("label", { for: "role-name" }, "Role name"), h("input", { id: "role-name", name: "name", required: true, autocomplete: "off" }), h("label", { for: "role-desc" }, "Description"), h("input", { id: "role-desc", name: "description", autocomplete: "off" }), h("label", { for: "role-caps" }, "Capabilities"), picker("role-caps"), h("button", { type: "submit" }, "Create role")) : null;
    if (create) create.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const caps = [...create.querySelector("select").selectedOptions].map((o) => o.value);
      try {
        await api(`/iam/v2/roles/${g}`, { method: "POST", body: { name: create.elements.name.value, description: create.elements.description.value, capabilities: caps } });
        drawRoles();
      } catch (e) {
        create.append(failure(e));
      }
    });
    clear(rolesBox, table("Roles", ["Name", "Description", "Capabilities", "Kind", ""], roleList.map((r) => [r.name, r.description || "—", h("details", {}, h("summary", {}, `${(r.capabilities || []).length} capabilities`), (r.capabilities || []).join(", ")), r.uid.includes("/") ? "custom" : "built-in (read-only)", edit(r)])), create);
  };
  await drawRoles();
  const roleOptions = roleList.map((r) => [r.uid, r.name]);

  // A List answers the identity and role as objects; a Create or an Update their uids.
  const whoUid = (b) => (b.identity && b.identity.uid) || b.identityUid || "";
  const who = (b) => (b.identity && (b.identity.name || b.identity.subject)) || whoUid(b);
  const roleOf = (b) => (b.role && b.role.uid) || b.roleUid;
  // UpdateRoleBinding: the binding keeps its uid, only its role changes.
  const changeRole = (b) =>
    form(`Role of ${who(b)}`, [["role", "Role", { options: roleOptions, value: roleOf(b) }]], "Change role", async (v) => {
      await api(`/iam/v2/roleBindings/${b.uid}`, { method: "PATCH", query: { updateMask: "role_uid" }, body: { roleUid: v.role } });
      drawBindings();
    });
  const drawBindings = () => {
    const list = pagedTable(
      "Role bindings",
      ["Identity", "Role", "Since", ""],
      (token) => page("/iam/v2/roleBindings", "roleBindings", { "uidp.childrenOf": g, pageSize: 50, pageToken: token }),
      (b) => [
        h("span", { title: whoUid(b) }, who(b)),
        can("role_bindings.update") ? changeRole(b) : (b.role && b.role.name) || b.roleUid,
        when(b.createTime),
        can("role_bindings.delete") ? action("Remove", () => api(`/iam/v2/roleBindings/${b.uid}`, { method: "DELETE" }), drawBindings, "danger") : "",
      ],
      "No role bindings here.",
    );
    const add = can("role_bindings.create")
      ? form("Add role binding", [["identity", "Identity uid", { required: true, autocomplete: "off" }], ["role", "Role", { options: roleOptions }]], "Add binding", async (v) => {
          await api(`/iam/v2/roleBindings/${g}`, { method: "POST", body: { identityUid: v.identity, roleUid: v.role } });
          drawBindings();
        })
      : null;
    clear(bindingsBox, add, list);
  };
  drawBindings();

  const drawInvites = () => {
    if (!can("group_invites.list")) return clear(invitesBox, empty("You may not see invites."));
    const list = pagedTable(
      "Invites",
      ["Email", "Role", "Expires", "Single use", ""],
      (token) => page("/iam/v2/groupInvites", "groupInvites", { "uidp.childrenOf": g, pageSize: 50, pageToken: token }),
      (i) => [i.email || "anyone", (i.role && i.role.name) || i.roleUid, when(i.expirationTime), i.singleUse ? "yes" : "no", can("group_invites.delete") ? action("Revoke", () => api(`/iam/v2/groupInvites/${i.uid}`, { method: "DELETE" }), drawInvites, "danger") : ""],
      "No open invites.",
    );
    const shown = h("div", { class: "secret", "aria-live": "polite" });
    const add = can("group_invites.create")
      ? form("Create invite", [["email", "Email (optional)", { type: "email", autocomplete: "off" }], ["role", "Role", { options: roleOptions }], ["ttl", "Valid for (hours)", { type: "number", min: 1, value: 72 }]], "Create invite", async (v) => {
          const inv = await api(`/iam/v2/groupInvites/${g}`, { method: "POST", body: { email: v.email || undefined, roleUid: v.role, ttl: `${Number(v.ttl || 72) * 3600}s`, singleUse: true } });
          clear(shown, h("p", {}, "Invite code (shown once): "), h("code", { class: "code" }, inv.code), " ", copyButton(inv.code, "Copy code"));
          drawInvites();
          invitesBox.prepend(shown);
        })
      : null;
    clear(invitesBox, add, list);
  };
  drawInvites();

  // Joining by e-mail domain: the domains (the TXT record only to those who may publish it), and the requests
  // (only to those who may grant a role: the e-mail is personal data) with a Grant that adds a binding.
  const drawJoining = () => {
    if (!can("groups.list")) clear(domainsBox, empty("You may not see these."));
    else {
      const row = (d) => [d.domain, d.state === "STATE_VERIFIED" ? "verified" : "pending", d.txt ? h("code", { class: "code" }, d.txt) : "—", when(d.verifyTime || d.createTime)];
      clear(domainsBox, loading());
      api(`/iam/v2/groups/${g}/domains`)
        .then((r) => clear(domainsBox, (r.domains || []).length ? table("Verified e-mail domains", ["Domain", "State", "TXT record to publish", "Since"], r.domains.map(row)) : empty("No e-mail domains (the operator verifies them: platform-api domains).")))
        .catch((e) => clear(domainsBox, failure(e)));
    }
    if (!can("role_bindings.create")) return clear(requestsBox, empty("You may not see access requests."));
    const grant = (r) =>
      form(`Grant access to ${r.email || r.identityUid}`, [["role", "Role", { options: roleOptions }]], "Grant", async (v) => {
        await api(`/iam/v2/roleBindings/${g}`, { method: "POST", body: { identityUid: r.identityUid, roleUid: v.role } });
        drawBindings();
        return "Granted.";
      });
    const load = (token) => page(`/iam/v2/groups/${g}/accessRequests`, "accessRequests", { pageSize: 50, pageToken: token });
    clear(requestsBox, pagedTable("Access requests", ["Name", "Email", "Asked", ""], load, (r) => [r.name || r.identityUid, r.email || "—", when(r.requestTime), grant(r)], "No access requests."));
  };
  drawSso({ g, roleOptions, idpBox, mappingsBox, assocBox });
  drawJoining();
}
