"""The token exchange and registration over gRPC (chainguard.platform.oidc.SecurityTokenService,
chainguard.platform.auth.Auth), as the vendor's SDK calls them: the upstream (or refresh) token as the
`authorization: Bearer` metadata. Same implementation as /sts/exchange, /sts/exchange_refresh_token and
/auth/v1/register, so the same answers, errors and rate limit; on both storage backends.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterator
from typing import Any

import grpc
import httpx
import jwt
import pytest
from google.protobuf import json_format
from google.rpc import error_details_pb2

from platform_api.gen.chainguard.platform.auth import auth_pb2, auth_pb2_grpc
from platform_api.gen.chainguard.platform.iam.v2 import groups_pb2, groups_pb2_grpc
from platform_api.gen.chainguard.platform.oidc import oidc_pb2, oidc_pb2_grpc
from tests.helpers import (
    BACKENDS,
    BUILTIN_ROLE_UIDS,
    Server,
    Upstream,
    error_info,
    rpc_error,
    start_server,
    stop_server,
)

TIMEOUT = 30
REFUSED = "Unauthenticated: token exchange refused"


@pytest.fixture(scope="module", params=BACKENDS)
def srv(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, upstream: Upstream
) -> Iterator[Server]:
    s = start_server(request.param, tmp_path_factory.mktemp("grpc-sts"), "--insecure-allow-loopback",
                     "--trusted-issuer", upstream.issuer)  # fmt: skip
    yield s
    stop_server(s)


@pytest.fixture(scope="module")
def channel(srv: Server) -> Iterator[grpc.Channel]:
    """No interceptor: each call sends its own bearer, as the SDK does."""
    ch = srv.grpc_channel(None)
    yield ch
    ch.close()


@pytest.fixture
def sts(channel: grpc.Channel) -> oidc_pb2_grpc.SecurityTokenServiceStub:
    return oidc_pb2_grpc.SecurityTokenServiceStub(channel)


@pytest.fixture
def auth(channel: grpc.Channel) -> auth_pb2_grpc.AuthStub:
    return auth_pb2_grpc.AuthStub(channel)


@pytest.fixture
def org(srv: Server) -> str:
    r = srv.http.post("/iam/v2/groups/", json={"name": "org-" + secrets.token_hex(4)})
    assert r.status_code == 200, r.text
    return str(r.json()["uid"])


def bearer(token: str) -> list[tuple[str, str]]:
    return [("authorization", f"Bearer {token}")]


def mk_identity(srv: Server, org: str, upstream: Upstream, sub: str, role: str = "viewer") -> str:
    body = {"name": "bot-" + secrets.token_hex(3), "claimMatch": {"issuer": upstream.issuer, "subject": sub}}
    r = srv.http.post(f"/iam/v2/identities/{org}", json=body)
    assert r.status_code == 200, r.text
    uid = str(r.json()["uid"])
    r = srv.http.post(f"/iam/v2/roleBindings/{org}", json={"identityUid": uid, "roleUid": BUILTIN_ROLE_UIDS[role]})
    assert r.status_code == 200, r.text
    return uid


def mk_person(srv: Server, org: str, upstream: Upstream, sub: str, role: str = "viewer") -> str:
    """A person of the trusted issuer (their user identity, bound `role` in `org` before their first login): only
    people's logins get refresh tokens."""
    r = srv.http.get("/iam/v2/identities:lookupIdentity", params={"issuer": upstream.issuer, "subject": sub})
    uid = str(r.json()["uid"])
    r = srv.http.post(f"/iam/v2/roleBindings/{org}", json={"identityUid": uid, "roleUid": BUILTIN_ROLE_UIDS[role]})
    assert r.status_code == 200, r.text
    return uid


def assert_unauthenticated(call: Any, request: Any, metadata: Any, message: str = REFUSED) -> None:
    err, st = rpc_error(call, request, metadata, timeout=TIMEOUT)
    assert err.code() == grpc.StatusCode.UNAUTHENTICATED, (err.code(), err.details())
    assert st.message == message
    assert error_info(st).reason == "UNAUTHENTICATED"


def can_read_grpc(srv: Server, token: str, group: str) -> bool:
    with srv.grpc_channel(token) as ch:
        try:
            groups_pb2_grpc.GroupsServiceStub(ch).GetGroup(groups_pb2.GetGroupRequest(uid=group), timeout=TIMEOUT)
        except grpc.RpcError as e:
            assert e.code() == grpc.StatusCode.NOT_FOUND, (e.code(), e.details())
            return False
    return True


def can_read_http(srv: Server, token: str, group: str) -> bool:
    with srv.client(token) as c:
        r = c.get(f"/iam/v2/groups/{group}")
    assert r.status_code in (200, 404), r.text
    return r.status_code == 200


# ------------------------------------------------------------------------------------------ Exchange


def test_exchange_token_works_over_grpc_and_http(
    srv: Server, sts: oidc_pb2_grpc.SecurityTokenServiceStub, upstream: Upstream, org: str
) -> None:
    sub = "repo:acme/app:ref:refs/heads/" + secrets.token_hex(3)
    uid = mk_identity(srv, org, upstream, sub)
    before = time.time()
    raw: oidc_pb2.RawToken = sts.Exchange(
        oidc_pb2.ExchangeRequest(identity=uid), metadata=bearer(upstream.token(sub, "localhost")), timeout=TIMEOUT
    )
    assert raw.token and not raw.refresh_token  # a workload's exchange: no refresh token (issue 27 item 5)
    assert before + 3000 < raw.expiry.ToSeconds() <= time.time() + 3600 + 5
    claims = jwt.decode(raw.token, options={"verify_signature": False})
    assert claims["sub"] == uid and claims["act"]["sub"] == sub and claims["act"]["iss"] == upstream.issuer
    assert can_read_grpc(srv, raw.token, org)
    assert can_read_http(srv, raw.token, org)
    # Without `identity`, a trusted issuer's token is the person's own (their user identity), as over HTTP.
    found = sts.Exchange(oidc_pb2.ExchangeRequest(), metadata=bearer(upstream.token(sub, "localhost")), timeout=TIMEOUT)
    person = srv.http.get("/iam/v2/identities:lookupIdentity", params={"issuer": upstream.issuer, "subject": sub})
    assert jwt.decode(found.token, options={"verify_signature": False})["sub"] == person.json()["uid"] != uid


def test_scope_and_scopes_restrict_as_over_http(
    srv: Server, sts: oidc_pb2_grpc.SecurityTokenServiceStub, upstream: Upstream, org: str
) -> None:
    """`scope` (the contract's deprecated single scope) is added to `scopes`, as the HTTP route does."""
    r = srv.http.post(f"/iam/v2/groups/{org}", json={"name": "team"})
    assert r.status_code == 200, r.text
    team = r.json()["uid"]
    sub = "scoped-" + secrets.token_hex(3)
    uid = mk_identity(srv, org, upstream, sub)

    def grpc_scopes(**fields: Any) -> list[str]:
        raw = sts.Exchange(oidc_pb2.ExchangeRequest(identity=uid, **fields),
                           metadata=bearer(upstream.token(sub, "localhost")), timeout=TIMEOUT)  # fmt: skip
        return sorted(jwt.decode(raw.token, options={"verify_signature": False}).get("scopes", []))

    def http_scopes(**params: Any) -> list[str]:
        r = httpx.get(srv.base_url + "/sts/exchange", params={"identity": uid, **params},
                      headers={"authorization": f"Bearer {upstream.token(sub, 'localhost')}"})  # fmt: skip
        assert r.status_code == 200, r.text
        return sorted(jwt.decode(r.json()["token"], options={"verify_signature": False}).get("scopes", []))

    assert grpc_scopes(scope=team) == http_scopes(scope=team) == [team]
    assert grpc_scopes(scope=team, scopes=[org]) == http_scopes(scope=team, scopes=[org]) == sorted([org, team])
    assert grpc_scopes() == http_scopes() == []


def test_refused_tokens_are_unauthenticated(
    srv: Server, sts: oidc_pb2_grpc.SecurityTokenServiceStub, upstream: Upstream, org: str
) -> None:
    sub = "refused-" + secrets.token_hex(3)
    uid = mk_identity(srv, org, upstream, sub)
    ask = oidc_pb2.ExchangeRequest(identity=uid)
    assert_unauthenticated(sts.Exchange, ask, None, "Unauthenticated: missing bearer token")
    assert_unauthenticated(sts.Exchange, ask, [("authorization", "Basic abc")], "Unauthenticated: missing bearer token")
    assert_unauthenticated(sts.Exchange, ask, bearer("not-a-jwt"))
    assert_unauthenticated(sts.Exchange, ask, bearer(upstream.token("someone-else", "localhost")))
    assert_unauthenticated(sts.Exchange, ask, bearer(upstream.token(sub, "another-audience")))
    # Our own access token is not an upstream token for this identity either.
    assert_unauthenticated(sts.Exchange, ask, bearer(srv.token))
    # The same refusal as over HTTP.
    r = httpx.get(srv.base_url + "/sts/exchange", params={"identity": uid},
                  headers={"authorization": "Bearer not-a-jwt"})  # fmt: skip
    assert r.status_code == 401 and r.json()["message"] == REFUSED
    # Invalid parameters: the same INVALID_ARGUMENT, with the field named.
    ask_cap = oidc_pb2.ExchangeRequest(identity=uid, cap=["no.such.cap"])
    err, st = rpc_error(sts.Exchange, ask_cap, bearer(upstream.token(sub, "localhost")), timeout=TIMEOUT)
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
    bad = error_details_pb2.BadRequest()
    assert st.details[1].Unpack(bad) and bad.field_violations[0].field == "cap"
    # Two credentials are ambiguous: neither is taken.
    two = [*bearer("a"), *bearer("b")]
    err, _ = rpc_error(sts.Exchange, ask, two, timeout=TIMEOUT)
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT


# ------------------------------------------------------------------------------------------ refresh


def test_refresh_rotates_and_reuse_revokes_the_family(
    srv: Server, sts: oidc_pb2_grpc.SecurityTokenServiceStub, upstream: Upstream, org: str
) -> None:
    sub = "refresh-" + secrets.token_hex(3)
    uid = mk_person(srv, org, upstream, sub)
    first = sts.Exchange(oidc_pb2.ExchangeRequest(identity=uid), metadata=bearer(upstream.token(sub, "localhost")),
                         timeout=TIMEOUT)  # fmt: skip
    pair: oidc_pb2.TokenPair = sts.ExchangeRefreshToken(
        oidc_pb2.ExchangeRefreshTokenRequest(), metadata=bearer(first.refresh_token), timeout=TIMEOUT
    )
    assert pair.token.token and pair.token.expiry.ToSeconds() > time.time() + 3000
    assert pair.refresh_token.token.startswith("pat_rt_") and pair.refresh_token.token != first.refresh_token
    assert pair.refresh_token.expiry.ToSeconds() > time.time() + 6 * 24 * 3600
    assert jwt.decode(pair.token.token, options={"verify_signature": False})["sub"] == uid
    assert can_read_grpc(srv, pair.token.token, org) and can_read_http(srv, pair.token.token, org)
    # The rotated token is refreshed over HTTP: one family whatever the transport.
    r = httpx.post(srv.base_url + "/sts/exchange_refresh_token",
                   headers={"authorization": f"Bearer {pair.refresh_token.token}"})  # fmt: skip
    assert r.status_code == 200, r.text
    latest = r.json()["refreshToken"]["token"]
    # A spent refresh token comes back: the whole family is revoked, the latest one included.
    ask = oidc_pb2.ExchangeRefreshTokenRequest()
    assert_unauthenticated(sts.ExchangeRefreshToken, ask, bearer(first.refresh_token))
    assert_unauthenticated(sts.ExchangeRefreshToken, ask, bearer(latest))
    assert_unauthenticated(sts.ExchangeRefreshToken, ask, bearer("pat_rt_forged"))
    assert_unauthenticated(sts.ExchangeRefreshToken, ask, None, "Unauthenticated: missing bearer token")


def test_refresh_scope_narrows(
    srv: Server, sts: oidc_pb2_grpc.SecurityTokenServiceStub, upstream: Upstream, org: str
) -> None:
    sub = "narrow-" + secrets.token_hex(3)
    uid = mk_person(srv, org, upstream, sub)
    first = sts.Exchange(oidc_pb2.ExchangeRequest(identity=uid), metadata=bearer(upstream.token(sub, "localhost")),
                         timeout=TIMEOUT)  # fmt: skip
    pair = sts.ExchangeRefreshToken(oidc_pb2.ExchangeRefreshTokenRequest(scope=org),
                                    metadata=bearer(first.refresh_token), timeout=TIMEOUT)  # fmt: skip
    assert jwt.decode(pair.token.token, options={"verify_signature": False})["scopes"] == [org]


# ------------------------------------------------------------------------------------------ Register


def newcomer(srv: Server, home: str) -> tuple[str, str]:
    body = {"name": f"new-{secrets.token_hex(4)}",
            "claimMatch": {"issuer": "https://issuer.example", "subject": secrets.token_hex(8)}}  # fmt: skip
    r = srv.http.post(f"/iam/v2/identities/{home}", json=body)
    assert r.status_code == 200, r.text
    uid = str(r.json()["uid"])
    return uid, srv.mint(uid)


def mk_invite(srv: Server, group: str) -> str:
    r = srv.http.post(f"/iam/v2/groupInvites/{group}", json={"roleUid": BUILTIN_ROLE_UIDS["viewer"], "ttl": "3600s"})
    assert r.status_code == 200, r.text
    return str(r.json()["code"])


def test_register_redeems_an_invite_as_over_http(srv: Server, auth: auth_pb2_grpc.AuthStub, org: str) -> None:
    code = mk_invite(srv, org)
    uid, token = newcomer(srv, org)
    assert not can_read_grpc(srv, token, org)
    session: auth_pb2.Session = auth.Register(auth_pb2.RegistrationRequest(code=code), metadata=bearer(token),
                                              timeout=TIMEOUT)  # fmt: skip
    assert (session.identity, session.group) == (uid, org)
    assert can_read_grpc(srv, token, org)  # on the very next call
    # The same answer over HTTP for another newcomer and the same (multi-use) code.
    other, other_token = newcomer(srv, org)
    with srv.client(other_token) as c:
        r = c.post("/auth/v1/register", json={"code": code})
    assert r.status_code == 200 and r.json() == {"identity": other, "group": org}
    assert json_format.MessageToDict(session) == {"identity": uid, "group": org}
    # Redeeming again is a no-op; without a code, only who the caller is.
    again = auth.Register(auth_pb2.RegistrationRequest(code=code), metadata=bearer(token), timeout=TIMEOUT)
    assert (again.identity, again.group) == (uid, org)
    bare = auth.Register(auth_pb2.RegistrationRequest(), metadata=bearer(token), timeout=TIMEOUT)
    assert (bare.identity, bare.group) == (uid, "")
    # A bad code: the same NOT_FOUND as over HTTP.
    err, st = rpc_error(auth.Register, auth_pb2.RegistrationRequest(code="nope"), bearer(token), timeout=TIMEOUT)
    assert err.code() == grpc.StatusCode.NOT_FOUND
    with srv.client(token) as c:
        assert c.post("/auth/v1/register", json={"code": "nope"}).json()["message"] == st.message
    assert_unauthenticated(auth.Register, auth_pb2.RegistrationRequest(code=code), bearer("nope"),
                           "Unauthenticated: invalid or expired token")  # fmt: skip
    assert_unauthenticated(auth.Register, auth_pb2.RegistrationRequest(code=code), None,
                           "Unauthenticated: missing bearer token")  # fmt: skip


def test_register_on_first_contact(
    srv: Server, auth: auth_pb2_grpc.AuthStub, sts: oidc_pb2_grpc.SecurityTokenServiceStub, upstream: Upstream,
    org: str,
) -> None:  # fmt: skip
    """A trusted issuer's user registers with its upstream token and redeems the invite in one call."""
    code = mk_invite(srv, org)
    sub = "newcomer-" + secrets.token_hex(3)
    session = auth.Register(auth_pb2.RegistrationRequest(code=code),
                            metadata=bearer(upstream.token(sub, "localhost")), timeout=TIMEOUT)  # fmt: skip
    user = srv.http.get("/iam/v2/identities:lookupIdentity", params={"issuer": upstream.issuer, "subject": sub})
    assert (session.identity, session.group) == (user.json()["uid"], org)
    raw = sts.Exchange(oidc_pb2.ExchangeRequest(), metadata=bearer(upstream.token(sub, "localhost")), timeout=TIMEOUT)
    assert can_read_grpc(srv, raw.token, org)


# ------------------------------------------------------------------------------------------ rate limit


@pytest.fixture(scope="module", params=BACKENDS)
def limited(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    # One token every 5 s, burst 3: the 4th request in a row is refused.
    s = start_server(request.param, tmp_path_factory.mktemp("grpc-ratelimit"), "--sts-rate", "0.2", "--sts-burst", "3")
    yield s
    stop_server(s)


def assert_limited(call: Any, request: Any, metadata: Any) -> None:
    err, st = rpc_error(call, request, metadata, timeout=TIMEOUT)
    assert err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED, (err.code(), err.details())
    info = error_info(st)
    assert info.reason == "RATE_LIMITED" and info.domain, info
    assert int(info.metadata["retryAfterSeconds"]) >= 1


def test_rate_limit_over_grpc(limited: Server) -> None:
    with limited.grpc_channel(None) as ch:
        sts = oidc_pb2_grpc.SecurityTokenServiceStub(ch)
        auth = auth_pb2_grpc.AuthStub(ch)
        # Refused tokens count too: the limit is on attempts, before any token is looked at.
        for _ in range(3):
            assert_unauthenticated(sts.Exchange, oidc_pb2.ExchangeRequest(), bearer("x"))
        assert_limited(sts.Exchange, oidc_pb2.ExchangeRequest(), bearer("x"))
        # The same address's bucket covers refresh and registration, over either transport.
        assert_limited(sts.ExchangeRefreshToken, oidc_pb2.ExchangeRefreshTokenRequest(), bearer("x"))
        assert_limited(auth.Register, auth_pb2.RegistrationRequest(), bearer("x"))
    r = httpx.get(limited.base_url + "/sts/exchange", headers={"authorization": "Bearer x"})
    assert r.status_code == 429 and r.json()["details"][0]["reason"] == "RATE_LIMITED", r.text
    # The API itself is not limited.
    groups = groups_pb2_grpc.GroupsServiceStub(limited.channel)
    assert groups.GetGroup(groups_pb2.GetGroupRequest(uid=limited.owner_org), timeout=TIMEOUT).uid == limited.owner_org
