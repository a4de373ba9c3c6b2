// Access, the sign-in side: identity providers (create, edit, delete), their external group mappings (create,
// delete) and account associations (create, delete). Each control only for holders of its capabilities (the
// API's own: a mapping or a provider's edit also needs role_bindings.create, as it hands out roles).
import { api, page } from "../api.js";
import { can } from "../app.js";
import { action, clear, empty, form, h, pagedTable } from "../ui.js";

export function drawSso({ g, roleOptions, idpBox, mappingsBox, assocBox }) {
  const roleName = (uid) => (roleOptions.find(([u]) => u === uid) || [uid, uid])[1];
  const below = (path, key, filter) => (token) => page(path, key, { [filter]: g, pageSize: 50, pageToken: token });
  const remove = (cap, path, after) => (can(cap) ? action("Delete", () => api(path, { method: "DELETE" }), after, "danger") : "");

  const idpFields = (p = {}) => [
    ["name", "Name", { required: true, autocomplete: "off", value: p.name }],
    ["description", "Description", { autocomplete: "off", value: p.description }],
    ["issuer", "Issuer URL", { type: "url", required: true, autocomplete: "off", value: p.oidc && p.oidc.issuer }],
    ["clientId", "Client id", { required: true, autocomplete: "off", value: p.oidc && p.oidc.clientId }],
    ["clientSecret", p.uid ? "New client secret (empty: keep)" : "Client secret", { type: "password", autocomplete: "new-password" }],
    ["defaultRole", "Default role", { options: [["", "none"], ...roleOptions], value: p.defaultRole || "" }],
  ];
  // The secret goes to the API only when typed, and is never read back or shown.
  const idpBody = (v) => ({ name: v.name, description: v.description, defaultRole: v.defaultRole || undefined, oidc: { issuer: v.issuer, clientId: v.clientId, clientSecret: v.clientSecret || undefined } });
  const mayHandOut = (cap) => can(cap) && can("role_bindings.create");
  const edit = (p) => {
    if (!mayHandOut("identity_providers.update")) return "";
    const f = form(`Edit identity provider ${p.name}`, idpFields(p), "Save provider", async (v) => {
      const mask = ["name", "description", "default_role", "oidc.issuer", "oidc.client_id", ...(v.clientSecret ? ["oidc.client_secret"] : [])];
      await api(`/iam/v2/identityProviders/${p.uid}`, { method: "PATCH", query: { updateMask: mask.join(",") }, body: idpBody(v) });
      drawIdps();
      drawMappings();
    });
    return h("details", {}, h("summary", {}, "Edit"), f);
  };
  const drawIdps = () => {
    if (!can("identity_providers.list")) return clear(idpBox, empty("You may not see these."));
    const create = mayHandOut("identity_providers.create")
      ? form("Create identity provider", idpFields(), "Create provider", async (v) => {
          await api(`/iam/v2/identityProviders/${g}`, { method: "POST", body: idpBody(v) });
          drawIdps();
          drawMappings();
        })
      : null;
    const row = (p) => [p.name, (p.oidc && p.oidc.issuer) || "—", (p.oidc && p.oidc.clientId) || "—", p.defaultRole ? roleName(p.defaultRole) : "—", edit(p), remove("identity_providers.delete", `/iam/v2/identityProviders/${p.uid}`, () => (drawIdps(), drawMappings()))];
    clear(idpBox, create, pagedTable("Identity providers", ["Name", "Issuer", "Client id", "Default role", "", ""], below("/iam/v2/identityProviders", "identityProviders", "uidp.childrenOf"), row, "No identity providers."));
  };

  // Mappings live under their provider: the organization's descendants.
  const drawMappings = async () => {
    if (!can("identity_providers.list")) return clear(mappingsBox, empty("You may not see these."));
    let create = null;
    if (mayHandOut("identity_providers.create")) {
      const idps = await page("/iam/v2/identityProviders", "identityProviders", { "uidp.childrenOf": g, pageSize: 100 }).catch(() => ({ items: [] }));
      create = idps.items.length
        ? form("Create external group mapping", [["idp", "Identity provider", { options: idps.items.map((p) => [p.uid, p.name]) }], ["group", "External group", { required: true, autocomplete: "off" }], ["role", "Role", { options: roleOptions }], ["scope", "Scope (group uid)", { required: true, autocomplete: "off", value: g }]], "Create mapping", async (v) => {
            await api(`/iam/v2/externalGroupRoleMappings/${v.idp}`, { method: "POST", body: { externalGroupId: v.group, roleUid: v.role, scope: v.scope } });
            drawMappings();
          })
        : empty("Create an identity provider to map its groups.");
    }
    const row = (m) => [m.externalGroupId, roleName(m.roleUid), m.scope, m.identityProviderUid, remove("identity_providers.delete", `/iam/v2/externalGroupRoleMappings/${m.uid}`, drawMappings)];
    clear(mappingsBox, create, pagedTable("External group mappings", ["External group", "Role", "Scope", "Identity provider", ""], below("/iam/v2/externalGroupRoleMappings", "externalGroupRoleMappings", "uidp.descendantsOf"), row, "No external group mappings."));
  };

  // An association's uid is its group's: the organization's own first, then its groups'.
  const associations = async (token) => {
    const p = await below("/iam/v2/accountAssociations", "accountAssociations", "uidp.descendantsOf")(token);
    if (token) return p;
    const own = await page("/iam/v2/accountAssociations", "accountAssociations", { "uidp.ids": g }); // a List: none is no 404
    return { ...p, items: [...own.items, ...p.items], total: p.total === undefined ? undefined : Number(p.total) + own.items.length };
  };
  const clouds = (a) => ["amazon", "google", "azure", "github"].filter((k) => a[k]).join(", ") || "—";
  const drawAssocs = () => {
    if (!can("account_associations.list")) return clear(assocBox, empty("You may not see these."));
    const create = can("account_associations.create")
      ? form("Create account association", [["name", "Name", { required: true, autocomplete: "off" }], ["aws", "AWS account id", { autocomplete: "off", inputmode: "numeric" }], ["project", "Google project id", { autocomplete: "off" }], ["number", "Google project number", { autocomplete: "off" }]], "Create association", async (v) => {
          const body = { name: v.name, amazon: v.aws ? { account: v.aws } : undefined, google: v.project || v.number ? { projectId: v.project, projectNumber: v.number } : undefined };
          await api(`/iam/v2/accountAssociations/${g}`, { method: "POST", body });
          drawAssocs();
        })
      : null;
    const row = (a) => [a.name || a.uid, a.uid === g ? "the organization" : a.uid, clouds(a), remove("account_associations.delete", `/iam/v2/accountAssociations/${a.uid}`, drawAssocs)];
    clear(assocBox, create, pagedTable("Account associations", ["Name", "Group", "Clouds", ""], associations, row, "No account associations."));
  };

  drawIdps();
  drawMappings();
  drawAssocs();
}
