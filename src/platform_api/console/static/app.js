// The console's shell: the session, the organization switcher, and the page router. Each page is its own
// module (pages/<name>.js), loaded when first shown; links inside the console change the page without a reload.
import { api, SignedOut } from "./api.js";
import { forget, home, signIn, signOut, signedIn, takeLogin } from "./session.js";
import { clear, failure, h, loading } from "./ui.js";

const main = document.getElementById("main");
const PAGES = { "": "overview", images: "images", image: "image", security: "security", access: "access", events: "events" };
let who = null;
let orgs = [];

function route() {
  const rest = location.pathname.replace(/^\/console\/?/, "");
  const [first, ...more] = rest.split("/");
  if (first === "images" && more.length) return { page: "image", arg: decodeURIComponent(more.join("/")) };
  return { page: PAGES[first] || "", arg: "" };
}

export function params() {
  return new URLSearchParams(location.search);
}

// The organization shown: ?org=<uid>, else the first the person can see.
export function currentOrg() {
  const wanted = params().get("org");
  return orgs.find((o) => o.uid === wanted) || orgs[0] || null;
}

export function url(path, extra = {}) {
  const q = new URLSearchParams();
  const org = currentOrg();
  if (org) q.set("org", org.uid);
  for (const [k, v] of Object.entries(extra)) if (v) q.set(k, v);
  const s = q.toString();
  return `/console/${path}${s ? "?" + s : ""}`;
}

// Whether the person may do `cap` (WhoAmI's friendly name, `role_bindings.create`) in `group`: a capability
// of one of their bindings on it or on an ancestor.
export function can(cap, group = currentOrg() && currentOrg().uid) {
  if (!who || !group) return false;
  return (who.capabilities || []).some((c) => {
    const g = (c.group && c.group.id) || "";
    const applies = g === group || group.startsWith(g + "/");
    return applies && (c.capabilities || []).includes(cap);
  });
}

export function go(path) {
  history.pushState(null, "", path);
  show();
}

function signInPage(message) {
  const idp = h("input", { id: "idp", name: "idp", autocomplete: "off", placeholder: "optional" });
  const f = h(
    "form",
    { class: "signin", "aria-labelledby": "signin-title" },
    h("h1", { id: "signin-title" }, "Sign in"),
    message ? h("p", { class: "state error", role: "alert" }, message) : null,
    h("p", {}, "Sign in with this server's login provider, or name your organization's identity provider."),
    h("label", { for: "idp" }, "Identity provider (uid)"),
    idp,
    h("button", { type: "submit" }, "Sign in"),
  );
  f.addEventListener("submit", (ev) => {
    ev.preventDefault();
    signIn(idp.value.trim());
  });
  clear(document.getElementById("who"));
  clear(document.getElementById("org"));
  clear(main, f);
}

function header() {
  const whoBox = document.getElementById("who");
  const name = (who.profile && who.profile.name) || who.email || who.subject;
  const out = h("button", { type: "button", class: "link" }, "Sign out");
  out.addEventListener("click", async () => {
    out.disabled = true;
    who = null;
    const ended = await signOut();
    history.pushState(null, "", "/console/");
    signInPage(ended ? "You are signed out." : "You are signed out in this tab; the server could not be told, so the login ends when its refresh token expires.");
  });
  clear(whoBox, h("span", { class: "me", title: who.subject }, name), out);
  const orgBox = document.getElementById("org");
  if (!orgs.length) {
    clear(orgBox);
    return;
  }
  const sel = h(
    "select",
    { id: "org-switch", "aria-label": "Organization" },
    orgs.map((o) => h("option", { value: o.uid }, o.name || o.uid)),
  );
  sel.value = currentOrg().uid;
  sel.addEventListener("change", () => {
    const q = params();
    q.set("org", sel.value);
    go(`/console/${route().page === "image" ? "images" : location.pathname.split("/")[2] || ""}?${q}`);
  });
  clear(orgBox, h("label", { for: "org-switch", class: "sr-only" }, "Organization"), sel);
}

function markNav(page) {
  for (const a of document.querySelectorAll("nav a[data-nav]")) {
    const mine = a.dataset.nav === (page === "image" ? "images" : page === "overview" ? "" : page);
    if (mine) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
    const org = currentOrg();
    a.setAttribute("href", `/console/${a.dataset.nav}${org ? "?org=" + encodeURIComponent(org.uid) : ""}`);
  }
}

async function start() {
  clear(main, loading());
  [who, orgs] = await Promise.all([
    api("/auth/v1/ok"),
    api("/iam/v2/groups", { query: { "uidp.inRoot": "true", pageSize: 100 } }).then((d) => d.groups || []),
  ]);
}

let shown = 0;
async function show() {
  const mine = ++shown;
  if (!signedIn()) return signInPage("");
  try {
    if (!who) await start();
    header();
    const { page, arg } = route();
    const name = page || "overview";
    markNav(name);
    clear(main, loading());
    const module = await import(`./pages/${name}.js`);
    if (mine !== shown) return;
    const view = h("div", { class: "page" });
    clear(main, view);
    await module.render(view, { arg, org: currentOrg(), who, orgs });
    document.title = `${(main.querySelector("h1") || {}).textContent || "Console"} · Console`;
  } catch (e) {
    if (e instanceof SignedOut) {
      forget();
      who = null;
      return signInPage("Your session ended: sign in again.");
    }
    clear(main, failure(e));
  }
}

document.addEventListener("click", (ev) => {
  const a = ev.target.closest && ev.target.closest("a[href^='/console/']");
  if (!a || ev.defaultPrevented || ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey || a.target) return;
  ev.preventDefault();
  go(a.getAttribute("href"));
  main.focus();
});
window.addEventListener("popstate", show);

const there = new URL(home());
if (location.origin !== there.origin) {
  // A login returns to our public address: the session must live there.
  location.replace(there.origin + location.pathname + location.search);
} else {
  const problem = takeLogin();
  if (problem) signInPage(problem);
  else show();
}
