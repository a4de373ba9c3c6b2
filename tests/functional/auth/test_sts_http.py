"""Token exchange against a real upstream OIDC issuer on loopback (reference 10.4/10.5): claimMatch,
patterns (anchored), static keys, trusted-issuer registration, refresh-token rotation, and refusals that
never say which check failed.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import jwt
import pytest
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from platform_api.auth import matching
from tests.helpers import BACKENDS, BUILTIN_ROLE_UIDS, Server, Upstream, mk_group, new_key, start_server, stop_server

REFUSED = "Unauthenticated: token exchange refused"


@pytest.fixture(scope="module")
def stray() -> Iterator[Upstream]:
    """An issuer no identity or setting names: it must never be contacted."""
    u = Upstream()
    yield u
    u.close()


@pytest.fixture(scope="module")
def ci() -> Iterator[Upstream]:
    """A workload issuer the operator does not trust (a CI system): only identities' claim matches name it."""
    u = Upstream()
    yield u
    u.close()


@pytest.fixture(scope="module", params=BACKENDS)
def srv(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, upstream: Upstream
) -> Iterator[Server]:
    s = start_server(request.param, tmp_path_factory.mktemp("sts"), "--insecure-allow-loopback",
                     "--trusted-issuer", upstream.issuer)  # fmt: skip
    yield s
    stop_server(s)


@pytest.fixture
def org(srv: Server) -> str:
    r = srv.http.post("/iam/v2/groups/", json={"name": "org-" + secrets.token_hex(4)})
    assert r.status_code == 200, r.text
    return str(r.json()["uid"])


def mk_identity(srv: Server, parent: str, relationship: dict[str, Any], role: str | None = "viewer") -> str:
    r = srv.http.post(f"/iam/v2/identities/{parent}", json={"name": "bot-" + secrets.token_hex(3), **relationship})
    assert r.status_code == 200, r.text
    uid = str(r.json()["uid"])
    if role:
        r = srv.http.post(
            f"/iam/v2/roleBindings/{parent}", json={"identityUid": uid, "roleUid": BUILTIN_ROLE_UIDS[role]}
        )
        assert r.status_code == 200, r.text
    return uid


def exchange(srv: Server, upstream_token: str, method: str = "GET", **params: Any) -> httpx.Response:
    headers = {"authorization": f"Bearer {upstream_token}"}
    with httpx.Client(base_url=srv.base_url, timeout=30) as c:
        if method == "GET":
            return c.get("/sts/exchange", params=params, headers=headers)
        return c.post("/sts/exchange", data=params, headers=headers)


def refused(r: httpx.Response) -> None:
    assert r.status_code == 401, r.text
    body = r.json()
    assert body["code"] == 16 and body["message"] == REFUSED, body
    assert body["details"][0]["reason"] == "UNAUTHENTICATED"
    assert r.headers["www-authenticate"].startswith("Bearer")


def can_read(srv: Server, token: str, group: str) -> bool:
    with srv.client(token) as c:
        r = c.get(f"/iam/v2/groups/{group}")
    assert r.status_code in (200, 404), r.text
    return r.status_code == 200


def test_exchange_with_named_identity(srv: Server, upstream: Upstream, org: str) -> None:
    sub = "repo:acme/app:ref:refs/heads/main"
    uid = mk_identity(srv, org, {"claimMatch": {"issuer": upstream.issuer, "subject": sub}})
    # Upstream tokens are minted for us: our issuer URL (http://localhost:<port>) or its host name.
    issuer_url = f"http://localhost:{srv.base_url.rsplit(':', 1)[1]}"
    assert exchange(srv, upstream.token(sub, issuer_url), identity=uid).status_code == 200
    r = exchange(srv, upstream.token(sub, "localhost"), identity=uid)
    assert r.status_code == 200, r.text
    body = r.json()
    # A workload's exchange: an access token only; it exchanges its own upstream token again (issue 27 item 5).
    assert body["token"] and "refreshToken" not in body and body["expiry"].endswith("Z")
    claims = jwt.decode(body["token"], options={"verify_signature": False})
    assert claims["sub"] == uid and claims["act"]["sub"] == sub and claims["act"]["iss"] == upstream.issuer
    assert can_read(srv, body["token"], org)


def test_exchange_finds_the_identity_and_accepts_form_posts(
    srv: Server, upstream: Upstream, ci: Upstream, org: str
) -> None:
    sub = "ci-" + secrets.token_hex(4)
    uid = mk_identity(srv, org, {"claimMatch": {"issuer": ci.issuer, "subject": sub}})
    r = exchange(srv, ci.token(sub, "localhost"), method="POST")
    assert r.status_code == 200, r.text
    assert jwt.decode(r.json()["token"], options={"verify_signature": False})["sub"] == uid
    # A trusted issuer's token without `identity` is a person's own exchange: their user identity, even where an
    # identity of an organization accepts it too (that one is assumed by name).
    uid = mk_identity(srv, org, {"claimMatch": {"issuer": upstream.issuer, "subject": sub}})
    for named, expected in (("", user_uid(srv, upstream, sub)), (uid, uid)):
        r = exchange(srv, upstream.token(sub, "localhost"), method="POST", identity=named)
        assert jwt.decode(r.json()["token"], options={"verify_signature": False})["sub"] == expected


def user_uid(srv: Server, upstream: Upstream, sub: str) -> str:
    r = srv.http.get("/iam/v2/identities:lookupIdentity", params={"issuer": upstream.issuer, "subject": sub})
    return str(r.json()["uid"])


def test_patterns_are_anchored(srv: Server, upstream: Upstream, org: str) -> None:
    tag = secrets.token_hex(3)
    port = upstream.issuer.rsplit(":", 1)[1]
    uid = mk_identity(srv, org, {"claimMatch": {
        "issuerPattern": r"http://127\.0\.0\.1:" + port, "subjectPattern": f"repo:{tag}/.*",
        "audiencePattern": "ci-[0-9]+", "claims": {"ref": "main"}, "claimPatterns": {"actor": "bot-.*"}}})  # fmt: skip
    good = dict(sub=f"repo:{tag}/app", aud="ci-42", ref="main", actor="bot-1")
    assert exchange(srv, upstream.token(**good), identity=uid).status_code == 200
    for bad in (
        {"sub": f"evilrepo:{tag}/app"},  # a search would accept this; a full match does not
        {"aud": "ci-42x"},
        {"ref": "dev"},
        {"actor": "human-bot-1"},
    ):
        refused(exchange(srv, upstream.token(**{**good, **bad}), identity=uid))


def test_refusals_look_alike(srv: Server, upstream: Upstream, org: str) -> None:
    sub = "svc-" + secrets.token_hex(4)
    uid = mk_identity(srv, org, {"claimMatch": {"issuer": upstream.issuer, "subject": sub}})
    other_key, _ = new_key()
    now = int(time.time())
    cases = [
        upstream.token(sub, "localhost", key=other_key),  # bad signature
        upstream.token(sub, "localhost", exp=now - 3600),  # expired
        upstream.token(sub, "localhost", nbf=now + 3600),  # not yet valid
        upstream.token(sub, "somebody-else"),  # wrong audience
        upstream.token("other-" + sub, "localhost"),  # wrong subject
        upstream.token(sub, "localhost", kid="nope"),  # unknown key id
        jwt.encode({"iss": upstream.issuer, "sub": sub, "aud": "localhost", "exp": now + 60}, "s" * 32, "HS256"),
        jwt.encode({"iss": upstream.issuer, "sub": sub, "aud": "localhost", "exp": now + 60}, None, "none"),
        "not-a-jwt",
    ]
    for token in cases:
        refused(exchange(srv, token, identity=uid))
    refused(exchange(srv, upstream.token(sub, "localhost"), identity=f"{org}/{'0' * 16}"))


def test_hmac_token_made_with_the_public_key(srv: Server, upstream: Upstream, org: str) -> None:
    sub = "hmac-" + secrets.token_hex(4)
    uid = mk_identity(srv, org, {"claimMatch": {"issuer": upstream.issuer, "subject": sub}})
    pem = upstream.key.public_key().public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo)
    header = base64.urlsafe_b64encode(json.dumps({"alg": "HS256", "kid": upstream.jwk["kid"]}).encode()).rstrip(b"=")
    payload = {"iss": upstream.issuer, "sub": sub, "aud": "localhost", "exp": int(time.time()) + 60}
    body = base64.urlsafe_b64encode(json.dumps(payload).encode()).rstrip(b"=")
    sig = base64.urlsafe_b64encode(hmac.new(pem, header + b"." + body, hashlib.sha256).digest()).rstrip(b"=")
    refused(exchange(srv, (header + b"." + body + b"." + sig).decode(), identity=uid))


def test_unnamed_issuers_are_never_contacted(srv: Server, stray: Upstream, org: str) -> None:
    refused(exchange(srv, stray.token("anyone", "localhost")))
    uid = mk_identity(srv, org, {"claimMatch": {"issuer": "https://issuer.example", "subject": "anyone"}})
    refused(exchange(srv, stray.token("anyone", "localhost"), identity=uid))
    assert stray.requests == []


def test_static_keys(srv: Server, org: str) -> None:
    key, jwk = new_key()
    issuer = "https://static.example/" + secrets.token_hex(3)
    keys = json.dumps({"keys": [jwk]})
    uid = mk_identity(
        srv, org, {"staticKeys": {"issuer": issuer, "subject": "robot", "issuerKeys": keys, "audiences": ["mine"]}}
    )
    r = srv.http.get(f"/iam/v2/identities/{uid}")
    assert r.json()["staticKeys"]["expirationTime"] > time.strftime("%Y-%m-%d", time.gmtime(time.time() + 360 * 86400))
    now = int(time.time())

    def tok(**extra: Any) -> str:
        claims = {"iss": issuer, "sub": "robot", "aud": "mine", "iat": now, "exp": now + 300, **extra}
        return jwt.encode(claims, key, "RS256", headers={"kid": jwk["kid"]})

    r = exchange(srv, tok(), identity=uid)
    assert r.status_code == 200, r.text
    assert can_read(srv, r.json()["token"], org)
    assert exchange(srv, tok()).status_code == 200  # found without naming it
    refused(exchange(srv, tok(aud="localhost"), identity=uid))
    refused(exchange(srv, tok(sub="robot2"), identity=uid))
    other, _ = new_key()
    refused(exchange(srv, jwt.encode({"iss": issuer, "sub": "robot", "aud": "mine", "exp": now + 60}, other, "RS256",
                                     headers={"kid": jwk["kid"]}), identity=uid))  # fmt: skip
    bad = srv.http.post(f"/iam/v2/identities/{org}", json={"name": "bad", "staticKeys": {
        "issuer": issuer, "subject": "x", "issuerKeys": json.dumps({"keys": [{**jwk, "d": "AQAB"}]})}})  # fmt: skip
    assert bad.status_code == 400, bad.text


def mk_person(srv: Server, upstream: Upstream, org: str, role: str = "viewer") -> tuple[str, str]:
    """A person of the trusted issuer, bound `role` in `org` before the first login: (user uid, subject)."""
    sub = "person-" + secrets.token_hex(4)
    uid = user_uid(srv, upstream, sub)
    r = srv.http.post(f"/iam/v2/roleBindings/{org}", json={"identityUid": uid, "roleUid": BUILTIN_ROLE_UIDS[role]})
    assert r.status_code == 200, r.text
    return uid, sub


def test_refresh_tokens_rotate_and_reuse_revokes(srv: Server, upstream: Upstream, org: str) -> None:
    _, sub = mk_person(srv, upstream, org)
    first = exchange(srv, upstream.token(sub, "localhost")).json()

    def refresh(rt: str) -> httpx.Response:
        return httpx.post(srv.base_url + "/sts/exchange_refresh_token", headers={"authorization": f"Bearer {rt}"})

    r = refresh(first["refreshToken"])
    assert r.status_code == 200, r.text
    pair = r.json()
    assert pair["token"]["token"] and pair["refreshToken"]["token"] != first["refreshToken"]
    assert can_read(srv, pair["token"]["token"], org)
    # The spent token comes back: refused, and the whole family (including the new one) is revoked.
    refused(refresh(first["refreshToken"]))
    refused(refresh(pair["refreshToken"]["token"]))
    refused(refresh("pat_rt_forged"))


def test_scopes_and_cap_restrict_the_token(srv: Server, upstream: Upstream, org: str) -> None:
    sub_group = mk_group(srv.http, org, "team")["uid"]
    sub = "scoped-" + secrets.token_hex(4)
    uid = mk_identity(srv, org, {"claimMatch": {"issuer": upstream.issuer, "subject": sub}}, role="editor")
    r = exchange(srv, upstream.token(sub, "localhost"), identity=uid, scopes=sub_group)
    token = r.json()["token"]
    assert can_read(srv, token, sub_group) and not can_read(srv, token, org)
    r = exchange(srv, upstream.token(sub, "localhost"), identity=uid, cap="groups.list")
    with srv.client(r.json()["token"]) as c:
        assert c.get(f"/iam/v2/groups/{org}").status_code == 200
        assert c.post(f"/registry/v2/repos/{org}", json={"name": "nope"}).status_code == 403
    bad = exchange(srv, upstream.token(sub, "localhost"), identity=uid, cap="no.such.cap")
    assert bad.status_code == 400 and bad.json()["code"] == 3
    # As many unknown names as the cap allows, long ones: the message names a few (gRPC clients refuse
    # a status over 8 KiB; it was RESOURCE_EXHAUSTED for them).
    many = [f"no.such.cap.{n}.{'x' * 200}" for n in range(217)]
    bad = exchange(srv, upstream.token(sub, "localhost"), "POST", identity=uid, cap=many)
    assert bad.status_code == 400 and len(bad.json()["message"]) < 1000, bad.text
    assert "and 212 more" in bad.json()["message"]
    bad = exchange(srv, upstream.token(sub, "localhost"), identity=uid, aud="https://elsewhere.example")
    assert bad.status_code == 400


def test_trusted_issuer_registers_the_looked_up_user(srv: Server, upstream: Upstream, org: str) -> None:
    sub = "user-" + secrets.token_hex(4)
    r = srv.http.get("/iam/v2/identities:lookupIdentity", params={"issuer": upstream.issuer, "subject": sub})
    user = r.json()["uid"]
    assert len(user) == 40
    # Bound before the first login (reference: so role bindings can be created in advance).
    r = srv.http.post(f"/iam/v2/roleBindings/{org}", json={"identityUid": user, "roleUid": BUILTIN_ROLE_UIDS["viewer"]})
    assert r.status_code == 200, r.text
    r = exchange(srv, upstream.token(sub, "localhost", email="Jane.Doe@example.com", email_verified=True))
    assert r.status_code == 200, r.text
    token = r.json()["token"]
    assert jwt.decode(token, options={"verify_signature": False})["sub"] == user
    assert can_read(srv, token, org)
    me = srv.http.get(f"/iam/v2/roleBindings?identity={user}").json()["roleBindings"][0]["identity"]
    assert me["email"] == "Jane.Doe@example.com" and me["name"] == "jane.doe"
    # Not minted for us: refused even from a trusted issuer.
    refused(exchange(srv, upstream.token("user-" + secrets.token_hex(4), "someone-else")))


def test_ambiguous_tokens_must_name_the_identity(srv: Server, ci: Upstream, org: str) -> None:
    sub = "twin-" + secrets.token_hex(4)
    a = mk_identity(srv, org, {"claimMatch": {"issuer": ci.issuer, "subject": sub}})
    mk_identity(srv, org, {"claimMatch": {"issuer": ci.issuer, "subjectPattern": "twin-.*"}})
    r = exchange(srv, ci.token(sub, "localhost"))
    assert r.status_code == 400 and r.json()["code"] == 3, r.text
    assert exchange(srv, ci.token(sub, "localhost"), identity=a).status_code == 200


def member_login(srv: Server, upstream: Upstream, org: str) -> tuple[str, dict[str, Any]]:
    """A person's first login through an identity provider of `org` (its viewer): (their uid, the exchange's answer
    with its refresh token)."""
    oidc = {"issuer": upstream.issuer, "clientId": "sso-" + secrets.token_hex(3), "pkceEnabled": True}
    body = {"name": "sso", "defaultRole": BUILTIN_ROLE_UIDS["viewer"], "oidc": oidc}
    idp = srv.http.post(f"/iam/v2/identityProviders/{org}", json=body)
    assert idp.status_code == 200, idp.text
    r = exchange(
        srv, upstream.token("m-" + secrets.token_hex(4), oidc["clientId"]), identity_provider=idp.json()["uid"]
    )
    assert r.status_code == 200 and r.json()["refreshToken"], r.text
    return jwt.decode(r.json()["token"], options={"verify_signature": False})["sub"], r.json()


def refresh_with(srv: Server, refresh_token: str) -> httpx.Response:
    return httpx.post(
        srv.base_url + "/sts/exchange_refresh_token", headers={"authorization": f"Bearer {refresh_token}"}
    )


def test_deleted_identity_tokens_stop_working(srv: Server, upstream: Upstream, org: str, tmp_path: Path) -> None:
    uid, body = member_login(srv, upstream, org)
    assert srv.http.delete(f"/iam/v2/identities/{uid}").status_code == 200
    with srv.client(body["token"]) as c:
        assert c.get(f"/iam/v2/groups/{org}").status_code == 401
    refused(refresh_with(srv, body["refreshToken"]))


def test_removing_a_members_last_binding_ends_its_refresh_chain(srv: Server, upstream: Upstream, org: str) -> None:
    uid, body = member_login(srv, upstream, org)
    r = refresh_with(srv, body["refreshToken"])
    assert r.status_code == 200, r.text
    (binding,) = srv.http.get("/iam/v2/roleBindings", params={"identity": uid}).json()["roleBindings"]
    assert srv.http.delete(f"/iam/v2/roleBindings/{binding['uid']}").status_code == 200
    refused(refresh_with(srv, r.json()["refreshToken"]["token"]))


def test_static_key_identities_get_no_refresh_token(srv: Server, org: str) -> None:
    key, jwk = new_key()
    issuer = "https://static.example/" + secrets.token_hex(3)
    keys = json.dumps({"keys": [jwk]})
    uid = mk_identity(srv, org, {"staticKeys": {"issuer": issuer, "subject": "svc", "issuerKeys": keys}})
    now = int(time.time())
    token = jwt.encode({"iss": issuer, "sub": "svc", "aud": "localhost", "iat": now, "exp": now + 300}, key,
                       algorithm="RS256", headers={"kid": jwk["kid"]})  # fmt: skip
    r = exchange(srv, token, identity=uid)
    assert r.status_code == 200, r.text
    assert "refreshToken" not in r.json()


def test_a_refresh_chain_ends_with_its_logins_max_age(
    tmp_path_factory: pytest.TempPathFactory, upstream: Upstream
) -> None:
    """`--refresh-token-max-age` counts from the login: rotation renews each token's week, never the chain."""
    s = start_server(BACKENDS[0], tmp_path_factory.mktemp("max-age"), "--insecure-allow-loopback",
                     "--trusted-issuer", upstream.issuer, "--refresh-token-max-age", "3")  # fmt: skip
    try:
        sub = "brief-" + secrets.token_hex(3)
        first = exchange(s, upstream.token(sub, "localhost")).json()
        login = time.time()
        r = refresh_with(s, first["refreshToken"])
        assert r.status_code == 200, r.text
        ends = r.json()["refreshToken"]["expiry"]
        assert ends <= time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(login + 4))
        time.sleep(max(0.0, login + 3.5 - time.time()))
        refused(refresh_with(s, r.json()["refreshToken"]["token"]))
    finally:
        stop_server(s)


def test_identity_provider_login(srv: Server, upstream: Upstream, stray: Upstream, org: str) -> None:
    """A login through an organization's OIDC provider: first login binds its default role at its group;
    the mappings of the groups the token carries grant roles for that session only (no refresh token)."""
    settings = {"issuer": upstream.issuer, "clientId": "console", "clientSecret": "s3cret", "groupsClaim": "groups"}
    idp = srv.http.post(f"/iam/v2/identityProviders/{org}",
                        json={"name": "sso", "defaultRole": BUILTIN_ROLE_UIDS["viewer"], "oidc": settings})  # fmt: skip
    assert idp.status_code == 200, idp.text
    idp_uid = idp.json()["uid"]
    mapping = {"externalGroupId": "admins", "roleUid": BUILTIN_ROLE_UIDS["editor"], "scope": org}
    r = srv.http.post(f"/iam/v2/externalGroupRoleMappings/{idp_uid}", json=mapping)
    assert r.status_code == 200, r.text
    sub = "alice-" + secrets.token_hex(3)

    def login(groups: list[str], aud: str = "console") -> httpx.Response:
        return exchange(srv, upstream.token(sub, aud, groups=groups, email="alice@example.com", email_verified=True),
                        identity_provider=idp_uid)  # fmt: skip

    admin = login(["admins", "unmapped"])
    assert admin.status_code == 200, admin.text
    assert "refreshToken" not in admin.json()
    user = jwt.decode(admin.json()["token"], options={"verify_signature": False})["sub"]
    # The provider's own identity in its group, not the person's global one (DESIGN 4).
    assert user == matching.member_uid(idp_uid, sub) != user_uid(srv, upstream, sub)
    with srv.client(admin.json()["token"]) as c:
        assert c.post(f"/registry/v2/repos/{org}", json={"name": "by-sso-admin"}).status_code == 200
    plain = login([])
    assert plain.status_code == 200 and plain.json()["refreshToken"]
    with srv.client(plain.json()["token"]) as c:
        assert c.get(f"/iam/v2/groups/{org}").status_code == 200
        assert c.post(f"/registry/v2/repos/{org}", json={"name": "by-sso-viewer"}).status_code == 403
    # The default role was bound once, at the first login; the session grant is not a binding.
    bindings = srv.http.get("/iam/v2/roleBindings", params={"identity": user}).json()["roleBindings"]
    assert [b["role"]["name"] for b in bindings] == ["viewer"]
    refused(login([], aud="someone-else"))
    refused(exchange(srv, stray.token(sub, "console"), identity_provider=idp_uid))
    assert stray.requests == []


def test_register_redeems_an_invite_on_first_contact(srv: Server, upstream: Upstream, org: str) -> None:
    r = srv.http.post(f"/iam/v2/groupInvites/{org}", json={"roleUid": BUILTIN_ROLE_UIDS["viewer"], "ttl": "3600s"})
    assert r.status_code == 200, r.text
    sub = "newcomer-" + secrets.token_hex(3)
    upstream_token = upstream.token(sub, "localhost")
    r = httpx.post(srv.base_url + "/auth/v1/register", json={"code": r.json()["code"]},
                   headers={"authorization": f"Bearer {upstream_token}"})  # fmt: skip
    assert r.status_code == 200, r.text
    user = srv.http.get("/iam/v2/identities:lookupIdentity", params={"issuer": upstream.issuer, "subject": sub})
    assert r.json() == {"identity": user.json()["uid"], "group": org}
    token = exchange(srv, upstream.token(sub, "localhost")).json()["token"]
    assert can_read(srv, token, org)
