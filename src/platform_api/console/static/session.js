// The signed-in person's session: the login's token and refresh token, held in this tab's sessionStorage and
// in memory, never in a URL (the login hands them over in the fragment, which is read and cleared at once)
// and never in a cookie. Renewed through the refresh token before the token expires; sign-out forgets both.
const KEY = "console.session";
const STATE = "console.login-state";
const RETURN = "console.return";
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

// The login's result in the fragment (`#token=…&refresh_token=…&expiry=…&state=…`, or `#error=…`): taken,
// checked against the state this tab sent, and removed from the address bar and history before anything else
// runs. Returns an error message, "" when signed in by it, or null when the URL carried no login.
export function takeLogin() {
  const hash = location.hash.slice(1);
  if (!hash.includes("token=") && !hash.includes("error=")) return null;
  const p = new URLSearchParams(hash);
  history.replaceState(null, "", location.pathname + location.search);
  const expected = sessionStorage.getItem(STATE);
  sessionStorage.removeItem(STATE);
  if (!expected || p.get("state") !== expected) return "This sign-in was not started from this tab: sign in again.";
  if (p.get("error")) return p.get("error_description") || p.get("error");
  const expiry = Date.parse(p.get("expiry") || "");
  keep({ token: p.get("token"), refresh: p.get("refresh_token") || "", expiry: isNaN(expiry) ? 0 : expiry });
  const back = sessionStorage.getItem(RETURN);
  sessionStorage.removeItem(RETURN);
  if (back && back.startsWith("/console/")) history.replaceState(null, "", back);
  return "";
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
  sessionStorage.setItem(RETURN, location.pathname + location.search);
  const params = { redirect: home(), exit: "redirect", create_refresh_token: "true", state };
  if (idp) params.idp_id = idp;
  const url = new URL("/oauth", home());
  url.search = new URLSearchParams(params).toString();
  location.assign(url.toString());
}

export function signOut() {
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
