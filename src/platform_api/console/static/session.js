// The signed-in person's session: the login's token and refresh token, held in this tab's sessionStorage and
// in memory, never in a URL and never in a cookie. The login hands them over by posting a form to
// /console/callback, whose answer carries them in an inert <template id="login-result"> that is read and removed
// at once (and accepted only with the state this tab sent). Renewed through the refresh token before the token
// expires; sign-out forgets both and has the server revoke the refresh token.
const KEY = "console.session";
const STATE = "console.login-state";
const EARLY_MS = 60_000; // renew this long before expiry

let current = read();
let renewing = null;

function read() {
  try {
    const s = JSON.parse(sessionStorage.getItem(KEY) || "null");
    return s && typeof s.token === "string" ? s : null;
  } catch {
    return null;
  }
}

function keep(s) {
  current = s;
  if (s) sessionStorage.setItem(KEY, JSON.stringify(s));
  else sessionStorage.removeItem(KEY);
}

export function home() {
  return document.body.dataset.home;
}

export function signedIn() {
  return current !== null;
}

// The login's result (`data-token`, `data-refresh-token`, `data-expiry`, `data-state`, or `data-error`, and
// `data-page`, the page it returns to) in the answer to the login's POST: taken out of the page, the address
// set to the page asked for (a reload is a plain GET with no result), and checked against the state this tab
// sent: another site's forged POST signs nobody in. Returns an error message, "" when signed in by it, or null
// when the page carried no login.
export function takeLogin() {
  const el = document.getElementById("login-result");
  if (!el) return null;
  const p = { ...el.dataset };
  el.remove();
  history.replaceState(null, "", consolePage(p.page || "") ? p.page : "/console/");
  const expected = sessionStorage.getItem(STATE);
  sessionStorage.removeItem(STATE);
  if (!expected || p.state !== expected) return "This sign-in was not started from this tab: sign in again.";
  if (p.error) return p.errorDescription || p.error;
  if (!p.token) return "The sign-in returned no token: sign in again.";
  const expiry = Date.parse(p.expiry || "");
  keep({ token: p.token, refresh: p.refreshToken || "", expiry: isNaN(expiry) ? 0 : expiry });
  return "";
}

// A page of the console that no dot segment leads out of (the server refuses other login redirects).
function consolePage(path) {
  const low = path.toLowerCase();
  return path.startsWith("/console/") && !path.includes("..") && !low.includes("%2e") && !path.includes("\\");
}

function random() {
  const b = new Uint8Array(24);
  crypto.getRandomValues(b);
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

// Off to the login: the server's provider, or an organization's identity provider (`idp`).
export function signIn(idp = "") {
  const state = random();
  sessionStorage.setItem(STATE, state);
  // The login returns to this page (at our public address, where the session lives).
  const here = location.pathname + location.search;
  const redirect = consolePage(here) ? new URL(here, home()).toString() : home();
  const params = { redirect, exit: "redirect", create_refresh_token: "true", state };
  if (idp) params.idp_id = idp;
  const url = new URL("/oauth", home());
  url.search = new URLSearchParams(params).toString();
  location.assign(url.toString());
}

// Sign-out: the tab forgets the session at once, then the server revokes the login's refresh token (and every
// later one of its login: POST /oauth/revoke), so a copy of it renews nothing. Whether the server confirmed.
export async function signOut() {
  const refresh = current && current.refresh;
  keep(null);
  if (!refresh) return true;
  try {
    const r = await fetch("/oauth/revoke", {
      method: "POST",
      body: new URLSearchParams({ token: refresh, token_type_hint: "refresh_token" }),
      credentials: "omit",
      cache: "no-store",
    });
    return r.ok;
  } catch {
    return false;
  }
}

// The session ended on the server's side (a refused renewal): only forget it.
export function forget() {
  keep(null);
}

async function renew() {
  if (!current || !current.refresh) return false;
  const r = await fetch("/sts/exchange_refresh_token", {
    method: "POST",
    headers: { authorization: "Bearer " + current.refresh },
    credentials: "omit",
    cache: "no-store",
  });
  if (!r.ok) {
    keep(null);
    return false;
  }
  const pair = await r.json();
  const expiry = Date.parse((pair.token && pair.token.expiry) || "");
  keep({
    token: pair.token.token,
    refresh: (pair.refreshToken && pair.refreshToken.token) || "",
    expiry: isNaN(expiry) ? 0 : expiry,
  });
  return true;
}

// One renewal at a time: two pages' calls at once must not spend the refresh token twice (the server would
// take the second use for a stolen copy and end the session).
export function refresh() {
  if (!renewing) renewing = renew().finally(() => (renewing = null));
  return renewing;
}

export async function token() {
  if (current && current.expiry && current.expiry - Date.now() < EARLY_MS) await refresh();
  return current ? current.token : "";
}
