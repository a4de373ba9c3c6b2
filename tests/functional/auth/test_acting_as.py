"""Changing who can act as an identity is acting as it (issue 8, findings 1, 2, 3, 10, 12b).

A change to what decides a login (an identity's claimMatch or staticKeys; an identity provider's OIDC
settings) needs the caller to hold, where it applies, every capability that login could obtain. The
matrices below compute their expectations from the roles' capabilities as the API shows them: a change is
allowed exactly when the target's capabilities are a subset of the caller's.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Iterator
from typing import Any

import httpx
import jwt
import pytest

from tests.helpers import (
    BACKENDS,
    BUILTIN_ROLE_UIDS,
    Server,
    Upstream,
    mk_group,
    mk_org,
    new_key,
    start_server,
    stop_server,
)

TARGET_ROLES = ["", "viewer", "editor", "owner"]
CHANGES = ["static_keys", "claim_match", "name"]
EXTRA = ["CAP_IAM_IDENTITY_UPDATE", "CAP_IAM_IDENTITY_LIST"]


@pytest.fixture(scope="module", params=BACKENDS)
def srv(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, upstream: Upstream
) -> Iterator[Server]:
    s = start_server(request.param, tmp_path_factory.mktemp("acting"), "--insecure-allow-loopback",
                     "--no-dispatcher", "--trusted-issuer", upstream.issuer)  # fmt: skip
    yield s
    stop_server(s)


def ok(r: httpx.Response) -> Any:
    assert r.status_code == 200, r.text
    return r.json()


def caps_of(srv: Server, role_uid: str) -> set[str]:
    return set(ok(srv.http.get(f"/iam/v2/roles/{role_uid}"))["capabilities"])


def custom_role(srv: Server, org: str, capabilities: set[str]) -> str:
    body = {"name": "r-" + secrets.token_hex(4), "capabilities": sorted(capabilities)}
    return str(ok(srv.http.post(f"/iam/v2/roles/{org}", json=body))["uid"])


def static_keys(jwk: dict[str, Any], issuer: str, subject: str) -> dict[str, Any]:
    return {"issuer": issuer, "subject": subject, "issuerKeys": json.dumps({"keys": [jwk]}), "audiences": ["mine"]}


def exchange(srv: Server, token: str, **params: str) -> httpx.Response:
    with httpx.Client(base_url=srv.base_url, timeout=20) as c:
        return c.get("/sts/exchange", params=params, headers={"authorization": f"Bearer {token}"})


# ---------------------------------------------------------------------------------------------- identities


@pytest.fixture(scope="module")
def identity_matrix(srv: Server) -> dict[str, Any]:
    """One organization, callers holding IDENTITY_UPDATE plus nothing / viewer / editor / owner."""
    org = mk_org(srv.http)
    callers: dict[str, tuple[set[str], str]] = {}
    for base in ["", "viewer", "editor", "owner"]:
        held = (caps_of(srv, BUILTIN_ROLE_UIDS[base]) if base else set()) | set(EXTRA)
        role = custom_role(srv, org, held)
        _, token = srv.identity_with_role(org, role)
        callers[base or "updater"] = (held, token)
    return {"org": org, "callers": callers}


@pytest.mark.parametrize("change", CHANGES)
@pytest.mark.parametrize("target_role", TARGET_ROLES)
@pytest.mark.parametrize("caller", ["updater", "viewer", "editor", "owner"])
def test_identity_login_changes_need_what_the_identity_holds(
    srv: Server, identity_matrix: dict[str, Any], caller: str, target_role: str, change: str
) -> None:
    org = identity_matrix["org"]
    held, token = identity_matrix["callers"][caller]
    target = ok(
        srv.http.post(
            f"/iam/v2/identities/{org}",
            json={
                "name": "t-" + secrets.token_hex(3),
                "claimMatch": {"issuer": "https://issuer.example", "subject": "s"},
            },
        )
    )
    if target_role:
        ok(
            srv.http.post(
                f"/iam/v2/roleBindings/{org}",
                json={"identityUid": target["uid"], "roleUid": BUILTIN_ROLE_UIDS[target_role]},
            )
        )
    target_caps = caps_of(srv, BUILTIN_ROLE_UIDS[target_role]) if target_role else set()
    _, jwk = new_key()
    patch = {
        "static_keys": {"staticKeys": static_keys(jwk, "https://mine.example", "me")},
        "claim_match": {"claimMatch": {"issuer": "https://mine.example", "subject": "me"}},
        "name": {"name": "renamed-" + secrets.token_hex(3)},
    }[change]
    with srv.client(token) as c:
        r = c.patch(f"/iam/v2/identities/{target['uid']}", json=patch)
    allowed = change == "name" or target_caps <= held
    assert r.status_code == (200 if allowed else 403), (caller, target_role, change, r.text)
    if not allowed:
        assert r.json()["code"] == 7 and "logs in" in r.json()["message"]
        after = ok(srv.http.get(f"/iam/v2/identities/{target['uid']}"))
        assert after["claimMatch"] == target["claimMatch"] and "staticKeys" not in after


def test_taking_over_an_owner_through_its_static_keys_is_refused(srv: Server) -> None:
    """Finding 1 end to end: IDENTITY_UPDATE alone, pointing an owner's staticKeys at the caller's key."""
    org = mk_org(srv.http)
    role = custom_role(srv, org, set(EXTRA))
    _, token = srv.identity_with_role(org, role)
    victim = ok(
        srv.http.post(
            f"/iam/v2/identities/{org}",
            json={"name": "victim", "claimMatch": {"issuer": "https://issuer.example", "subject": "v"}},
        )
    )["uid"]
    ok(
        srv.http.post(
            f"/iam/v2/roleBindings/{org}", json={"identityUid": victim, "roleUid": BUILTIN_ROLE_UIDS["owner"]}
        )
    )
    key, jwk = new_key()
    issuer = "https://attacker.example/" + secrets.token_hex(3)
    with srv.client(token) as c:
        r = c.patch(f"/iam/v2/identities/{victim}", json={"staticKeys": static_keys(jwk, issuer, "me")})
    assert r.status_code == 403, r.text
    now = int(time.time())
    forged = jwt.encode({"iss": issuer, "sub": "me", "aud": "mine", "iat": now, "exp": now + 300}, key, "RS256",
                        headers={"kid": jwk["kid"]})  # fmt: skip
    assert exchange(srv, forged, identity=victim).status_code == 401
    # The owner may do it, and then the key works: the refusal above is the rule, not a broken feature.
    ok(srv.http.patch(f"/iam/v2/identities/{victim}", json={"staticKeys": static_keys(jwk, issuer, "me")}))
    assert exchange(srv, forged, identity=victim).status_code == 200


# ------------------------------------------------------------------------------------- identity providers


def test_identity_provider_login_changes_need_what_its_logins_obtain(srv: Server, upstream: Upstream) -> None:
    """Finding 2: with IDENTITY_PROVIDERS_UPDATE/LIST and ROLE_BINDINGS_CREATE, pointing an owner-granting
    provider at one's own issuer was accepted."""
    org = mk_org(srv.http)
    oidc = {"issuer": "https://sso.example", "clientId": "console", "clientSecret": "s", "groupsClaim": "groups"}
    idp = ok(
        srv.http.post(
            f"/iam/v2/identityProviders/{org}",
            json={"name": "sso", "defaultRole": BUILTIN_ROLE_UIDS["viewer"], "oidc": oidc},
        )
    )["uid"]
    viewer = caps_of(srv, BUILTIN_ROLE_UIDS["viewer"])
    held = viewer | {"CAP_IAM_IDENTITY_PROVIDERS_UPDATE", "CAP_IAM_IDENTITY_PROVIDERS_LIST",
                     "CAP_IAM_ROLE_BINDINGS_CREATE"}  # fmt: skip
    _, token = srv.identity_with_role(org, custom_role(srv, org, held))
    c = srv.client(token)

    def patch(body: dict[str, Any]) -> httpx.Response:
        return c.patch(f"/iam/v2/identityProviders/{idp}", json=body)

    mine = {**oidc, "issuer": upstream.issuer}
    # Logins obtain only viewer, which the caller holds: it may repoint the provider.
    assert patch({"oidc": mine}).status_code == 200
    assert patch({"oidc": oidc}).status_code == 200
    # A mapping handing out editor (made by the owner) raises the stakes of every login through it.
    ok(
        srv.http.post(
            f"/iam/v2/externalGroupRoleMappings/{idp}",
            json={"externalGroupId": "admins", "roleUid": BUILTIN_ROLE_UIDS["editor"], "scope": org},
        )
    )
    for change in ({"issuer": upstream.issuer}, {"clientId": "other"}, {"groupsClaim": "roles"}):
        r = patch({"oidc": {**oidc, **change}})
        assert r.status_code == 403 and "log in" in r.json()["message"], (change, r.text)
    assert patch({"name": "renamed"}).status_code == 200  # not a login setting
    assert patch({"defaultRole": BUILTIN_ROLE_UIDS["owner"]}).status_code == 403
    assert ok(srv.http.get(f"/iam/v2/identityProviders/{idp}"))["oidc"]["issuer"] == oidc["issuer"]
    # The login the attacker wanted: refused, since the provider still names the old issuer.
    sub = "attacker-" + secrets.token_hex(3)
    token_up = upstream.token(sub, "console", groups=["admins"])
    assert exchange(srv, token_up, identity_provider=idp).status_code == 401
    c.close()


# -------------------------------------------------------------------------------------------- patterns


def test_patterns_are_re2_and_cannot_stall_the_server(srv: Server) -> None:
    """Finding 3: `(a+)+b` against an unverified `iss` of "a"*26 blocked the event loop for seconds, each
    extra character doubling it; with RE2 a 4,000-character issuer is refused at once."""
    org = mk_org(srv.http)
    ok(
        srv.http.post(
            f"/iam/v2/identities/{org}",
            json={"name": "redos", "claimMatch": {"issuerPattern": "(a+)+b", "subjectPattern": ".*"}},
        )
    )
    unsigned = jwt.encode({"iss": "a" * 60, "sub": "x", "exp": int(time.time()) + 60}, "k" * 32, "HS256")
    assert exchange(srv, unsigned).status_code == 401  # with Python's re: 2^60 steps, the client times out
    assert httpx.get(srv.base_url + "/ping/v2/ping", timeout=5).status_code == 200
    for pattern in ["(a)\\1", "(?=a)b", "x" * 1025]:
        r = srv.http.post(
            f"/iam/v2/identities/{org}",
            json={"name": "bad", "claimMatch": {"issuer": "https://i.example", "subjectPattern": pattern}},
        )
        assert r.status_code == 400 and r.json()["code"] == 3, (pattern, r.text)
        violation = r.json()["details"][1]["fieldViolations"][0]
        assert violation["field"] == "claim_match.subject_pattern", r.text


# ----------------------------------------------------------------------------------------- static keys


def test_static_keys_hold_public_asymmetric_keys_only(srv: Server) -> None:
    """Finding 12b: a symmetric JWK is a shared secret, readable by whoever may list identities."""
    org = mk_org(srv.http)
    _, jwk = new_key()
    for bad in ({"kty": "oct", "k": "c2VjcmV0", "kid": "h"}, {**jwk, "p": "AQAB"}, {**jwk, "kty": "XYZ"}):
        body = {"name": "k", "staticKeys": {"issuer": "https://i.example", "subject": "s",
                                            "issuerKeys": json.dumps({"keys": [bad]})}}  # fmt: skip
        r = srv.http.post(f"/iam/v2/identities/{org}", json=body)
        assert r.status_code == 400 and r.json()["code"] == 3, (bad, r.text)
    body["staticKeys"]["issuerKeys"] = json.dumps({"keys": [jwk]})
    ok(srv.http.post(f"/iam/v2/identities/{org}", json=body))


# -------------------------------------------------------------------------------------- role bindings


def _register(srv: Server, upstream: Upstream, sub: str) -> str:
    """A user identity (root-level), registered by its first login through the trusted issuer."""
    r = exchange(srv, upstream.token(sub, "localhost", email=f"{sub}@example.com", email_verified=True))
    return str(jwt.decode(ok(r)["token"], options={"verify_signature": False})["sub"])


def test_binding_unknown_or_unseen_identities_tells_nothing(srv: Server, upstream: Upstream) -> None:
    """Finding 10: a binding answer showed the name of another organization's owner, while an unknown uid
    answered differently (an existence oracle)."""
    org_a, org_b = mk_org(srv.http), mk_org(srv.http)
    viewer = BUILTIN_ROLE_UIDS["viewer"]
    _, confined = srv.identity_with_role(org_b, "owner")
    a_bot = ok(
        srv.http.post(
            f"/iam/v2/identities/{org_a}",
            json={"name": "a-bot", "claimMatch": {"issuer": "https://issuer.example", "subject": "a"}},
        )
    )["uid"]
    sub_b = mk_group(srv.http, org_b, "team")["uid"]
    b_bot = ok(
        srv.http.post(
            f"/iam/v2/identities/{org_b}",
            json={"name": "b-bot", "claimMatch": {"issuer": "https://issuer.example", "subject": "b"}},
        )
    )["uid"]
    _, team_owner = srv.identity_with_role(sub_b, "owner")
    unknown = secrets.token_hex(20)
    with srv.client(confined) as c:
        # Root-level identities, registered or not, and identities of other organizations: all alike.
        answers = []
        for uid in (srv.owner, unknown, a_bot, org_a + "/" + secrets.token_hex(8)):
            r = c.post(f"/iam/v2/roleBindings/{org_b}", json={"identityUid": uid, "roleUid": viewer})
            assert r.status_code == 404, r.text
            answers.append(r.json()["message"].replace(uid, "<uid>"))
        assert len(set(answers)) == 1, answers
    with srv.client(team_owner) as c:
        # Confined to a sub-group: the organization-level identity above it is out of reach too.
        r = c.post(f"/iam/v2/roleBindings/{sub_b}", json={"identityUid": b_bot, "roleUid": viewer})
        assert r.status_code == 404, r.text

    # An unconfined owner may bind users by uid before (or after) they register (lookupIdentity), but the
    # answer shows nobody's name or e-mail until the user logs in holding the binding.
    sub = "user-" + secrets.token_hex(3)
    user = _register(srv, upstream, sub)
    shapes = []
    for uid in (user, secrets.token_hex(20)):
        rb = ok(srv.http.post(f"/iam/v2/roleBindings/{org_b}", json={"identityUid": uid, "roleUid": viewer}))
        assert rb["identity"] == {"uid": uid}, rb
        shapes.append(sorted(rb))
    assert shapes[0] == shapes[1]
    listed = ok(srv.http.get("/iam/v2/roleBindings", params={"identity": user}))["roleBindings"]
    assert [b["identity"] for b in listed] == [{"uid": user}]
    _register(srv, upstream, sub)  # the user logs in, holding the binding
    listed = ok(srv.http.get("/iam/v2/roleBindings", params={"identity": user}))["roleBindings"]
    assert listed[0]["identity"]["email"] == f"{sub}@example.com"
