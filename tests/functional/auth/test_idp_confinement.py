"""Who an upstream token may become is decided by who vouches for it (DESIGN 4; issue 26 items 1, 4, 5, 9, 12).

- An organization's identity provider yields identities of its own group only (uid from the provider and the
  subject), never a person's global identity, whatever issuer and client id its administrator typed: through
  `/sts/exchange?identity_provider=` (HTTP and gRPC) and through the browser login `/oauth?idp_id=`.
- Only issuers the operator trusts (`--trusted-issuer`, `--login-issuer`) vouch for e-mail.
- Another organization's identities never change what a person's own exchange answers.
- WhoAmI answers what the token may do (its scopes and `cap`).
- Claims with a NUL character, or an empty subject, are refused at every entry.

The attacker ("Mallory") is an owner of organization B; the victim ("Alice") a person of the server's trusted
issuers who owns organization A. The test plays the part of Alice signing in to Mallory's app: the upstream
issuer hands out a token for Mallory's client with Alice's subject.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from typing import Any

import grpc
import httpx
import jwt
import pytest

from platform_api.auth import matching
from platform_api.gen.chainguard.platform.oidc import oidc_pb2, oidc_pb2_grpc
from tests.helpers import BACKENDS, OWNER, VIEWER, Server, Upstream, mk_group, ok, run_db, unique
from tests.helpers.oidc_provider import Provider, callback_params, complete, login_server

CLIENT = "platform"
CALLBACK = "http://127.0.0.1:45679/callback"
REFUSED = "Unauthenticated: token exchange refused"


@pytest.fixture(scope="module")
def provider() -> Iterator[Provider]:
    """The server's login provider (`--login-issuer`), where Mallory also registered an app of her own."""
    p = Provider()
    p.add_client(CLIENT, "")
    p.add_client("evilapp", "")
    yield p
    p.close()


@pytest.fixture(scope="module")
def corp() -> Iterator[Upstream]:
    """An issuer the operator does not trust: an organization's own IdP."""
    u = Upstream()
    yield u
    u.close()


@pytest.fixture(scope="module", params=BACKENDS)
def srv(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    provider: Provider,
    upstream: Upstream,
) -> Iterator[Server]:
    tmp = tmp_path_factory.mktemp("confine")
    with login_server(request.param, tmp, provider, CLIENT, "--trusted-issuer", upstream.issuer) as s:
        yield s


def decoded(token: str) -> dict[str, Any]:
    return dict(jwt.decode(token, options={"verify_signature": False}))


def exchange(srv: Server, upstream_token: str, **params: Any) -> httpx.Response:
    with httpx.Client(base_url=srv.base_url, timeout=30) as c:
        return c.get("/sts/exchange", params=params, headers={"authorization": f"Bearer {upstream_token}"})


def refused(r: httpx.Response) -> None:
    assert r.status_code == 401, r.text
    assert r.json()["message"] == REFUSED, r.text


def person(srv: Server, issuer: str, sub: str) -> str:
    """The uid the person (issuer, sub) has as a user: what lookupIdentity announces."""
    r = ok(srv.http.get("/iam/v2/identities:lookupIdentity", params={"issuer": issuer, "subject": sub}))
    return str(r["uid"])


def owner_of_new_org(srv: Server, uid: str) -> str:
    """A new organization A with the user `uid` bound as its owner."""
    org = str(mk_group(srv.http, "", unique("org-a"))["uid"])
    ok(srv.http.post(f"/iam/v2/roleBindings/{org}", json={"identityUid": uid, "roleUid": OWNER}))
    return org


def mallorys_idp(srv: Server, issuer: str, client_id: str, **fields: Any) -> tuple[str, str]:
    """Organization B with an identity provider for `issuer` and `client_id` (whatever Mallory typed)."""
    org_b = str(mk_group(srv.http, "", unique("org-b"))["uid"])
    body = {"name": unique("sso"), "defaultRole": VIEWER,
            "oidc": {"issuer": issuer, "clientId": client_id, "pkceEnabled": True}, **fields}  # fmt: skip
    idp = ok(srv.http.post(f"/iam/v2/identityProviders/{org_b}", json=body))
    return org_b, str(idp["uid"])


def assert_confined(srv: Server, token: str, org_a: str, org_b: str, victim: str, idp: str, sub: str) -> None:
    """The token is the provider's own identity in B: not the victim, nothing in A, not even bindable there."""
    got = decoded(token)["sub"]
    assert got != victim
    assert got == matching.member_uid(idp, sub) and got.startswith(org_b + "/"), (got, org_b)
    with srv.client(token) as c:
        assert c.get(f"/iam/v2/groups/{org_a}").status_code == 404
        r = c.post(f"/iam/v2/roleBindings/{org_a}", json={"identityUid": got, "roleUid": OWNER})
        assert r.status_code == 404, r.text
        assert c.get(f"/iam/v2/groups/{org_b}").status_code == 200  # the provider's default role, in B
    # And the owner of A cannot bind it in A either: it lives in B.
    r = srv.http.post(f"/iam/v2/roleBindings/{org_a}", json={"identityUid": got, "roleUid": VIEWER})
    assert r.status_code in (400, 404), r.text


# ---------------------------------------------------------------------- 1. no takeover through a provider


def test_an_organizations_provider_cannot_yield_a_persons_identity(srv: Server, upstream: Upstream) -> None:
    sub = "alice-" + secrets.token_hex(3)
    alice = person(srv, upstream.issuer, sub)
    # Alice's own exchange registers her, and she owns A.
    mine = exchange(srv, upstream.token(sub, "localhost"))
    assert mine.status_code == 200, mine.text
    assert decoded(mine.json()["token"])["sub"] == alice
    org_a = owner_of_new_org(srv, alice)
    org_b, idp = mallorys_idp(srv, upstream.issuer, "evilapp")
    stolen = upstream.token(sub, "evilapp", email="alice@example.com", email_verified=True)
    r = exchange(srv, stolen, identity_provider=idp)
    assert r.status_code == 200, r.text
    assert_confined(srv, r.json()["token"], org_a, org_b, alice, idp, sub)
    # Its first login made it, with the provider's default role in B and nothing else.
    bindings = ok(srv.http.get("/iam/v2/roleBindings", params={"identity": matching.member_uid(idp, sub)}))
    assert [(b["group"]["uid"], b["role"]["uid"]) for b in bindings["roleBindings"]] == [(org_b, VIEWER)]
    # Naming the victim with the provider's token is refused as any other token is.
    refused(exchange(srv, stolen, identity=alice))


def test_the_same_over_grpc(srv: Server, upstream: Upstream) -> None:
    sub = "alice-" + secrets.token_hex(3)
    alice = person(srv, upstream.issuer, sub)
    assert exchange(srv, upstream.token(sub, "localhost")).status_code == 200
    org_a = owner_of_new_org(srv, alice)
    org_b, idp = mallorys_idp(srv, upstream.issuer, "evilapp")
    ch = srv.grpc_channel(None)
    try:
        stub = oidc_pb2_grpc.SecurityTokenServiceStub(ch)
        stolen = upstream.token(sub, "evilapp")
        answer = stub.Exchange(oidc_pb2.ExchangeRequest(identity_provider=idp),
                               metadata=[("authorization", f"Bearer {stolen}")], timeout=30)  # fmt: skip
        assert_confined(srv, answer.token, org_a, org_b, alice, idp, sub)
        with pytest.raises(grpc.RpcError) as e:
            stub.Exchange(oidc_pb2.ExchangeRequest(identity=alice),
                          metadata=[("authorization", f"Bearer {stolen}")], timeout=30)  # fmt: skip
        assert e.value.code() == grpc.StatusCode.UNAUTHENTICATED
    finally:
        ch.close()


def test_nor_through_the_browser_login(srv: Server, provider: Provider) -> None:
    """Mallory's provider names the server's own login issuer and her app there; Alice signs in to it."""
    name = "alice" + secrets.token_hex(3)
    provider.add_user(name, f"{name}@example.com")
    # Alice signs in at the server's provider: her user identity, owner of A.
    mine = callback_params(complete(oauth(srv), user=name))
    alice = decoded(mine["token"])["sub"]
    assert alice == matching.user_uid(provider.issuer, provider.users[name].sub)
    org_a = owner_of_new_org(srv, alice)
    org_b, idp = mallorys_idp(srv, provider.issuer, "evilapp")
    theirs = callback_params(complete(oauth(srv, idp_id=idp), user=name))
    assert "token" in theirs, theirs
    assert_confined(srv, theirs["token"], org_a, org_b, alice, idp, provider.users[name].sub)


def oauth(srv: Server, **params: str) -> str:
    query = httpx.QueryParams({"redirect": CALLBACK, **params})
    return f"{srv.base_url}/oauth?{query}"


# ---------------------------------------------------------------------- 4. e-mail counts from trusted issuers only


def test_an_untrusted_providers_email_is_unverified_and_redeems_no_invite(srv: Server, corp: Upstream) -> None:
    org_a = str(mk_group(srv.http, "", unique("org-a"))["uid"])
    invite = ok(srv.http.post(f"/iam/v2/groupInvites/{org_a}",
                              json={"roleUid": VIEWER, "ttl": "3600s", "email": "someone@acme.com"}))  # fmt: skip
    org_b, idp = mallorys_idp(srv, corp.issuer, "corp-app")
    sub = "m-" + secrets.token_hex(3)
    token = corp.token(sub, "corp-app", email="someone@acme.com", email_verified=True)
    r = exchange(srv, token, identity_provider=idp)
    assert r.status_code == 200, r.text
    uid = decoded(r.json()["token"])["sub"]
    shown = ok(srv.http.get(f"/iam/v2/identities/{uid}"))
    assert shown.get("email", "") == "" and shown["emailUnverified"] == "someone@acme.com", shown
    # Redeeming A's invite for that address with it: refused, nothing bound in A.
    with httpx.Client(base_url=srv.base_url, timeout=30) as c:
        red = c.post("/auth/v1/register", json={"code": invite["code"]},
                     headers={"authorization": f"Bearer {r.json()['token']}"})  # fmt: skip
    assert red.status_code == 403, red.text
    bound = ok(srv.http.get("/iam/v2/roleBindings", params={"identity": uid}))["roleBindings"]
    assert [b["group"]["uid"] for b in bound] == [org_b]


def test_the_invite_through_the_browser_login_of_an_untrusted_provider(srv: Server, provider: Provider) -> None:
    """`/oauth?idp_id=<Mallory's provider>&invite=<A's invite for someone@acme.com>`: not a member of A. Here the
    provider's issuer is the server's own login issuer, so the e-mail is verified, yet the identity is B's."""
    org_a = str(mk_group(srv.http, "", unique("org-a"))["uid"])
    email = f"j{secrets.token_hex(3)}@acme.com"
    invite = ok(srv.http.post(f"/iam/v2/groupInvites/{org_a}",
                              json={"roleUid": VIEWER, "ttl": "3600s", "email": email}))  # fmt: skip
    _, idp = mallorys_idp(srv, provider.issuer, "evilapp")
    name = "m" + secrets.token_hex(3)
    provider.add_user(name, email)
    final = callback_params(complete(oauth(srv, idp_id=idp, invite=invite["code"]), user=name))
    assert "token" not in final and final["error"] == "PERMISSION_DENIED", final
    uid = matching.member_uid(idp, provider.users[name].sub)
    bound = ok(srv.http.get("/iam/v2/roleBindings", params={"uidp.descendants_of": org_a}))["roleBindings"]
    assert uid not in [b["identity"]["uid"] for b in bound]


def test_a_trusted_issuers_verified_email_redeems_its_invite(srv: Server, upstream: Upstream) -> None:
    org_a = str(mk_group(srv.http, "", unique("org-a"))["uid"])
    invite = ok(srv.http.post(f"/iam/v2/groupInvites/{org_a}",
                              json={"roleUid": VIEWER, "ttl": "3600s", "email": "dev@EXAMPLE.com"}))  # fmt: skip

    def register(sub: str, **claims: Any) -> httpx.Response:
        token = upstream.token(sub, "localhost", email="Dev@Example.com", **claims)
        with httpx.Client(base_url=srv.base_url, timeout=30) as c:
            return c.post("/auth/v1/register", json={"code": invite["code"]},
                          headers={"authorization": f"Bearer {token}"})  # fmt: skip

    # Registered unverified (the upstream does not say it verified the address): refused.
    assert register("dev-" + secrets.token_hex(3)).status_code == 403
    sub = "dev-" + secrets.token_hex(3)
    r = register(sub, email_verified=True)
    assert r.status_code == 200, r.text
    assert r.json() == {"identity": person(srv, upstream.issuer, sub), "group": org_a}


# ---------------------------------------------------------------------- 5. shadow identities change nothing


def test_a_shadow_identity_in_another_org_does_not_change_a_persons_exchange(srv: Server, upstream: Upstream) -> None:
    sub = "alice-" + secrets.token_hex(3)
    alice = person(srv, upstream.issuer, sub)
    org_b = str(mk_group(srv.http, "", unique("org-b"))["uid"])
    # Before and after Alice's first exchange, a shadow in B that accepts her tokens.
    shadow = ok(
        srv.http.post(
            f"/iam/v2/identities/{org_b}",
            json={"name": "shadow", "claimMatch": {"issuer": upstream.issuer, "subject": sub}},
        )
    )
    for _ in range(2):
        r = exchange(srv, upstream.token(sub, "localhost"))
        assert r.status_code == 200, r.text
        assert decoded(r.json()["token"])["sub"] == alice
    # The shadow is still B's to assume by name.
    r = exchange(srv, upstream.token(sub, "localhost"), identity=shadow["uid"])
    assert r.status_code == 200, r.text
    assert decoded(r.json()["token"])["sub"] == shadow["uid"]


# ---------------------------------------------------------------------- 9. WhoAmI answers what the token may do


def test_whoami_of_a_narrowed_token(srv: Server, upstream: Upstream) -> None:
    sub = "alice-" + secrets.token_hex(3)
    alice = person(srv, upstream.issuer, sub)
    org_a, org_c = owner_of_new_org(srv, alice), owner_of_new_org(srv, alice)
    team = str(mk_group(srv.http, org_a, "team")["uid"])
    r = exchange(srv, upstream.token(sub, "localhost"), scopes=team, cap="repo.list")
    assert r.status_code == 200, r.text
    with srv.client(r.json()["token"]) as c:
        me = ok(c.get("/auth/v1/ok"))
    entries = me["capabilities"]
    assert [e["group"]["id"] for e in entries] == [team], entries
    assert org_c not in str(me)
    assert entries[0]["capabilities"] == ["repo.list"] and entries[0]["role"]["capabilities"] == ["repo.list"]
    # The whole token: both organizations, every owner capability.
    r = exchange(srv, upstream.token(sub, "localhost"))
    with srv.client(r.json()["token"]) as c:
        me = ok(c.get("/auth/v1/ok"))
    assert sorted(e["group"]["id"] for e in me["capabilities"]) == sorted([org_a, org_c])
    assert len(me["capabilities"][0]["capabilities"]) > 20


# ---------------------------------------------------------------------- 12. NUL and empty subjects refused


@pytest.mark.parametrize(
    "claims",
    [{"sub": "a\x00b"}, {"sub": ""}, {"sub": "   "}, {"email": "x\x00@example.com"}, {"groups": ["ok", "n\x00"]}],
    ids=["nul-sub", "empty-sub", "blank-sub", "nul-email", "nul-in-list"],
)
def test_bad_claims_refused_at_the_exchange(srv: Server, upstream: Upstream, claims: dict[str, Any]) -> None:
    extra = {k: v for k, v in claims.items() if k != "sub"}
    refused(exchange(srv, upstream.token(claims.get("sub", "nul-" + secrets.token_hex(3)), "localhost", **extra)))


@pytest.mark.parametrize(
    "tamper",
    [{"sub": "a\x00b"}, {"sub": ""}, {"email": "x\x00@example.com"}],
    ids=["nul-sub", "empty-sub", "nul-email"],
)
def test_bad_claims_refused_at_the_login(srv: Server, provider: Provider, tamper: dict[str, Any]) -> None:
    name = "n" + secrets.token_hex(3)
    provider.add_user(name, f"{name}@example.com")
    provider.tamper = tamper
    try:
        final = callback_params(complete(oauth(srv), user=name))
    finally:
        provider.tamper = {}
    assert "token" not in final and final["error"] == "UNAUTHENTICATED", final

    async def stored(db: Any) -> int:
        return int(await db.fetchval("SELECT COUNT(*) FROM identities WHERE body LIKE $1", f"%{name}%"))

    assert run_db(srv, stored) == 0
