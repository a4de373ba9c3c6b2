"""Human login at our issuer (reference 10.6) through a real OIDC provider on loopback: GET /oauth, the
provider's approval, GET /oauth/callback and the result posted to the client's loopback callback (or in a
console page's fragment); identity registration, invites, an organization's identity provider with its group
mappings (this session only), and every refusal: the callback URL, the state, the browser that did not start
the login, the code, the nonce, the audience, the expiry. A pending login is the browser's sealed cookie: the
server stores nothing for a login nobody finishes.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import httpx
import jwt
import msgspec
import pytest

from platform_api.auth import matching
from platform_api.core import sealed
from platform_api.service import runtime
from platform_api.signin import login_state
from tests.helpers import BACKENDS, BUILTIN_ROLE_UIDS, Server, run_db
from tests.helpers.oidc_provider import (
    Provider,
    callback_params,
    complete,
    delivered,
    login_server,
    posted_form,
    to_provider,
)

CLIENT, SECRET = "platform", "s3cret-" + secrets.token_hex(4)
CALLBACK = "http://127.0.0.1:45678/callback"
CONSOLE = "https://console.example.com"


@pytest.fixture(scope="module")
def provider() -> Iterator[Provider]:
    p = Provider()
    p.add_client(CLIENT, SECRET)
    p.add_client("idp-client", "idp-secret")
    yield p
    p.close()


@pytest.fixture(scope="module", params=BACKENDS)
def srv(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, provider: Provider
) -> Iterator[Server]:
    tmp = tmp_path_factory.mktemp("login")
    with login_server(request.param, tmp, provider, CLIENT, "--login-console-origin", CONSOLE, secret=SECRET) as s:
        yield s


@pytest.fixture(autouse=True)
def _fresh(provider: Provider) -> None:
    provider.tamper = {}


def public(srv: Server) -> str:
    """The server's public URL (its issuer): where a login begins and the provider sends the browser back."""
    return srv.base_url.replace("127.0.0.1", "localhost")


def oauth(srv: Server, **params: Any) -> str:
    base = {"redirect": CALLBACK, "exit": "redirect", "client_id": "platformctl"}
    return public(srv) + "/oauth?" + urlencode({**base, **params})


def user(provider: Provider, groups: list[str] | None = None) -> str:
    name = "u" + secrets.token_hex(4)
    provider.add_user(name, f"{name}@example.com", groups)
    return name


def login(srv: Server, provider: Provider, name: str, **params: Any) -> dict[str, str]:
    final = complete(oauth(srv, **params), user=name)
    assert final.startswith(CALLBACK + "?"), final
    return callback_params(final)


def whoami(srv: Server, token: str) -> dict[str, Any]:
    with srv.client(token) as c:
        r = c.get("/auth/v1/ok")
    assert r.status_code == 200, r.text
    return dict(r.json())


def user_uid(provider: Provider, name: str) -> str:
    return matching.user_uid(matching.normalize_issuer(provider.issuer), provider.users[name].sub)


def exists(srv: Server, uid: str) -> bool:
    async def go(db: Any) -> bool:
        return await db.fetchval("SELECT 1 FROM identities WHERE uid = $1", uid) is not None

    return run_db(srv, go)


def steps(srv: Server, name: str, **params: Any) -> tuple[httpx.Client, str]:
    """A login up to the provider's answer: (the browser, holding the pending login's cookie; the callback URL
    with code and state)."""
    c = httpx.Client(timeout=30)
    r = to_provider(c, oauth(srv, **params))
    assert r.status_code == 302, r.text
    r = c.get(r.headers["location"] + "&login_hint=" + name)
    assert r.status_code == 302, r.text
    return c, str(r.headers["location"])


def refused_with(final: str, reason: str = "UNAUTHENTICATED") -> dict[str, str]:
    assert final.startswith(CALLBACK + "?"), final
    p = callback_params(final)
    assert "token" not in p and "refresh_token" not in p, p
    assert p["error"] == reason, p
    return p


def assert_status(r: httpx.Response, status: int, code: int) -> dict[str, Any]:
    assert r.status_code == status, r.text
    assert "location" not in r.headers
    body = r.json()
    assert body["code"] == code and body["details"][0]["@type"].endswith("ErrorInfo"), body
    return dict(body)


# ---------------------------------------------------------------------- the flow


def test_first_login_registers_the_user_and_the_second_finds_them(srv: Server, provider: Provider) -> None:
    name = user(provider)
    uid = user_uid(provider, name)
    assert not exists(srv, uid)
    first = login(srv, provider, name, create_refresh_token="true")
    assert set(first) == {"token", "refresh_token", "expiry"}
    me = whoami(srv, first["token"])
    assert me["subject"] == uid and me["email"] == f"{name}@example.com"
    assert me["issuer"] == public(srv)
    assert exists(srv, uid)
    second = login(srv, provider, name)
    assert "refresh_token" not in second  # not asked for
    assert jwt.decode(second["token"], options={"verify_signature": False})["sub"] == uid
    # The refresh token of the first login works.
    r = httpx.post(srv.base_url + "/sts/exchange_refresh_token",
                   headers={"authorization": f"Bearer {first['refresh_token']}"})  # fmt: skip
    assert r.status_code == 200, r.text
    # Our client secret went to the provider's token endpoint, with the PKCE verifier.
    form = provider.token_requests[-1]
    assert form["code_verifier"] and form["redirect_uri"] == [public(srv) + "/oauth/callback"]


def test_an_invite_code_joins_its_group(srv: Server, provider: Provider) -> None:
    org = srv.http.post("/iam/v2/groups/", json={"name": "inv-" + secrets.token_hex(3)}).json()["uid"]
    r = srv.http.post(f"/iam/v2/groupInvites/{org}", json={"roleUid": BUILTIN_ROLE_UIDS["viewer"], "ttl": "3600s"})
    assert r.status_code == 200, r.text
    name = user(provider)
    got = login(srv, provider, name, invite=r.json()["code"])
    held = {(e["group"]["id"], e["role"]["name"]) for e in whoami(srv, got["token"])["capabilities"]}
    assert held == {(org, "viewer")}
    with srv.client(got["token"]) as c:
        assert c.get(f"/iam/v2/groups/{org}").status_code == 200
    # A spent or unknown invite: the login is refused, back at the client's callback.
    other = user(provider)
    refused_with(complete(oauth(srv, invite="painv_nope"), user=other), "NOT_FOUND")


def test_identity_provider_login_maps_groups_for_the_session_only(srv: Server, provider: Provider) -> None:
    org = srv.http.post("/iam/v2/groups/", json={"name": "sso-" + secrets.token_hex(3)}).json()["uid"]
    oidc = {"issuer": provider.issuer, "clientId": "idp-client", "clientSecret": "idp-secret", "groupsClaim": "groups"}
    r = srv.http.post(f"/iam/v2/identityProviders/{org}",
                      json={"name": "sso", "defaultRole": BUILTIN_ROLE_UIDS["viewer"], "oidc": oidc})  # fmt: skip
    assert r.status_code == 200, r.text
    idp = r.json()["uid"]
    mapping = {"externalGroupId": "admins", "roleUid": BUILTIN_ROLE_UIDS["editor"], "scope": org}
    assert srv.http.post(f"/iam/v2/externalGroupRoleMappings/{idp}", json=mapping).status_code == 200
    name = user(provider, ["admins", "unmapped"])
    admin = login(srv, provider, name, idp_id=idp, create_refresh_token="true")
    assert "refresh_token" not in admin  # session grants: no refresh token
    roles = {e["role"]["name"] for e in whoami(srv, admin["token"])["capabilities"]}
    assert roles == {"viewer", "editor"}
    with srv.client(admin["token"]) as c:
        assert c.post(f"/registry/v2/repos/{org}", json={"name": "by-" + name}).status_code == 200
    provider.users[name].groups = []
    plain = login(srv, provider, name, idp_id=idp, create_refresh_token="true")
    assert plain["refresh_token"]
    assert {e["role"]["name"] for e in whoami(srv, plain["token"])["capabilities"]} == {"viewer"}
    with srv.client(plain["token"]) as c:
        assert c.post(f"/registry/v2/repos/{org}", json={"name": "again-" + name}).status_code == 403
    # The provider's client secret, not the server-wide one, went to the token endpoint (Basic).
    assert "client_secret" not in provider.token_requests[-1]


# ---------------------------------------------------------------------- refusals


@pytest.mark.parametrize("redirect", [
    "https://evil.example/callback", "http://127.0.0.1.evil.example/cb", "http://evil.example@127.0.0.1/cb",
    "http://10.0.0.1/cb", "https://127.0.0.1:8443/cb", "javascript:alert(1)", "http://localhost/cb#frag",
    "https://console.example.com.evil.example/cb", "http://console.example.com/cb", "",
    # The host exactly, then digits of a port, nothing else.
    "http://[::1]evil.com/", "http://[::1].evil.example/cb", "http://localhost.:80/cb", "http://localhost:/cb",
    "http://127.0.0.1:8o/cb", "https://console.example.com@evil.example/cb",
])  # fmt: skip
def test_only_loopback_and_console_callbacks(srv: Server, provider: Provider, redirect: str) -> None:
    before = len(provider.token_requests)
    body = assert_status(httpx.get(oauth(srv, redirect=redirect)), 400, 3)
    assert body["details"][1]["fieldViolations"][0]["field"] == "redirect"
    assert len(provider.token_requests) == before


@pytest.mark.parametrize("redirect", ["http://localhost:9/cb", "http://[::1]:7000/", f"{CONSOLE}/signed-in?x=1"])
def test_loopback_and_console_callbacks_accepted(srv: Server, redirect: str) -> None:
    r = httpx.get(oauth(srv, redirect=redirect))
    assert r.status_code == 302, r.text


@pytest.mark.parametrize("params", [
    {"audience": "https://elsewhere.example"}, {"exit": "json"}, {"connection": "google-oauth2"},
    {"idp_id": "not a uid"}, {"create_refresh_token": "maybe"}, {"headless_code": "short"},
    {"invite": "x" * 300}, {"state": "s" * 257},
    # Each within its limit, together too large to keep in the browser's cookie.
    {"redirect": CALLBACK + "?pad=" + "x" * 2000, "state": "s" * 256, "invite": "i" * 256},
])  # fmt: skip
def test_bad_parameters_are_refused(srv: Server, params: dict[str, str]) -> None:
    assert_status(httpx.get(oauth(srv, **params)), 400, 3)


def test_repeated_parameter_refused(srv: Server) -> None:
    url = oauth(srv) + "&redirect=" + "http://127.0.0.1:1/other"
    assert_status(httpx.get(url), 400, 3)


def test_unknown_identity_provider(srv: Server) -> None:
    assert_status(httpx.get(oauth(srv, idp_id="0" * 40 + "/" + "1" * 16)), 404, 5)


def test_tampered_state_refused(srv: Server, provider: Provider) -> None:
    c, back = steps(srv, user(provider))
    p = callback_params(back)
    forged = back.replace("state=" + p["state"], "state=" + p["state"][:-2] + "xx")
    assert_status(c.get(forged), 401, 16)
    # The real state still finishes the login.
    assert callback_params(delivered(c.get(back)))["token"]


def test_replayed_state_and_code_refused(srv: Server, provider: Provider) -> None:
    name = user(provider)
    c, back = steps(srv, name)
    assert callback_params(delivered(c.get(back)))["token"]
    assert_status(c.get(back), 401, 16)  # the same state and code again
    # The spent code under the state of a new login (in its browser): the provider refuses it, so do we.
    fresh_browser, fresh = steps(srv, name)
    replay = fresh.split("?")[0] + "?" + urlencode({"code": callback_params(back)["code"],
                                                    "state": callback_params(fresh)["state"]})  # fmt: skip
    refused_with(delivered(fresh_browser.get(replay)))


def test_code_of_another_login_fails_its_pkce(srv: Server, provider: Provider) -> None:
    name = user(provider)
    _, one = steps(srv, name)
    c, two = steps(srv, name)
    swapped = one.split("?")[0] + "?" + urlencode({"code": callback_params(one)["code"],
                                                   "state": callback_params(two)["state"]})  # fmt: skip
    refused_with(delivered(c.get(swapped)))
    assert provider.token_requests[-1]["code"] == [callback_params(one)["code"]]


@pytest.mark.parametrize("tamper", [{"nonce": "another-nonce"}, {"nonce": None}, {"aud": "another-client"},
                                    {"aud": [CLIENT, "another-client"]}, {"iss": "https://impostor.example"},
                                    {"exp": 1_000_000_000}])  # fmt: skip
def test_bad_id_tokens_refused(srv: Server, provider: Provider, tamper: dict[str, Any]) -> None:
    name = user(provider)
    provider.tamper = tamper
    refused_with(complete(oauth(srv), user=name))
    assert not exists(srv, user_uid(provider, name))


def test_provider_refusal_reaches_the_client(srv: Server, provider: Provider) -> None:
    refused_with(complete(oauth(srv), user="nobody-" + secrets.token_hex(3)), "PERMISSION_DENIED")


def _login_key(srv: Server) -> bytes:
    """The server's secret for sealing pending logins (shared by its processes through the database)."""

    async def go(db: Any) -> bytes:
        return await runtime.service_secret(db, "login_state_key")

    return run_db(srv, go)


def _pending_cookie(c: httpx.Client, state: str) -> tuple[str, str]:
    name = login_state.cookie_name(state)
    return name, next(v for k, v in c.cookies.items() if k == name)


def test_expired_pending_login_refused(srv: Server, provider: Provider) -> None:
    """The expiry is sealed into the cookie: one the server sealed 10 minutes ago (here: a copy of this login's
    with the expiry in the past, sealed with the server's own key) opens to nothing."""
    c, back = steps(srv, user(provider))
    state = callback_params(back)["state"]
    name, value = _pending_cookie(c, state)
    key, context = _login_key(srv), login_state.digest(state).encode()
    opened = sealed.unseal(key, value, context, 4096)
    assert opened is not None
    pending = msgspec.json.decode(opened, type=login_state.Pending)
    assert pending.expires - 600 <= time.time() <= pending.expires
    old = msgspec.structs.replace(pending, expires=int(time.time()) - 1)
    expired = sealed.seal(key, msgspec.json.encode(old), context)
    assert_status(httpx.get(back, headers={"cookie": f"{name}={expired}"}), 401, 16)


def test_a_pending_login_is_a_sealed_cookie_and_stores_nothing(srv: Server, provider: Provider) -> None:
    """Issue 26 item 2: /oauth stored a pending login server-wide (10,000 at most, 10 minutes), so anonymous
    callers could fill the room and lock everyone out. Now the browser keeps it, sealed; the server stores
    only a spent state, at the callback."""

    async def spent(db: Any) -> int:
        return int(await db.fetchval("SELECT COUNT(*) FROM login_spent_states"))

    async def spent_of(db: Any, states: list[str]) -> int:
        query = "SELECT 1 FROM login_spent_states WHERE state_hash = $1"
        return len([s for s in states if await db.fetchval(query, login_state.digest(s))])

    c = httpx.Client(timeout=30)
    states: list[str] = []
    for _ in range(5):
        r = to_provider(c, oauth(srv))
        assert r.status_code == 302, r.text
        states.append(callback_params(r.headers["location"])["state"])  # the provider's URL
        assert "set-cookie" in r.headers, "the pending login is not in the browser"
        cookie = r.headers["set-cookie"]
        name, _, rest = cookie.partition("=")
        attributes = {a.strip().split("=")[0].lower(): a.strip() for a in rest.split(";")[1:]}
        assert name.startswith("pa_login_") and len(cookie) < 4096, cookie
        assert attributes["path"] == "Path=/oauth/callback" and attributes["max-age"] == "Max-Age=600", cookie
        assert "httponly" in attributes and attributes["samesite"].lower() == "samesite=lax", cookie
        assert "secure" not in attributes  # an http public URL (https: Secure)
        assert r.headers["cache-control"] == "no-store"
    assert run_db(srv, lambda db: spent_of(db, states)) == 0  # nothing stored for five logins nobody finished
    assert len(c.cookies) == 5
    before = run_db(srv, spent)
    # The one finished spends its state (a row until it would have expired) and clears its cookie.
    name = user(provider)
    final = complete(oauth(srv), user=name, client=c)
    assert callback_params(final)["token"] and run_db(srv, spent) == before + 1
    assert len(c.cookies) == 5


def test_two_logins_in_one_browser_coexist(srv: Server, provider: Provider) -> None:
    first, second = user(provider), user(provider)
    c, back_one = steps(srv, first)
    r = to_provider(c, oauth(srv))
    back_two = str(c.get(r.headers["location"] + "&login_hint=" + second).headers["location"])
    two = callback_params(delivered(c.get(back_two)))
    one = callback_params(delivered(c.get(back_one)))
    assert whoami(srv, one["token"])["subject"] == user_uid(provider, first)
    assert whoami(srv, two["token"])["subject"] == user_uid(provider, second)


def test_a_browser_that_did_not_start_the_login_cannot_finish_it(srv: Server, provider: Provider) -> None:
    """The flow is bound to the browser that began it: the provider's answer (code and state) opened in
    another browser (no cookie, or the cookie of another login under this login's name) is refused, and
    the real browser still finishes."""
    c, back = steps(srv, user(provider))
    assert_status(httpx.get(back), 401, 16)
    other, other_back = steps(srv, user(provider))
    _, foreign = _pending_cookie(other, callback_params(other_back)["state"])
    name, _ = _pending_cookie(c, callback_params(back)["state"])
    assert_status(httpx.get(back, headers={"cookie": f"{name}={foreign}"}), 401, 16)
    assert callback_params(delivered(c.get(back)))["token"]


def test_loopback_result_is_posted_with_the_clients_state(srv: Server, provider: Provider) -> None:
    """The tokens never sit in a URL (browser history, Referer): a loopback callback receives them by a form
    the page posts at once (a button without JavaScript), under a strict CSP, with the client's own state."""
    c, back = steps(srv, user(provider), state="client-state-1", create_refresh_token="true")
    r = c.get(back)
    assert r.status_code == 200 and "location" not in r.headers
    assert r.headers["cache-control"] == "no-store" and r.headers["referrer-policy"] == "no-referrer"
    csp = r.headers["content-security-policy"]
    assert "default-src 'none'" in csp and "script-src 'sha256-" in csp and "frame-ancestors 'none'" in csp
    assert "form-action http://127.0.0.1:45678" in csp and "unsafe-inline" not in csp
    assert '<button type="submit">' in r.text
    action, fields = posted_form(r)
    assert action == CALLBACK
    assert set(fields) == {"token", "refresh_token", "expiry", "state"} and fields["state"] == "client-state-1"
    assert r.headers["set-cookie"].startswith(login_state.cookie_name(callback_params(back)["state"]) + '=""')
    # An error goes the same way, with the state.
    provider.tamper = {"nonce": "another"}
    c, back = steps(srv, user(provider), state="client-state-2")
    action, fields = posted_form(c.get(back))
    assert fields == {**fields, "error": "UNAUTHENTICATED", "state": "client-state-2"} and "token" not in fields


def test_console_result_in_the_fragment_with_the_clients_state(srv: Server, provider: Provider) -> None:
    page = f"{CONSOLE}/signed-in?x=1"
    final = complete(oauth(srv, redirect=page, state="console-csrf"), user=user(provider))
    assert final.startswith(page + "#"), final
    fragment = callback_params(final)
    assert fragment["state"] == "console-csrf" and fragment["token"] and fragment["expiry"]
    provider.tamper = {"aud": "another-client"}
    final = complete(oauth(srv, redirect=page, state="console-csrf"), user=user(provider))
    assert final.startswith(page + "#") and callback_params(final)["error"] == "UNAUTHENTICATED"
    assert callback_params(final)["state"] == "console-csrf"


def test_the_login_starts_at_the_public_url(srv: Server) -> None:
    """The cookie must live where the provider sends the browser back (our public URL, here localhost): a
    browser at another address is sent there once, with its parameters."""
    elsewhere = oauth(srv, state="s").replace(public(srv), srv.base_url)
    r = httpx.get(elsewhere)
    assert r.status_code == 302 and "set-cookie" not in r.headers
    bounced = r.headers["location"]
    assert bounced.startswith(public(srv) + "/oauth?") and "bounced=1" in bounced and "state=s" in bounced
    r = httpx.get(bounced)
    assert r.status_code == 302 and r.headers["set-cookie"].startswith("pa_login_")
    # Once only: a proxy that rewrites the Host header does not send it round in circles.
    r = httpx.get(elsewhere + "&bounced=1")
    assert r.status_code == 302 and r.headers["set-cookie"].startswith("pa_login_")


def test_callback_without_state_refused(srv: Server) -> None:
    assert_status(httpx.get(srv.base_url + "/oauth/callback?code=x"), 400, 3)


def test_client_module_imports_nothing_of_the_server() -> None:
    import ast

    import platform_api.client.login as mod

    tree = ast.parse(Path(str(mod.__file__)).read_text())
    names = [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    names += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    # The client's own modules only (its errors' hints): nothing of the server.
    assert names and not [n for n in names if n.startswith("platform_api") and not n.startswith("platform_api.client")]


def test_login_as_an_identity_that_accepts_the_id_token(srv: Server, provider: Provider) -> None:
    name = user(provider)
    sub = provider.users[name].sub
    cm = {"issuer": provider.issuer, "subject": sub, "audience": CLIENT}
    r = srv.http.post(f"/iam/v2/identities/{srv.owner_org}", json={"name": "as-" + name, "claimMatch": cm})
    assert r.status_code == 200, r.text
    uid = r.json()["uid"]
    got = login(srv, provider, name, identity=uid)
    assert jwt.decode(got["token"], options={"verify_signature": False})["sub"] == uid
    # An identity that does not accept this person's token: refused, nothing registered.
    other = user(provider)
    refused_with(complete(oauth(srv, identity=uid), user=other))
    assert not exists(srv, user_uid(provider, other))


def test_a_browser_login_at_the_servers_provider_can_find_its_company(srv: Server, provider: Provider) -> None:
    """The server's login provider is trusted for e-mail as `--trusted-issuer`s are: a person signed in
    through it, with a verified e-mail at a domain an organization verified, finds that organization; with
    the e-mail unverified upstream, the same lookup is the collapsed NOT_FOUND."""
    domain = f"corp-{secrets.token_hex(3)}.test"
    org = srv.http.post("/iam/v2/groups/", json={"name": domain}).json()["uid"]
    srv.cli("domains", "verify", "--group", org, "--domain", domain)
    name = "u" + secrets.token_hex(4)
    provider.add_user(name, f"{name}@{domain}")
    token = login(srv, provider, name)["token"]
    with srv.client(token) as c:
        found = c.get("/iam/v2/groups:lookupGroup")
        assert found.status_code == 200 and found.json()["group"]["uid"] == org, found.text
        assert c.get("/iam/v2/groups:checkEligibility").json() == {"eligible": True}
    unverified = "u" + secrets.token_hex(4)
    provider.add_user(unverified, f"{unverified}@{domain}").email_verified = False
    token = login(srv, provider, unverified)["token"]
    with srv.client(token) as c:
        assert c.get("/iam/v2/groups:lookupGroup").status_code == 404
