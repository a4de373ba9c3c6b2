"""E-mail domains compare as IDNA2008 writes them (issue 26, item 14): a person at `straße.example` is not
eligible for the organization that verified `strasse.example` (IDNA2003 mapped ß to ss), and an e-mail whose
domain carries a zero-width space is eligible for no organization (IDNA2003 dropped it). LookupGroup and
CheckEligibility over HTTP and gRPC, on both backends; the tokens come from a trusted issuer on loopback."""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator

import grpc
import httpx
import pytest

from platform_api.gen.chainguard.platform.iam.v2 import groups_pb2, groups_pb2_grpc
from tests.helpers import BACKENDS, TIMEOUT, Server, Upstream, mk_org, ok, rpc_error, start_server, stop_server


@pytest.fixture(scope="module", params=BACKENDS)
def srv(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, upstream: Upstream
) -> Iterator[Server]:
    s = start_server(request.param, tmp_path_factory.mktemp("join-idna"), "--insecure-allow-loopback",
                     "--trusted-issuer", upstream.issuer)  # fmt: skip
    yield s
    stop_server(s)


def verified(srv: Server, domain: str) -> tuple[str, str]:
    """A new organization that verified `domain` (the operator's word), and the domain as stored."""
    org = mk_org(srv.http)
    shown = json.loads(srv.cli("domains", "verify", "--group", org, "--domain", domain))
    assert shown["state"] == "VERIFIED"
    return org, str(shown["domain"])


def signed_in(srv: Server, upstream: Upstream, email: str) -> str:
    """Our token for a new user of the trusted issuer with this verified e-mail."""
    claims = {"email": email, "email_verified": True}
    token = upstream.token("user-" + secrets.token_hex(4), "localhost", **claims)
    with httpx.Client(base_url=srv.base_url, timeout=30) as c:
        r = c.get("/sts/exchange", headers={"authorization": f"Bearer {token}"})
    return str(ok(r)["token"])


def found(srv: Server, token: str) -> str | None:
    """The organization lookupGroup finds (None: NOT_FOUND), checked against checkEligibility and gRPC."""
    with srv.client(token) as c:
        eligible = bool(ok(c.get("/iam/v2/groups:checkEligibility")).get("eligible", False))
        r = c.get("/iam/v2/groups:lookupGroup")
    assert r.status_code in (200, 404), r.text
    uid = str(r.json()["group"]["uid"]) if r.status_code == 200 else None
    assert eligible == (uid is not None)
    with srv.grpc_channel(token) as ch:
        stub = groups_pb2_grpc.GroupsServiceStub(ch)
        if uid is None:
            err, _ = rpc_error(stub.LookupGroup, groups_pb2.LookupGroupRequest())
            assert err.code() == grpc.StatusCode.NOT_FOUND
        else:
            assert stub.LookupGroup(groups_pb2.LookupGroupRequest(), timeout=TIMEOUT).group.uid == uid
    return uid


def test_sharp_s_is_not_ss(srv: Server, upstream: Upstream) -> None:
    tag = secrets.token_hex(4)
    org, stored = verified(srv, f"stra{tag}sse.example")
    assert stored == f"stra{tag}sse.example"
    assert found(srv, signed_in(srv, upstream, f"j@stra{tag}sse.example")) == org
    assert found(srv, signed_in(srv, upstream, f"j@stra{tag}ße.example")) is None
    # The ß domain is a domain of its own, verified as its A-label.
    other, stored = verified(srv, f"stra{tag}ße.example")
    assert stored.startswith("xn--") and stored.endswith(".example")
    assert found(srv, signed_in(srv, upstream, f"k@stra{tag}ße.example")) == other


def test_an_invisible_character_is_not_dropped(srv: Server, upstream: Upstream) -> None:
    domain = f"acme-{secrets.token_hex(4)}.example"
    org, _ = verified(srv, domain)
    assert found(srv, signed_in(srv, upstream, f"j15@{domain}")) == org
    for odd in (f"j15@{domain}\u200b", f"j15@ac\u200bme{domain[4:]}", f"j15@{domain}\u00ad"):
        assert found(srv, signed_in(srv, upstream, odd)) is None, ascii(odd)
