// Pull references as the registry data plane names images: `<host>/<organization>/<group>/…/<repo>[:tag]`
// (registry/dataplane/tokens.py), the host being the data plane's address the server put in the page
// (`--registry-url`, else the server's own). The groups between the organization and the repo are named by
// one read each, once per page load.
import { api } from "./api.js";

const names = new Map();

function groupName(uid) {
  if (!names.has(uid)) names.set(uid, api(`/iam/v2/groups/${uid}`).then((g) => g.name || null, () => null));
  return names.get(uid);
}

// The reference of `repo` (a repo record) in the organization `org`, or "" when a group on its way cannot be
// read (the person sees the repo but not that group's name).
export async function pullRef(repo, org, tag = "") {
  const parts = repo.uid.split("/");
  if (org) names.set(org.uid, Promise.resolve(org.name));
  const path = await Promise.all(parts.slice(0, -1).map((_, i) => groupName(parts.slice(0, i + 1).join("/"))));
  if (path.some((n) => !n)) return "";
  return `${document.body.dataset.registry}/${[...path, repo.name].join("/")}${tag ? ":" + tag : ""}`;
}
