"""Joining your company's organization (issue 19, 1b): LookupGroup, CheckEligibility and RequestGroupAccess
over HTTP and gRPC, v2 and v1, on both backends; and the organization's side (GroupDomainsService): its domains
and the access requests made to it.

Callers are users of a trusted upstream issuer on loopback (tests/helpers/oidc.py) signed in through the token
exchange; their organization verified its e-mail domain with `platform-api domains verify`. Every way of not
being eligible answers the same NOT_FOUND, byte for byte.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Iterator
from typing import Any

import grpc
import httpx
import jwt
import pytest
from google.rpc import error_details_pb2

from platform_api.gen.chainguard.platform.iam.v1 import group_pb2 as v1_groups_pb2
from platform_api.gen.chainguard.platform.iam.v1 import group_pb2_grpc as v1_groups_grpc
from platform_api.gen.chainguard.platform.iam.v2 import groups_pb2, groups_pb2_grpc
from tests.helpers import (
    BACKENDS,
    TIMEOUT,
    Receiver,
    Server,
    Upstream,
    assert_denied,
    assert_error,
    assert_not_found,
    mk_group,
    mk_idp,
    mk_org,
    ok,
    receiver,
    rpc_error,
    start_events_server,
    stop_server,
    unpack,
)

COOLDOWN = 8  # seconds (--access-request-cooldown): short enough to wait out once
EXTRA_BLOCKED = "blocked-corp.example"
EVENT = "local.platform-api.api.iam.group.access_requested.v1"


@pytest.fixture(scope="module")
def stray() -> Iterator[Upstream]:
    """An issuer the server does not trust (only an organization's identity provider names it)."""
    u = Upstream()
    yield u
    u.close()


@pytest.fixture(scope="module")
def sink() -> Iterator[Receiver]:
    with receiver() as r:
        yield r


@pytest.fixture(scope="module", params=BACKENDS)
def srv(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, upstream: Upstream
) -> Iterator[Server]:
    s = start_events_server(request.param, tmp_path_factory.mktemp("join"), "--trusted-issuer", upstream.issuer,
                            "--access-request-cooldown", str(COOLDOWN),
                            "--blocked-email-domains", EXTRA_BLOCKED)  # fmt: skip
    yield s
    stop_server(s)


def domain() -> str:
    return f"corp-{secrets.token_hex(4)}.example"


def verified_org(srv: Server, dom: str) -> str:
    org = mk_org(srv.http)
    shown = json.loads(srv.cli("domains", "verify", "--group", org, "--domain", dom))
    assert shown["state"] == "VERIFIED" and shown["domain"] == dom
    return org


def exchange(srv: Server, upstream_token: str, **params: str) -> str:
    with httpx.Client(base_url=srv.base_url, timeout=30) as c:
        r = c.get("/sts/exchange", params=params, headers={"authorization": f"Bearer {upstream_token}"})
    assert r.status_code == 200, r.text
    return str(r.json()["token"])


def login(srv: Server, upstream: Upstream, email: str, verified: bool = True, sub: str = "") -> str:
    """Our token for the user of `upstream` with this e-mail (registered at the first login)."""
    sub = sub or "user-" + secrets.token_hex(4)
    return exchange(srv, upstream.token(sub, "localhost", email=email, email_verified=verified))


def subject(token: str) -> str:
    return str(jwt.decode(token, options={"verify_signature": False})["sub"])


def lookup(srv: Server, token: str, version: str = "v2") -> httpx.Response:
    with srv.client(token) as c:
        return c.get(f"/iam/{version}/groups:lookupGroup")


def eligible(srv: Server, token: str, version: str = "v2") -> bool:
    with srv.client(token) as c:
        body = ok(c.get(f"/iam/{version}/groups:checkEligibility"))
    return bool(body.get("eligible", False))


def ask(srv: Server, token: str, group: str, version: str = "v2") -> httpx.Response:
    with srv.client(token) as c:
        return c.post(f"/iam/{version}/groups/{group}:requestGroupAccess", json={})


def retry_delay(body: dict[str, Any]) -> int:
    [info] = [d for d in body["details"] if d["@type"] == "type.googleapis.com/google.rpc.RetryInfo"]
    return int(info["retryDelay"].removesuffix("s"))


# --------------------------------------------------------------------------------------------- found


def test_a_verified_user_finds_the_organization_of_their_domain(srv: Server, upstream: Upstream) -> None:
    dom = domain()
    org = verified_org(srv, dom)
    token = login(srv, upstream, f"Jane.Doe@{dom.upper()}")  # domains compare in lower case
    assert eligible(srv, token) and eligible(srv, token, "v1")
    found = ok(lookup(srv, token))["group"]
    assert found["uid"] == org and found["name"]
    assert ok(lookup(srv, token, "v1"))["group"]["id"] == org
    # gRPC, v2 and v1: the same answers.
    with srv.grpc_channel(token) as ch:
        v2 = groups_pb2_grpc.GroupsServiceStub(ch)
        assert v2.LookupGroup(groups_pb2.LookupGroupRequest(), timeout=TIMEOUT).group.uid == org
        assert v2.CheckEligibility(groups_pb2.CheckEligibilityRequest(), timeout=TIMEOUT).eligible
        v1 = v1_groups_grpc.GroupsStub(ch)
        assert v1.LookupGroup(v1_groups_pb2.LookupGroupRequest(), timeout=TIMEOUT).group.id == org
        assert v1.CheckEligibility(v1_groups_pb2.CheckEligibilityRequest(), timeout=TIMEOUT).eligible


# --------------------------------------------------------------------------------- collapsed NOT_FOUND


def test_every_failure_is_the_same_not_found(srv: Server, upstream: Upstream, stray: Upstream) -> None:
    dom = domain()
    org = verified_org(srv, dom)
    # The blocked domain of the setting, verified while the command did not block it: the server still does.
    verified_org(srv, EXTRA_BLOCKED)
    pending = domain()
    srv.cli("domains", "challenge", "--group", mk_org(srv.http), "--domain", pending)
    # An identity an administrator made for a user of the trusted issuer: not the user registered from it.
    sub = "made-" + secrets.token_hex(4)
    r = srv.http.post(f"/iam/v2/identities/{org}", json={"name": "made", "claimMatch": {"issuer": upstream.issuer,
                                                                                       "subject": sub}})  # fmt: skip
    made = exchange(srv, upstream.token(sub, "localhost", email=f"made@{dom}", email_verified=True),
                    identity=ok(r)["uid"])  # fmt: skip
    # A user of an untrusted issuer (an organization's identity provider) with a verified e-mail there.
    idp = mk_idp(srv.http, mk_org(srv.http), oidc={"issuer": stray.issuer, "clientId": "console", "clientSecret": "s"})
    untrusted = exchange(srv, stray.token("u-" + secrets.token_hex(3), "console", email=f"x@{dom}",
                                          email_verified=True), identity_provider=idp["uid"])  # fmt: skip
    # A user of the trusted issuer, minted a token of ours without the upstream's claims (`platform-api token`).
    good = login(srv, upstream, f"ok@{dom}")
    assert eligible(srv, good)
    no_act = srv.mint(subject(good))
    # The same user whose upstream e-mail is now another one than the verified one registered.
    moved_sub = "moved-" + secrets.token_hex(3)
    login(srv, upstream, f"moved@{dom}", sub=moved_sub)
    moved = login(srv, upstream, f"moved@elsewhere-{dom}", sub=moved_sub)
    cases = {
        "unverified e-mail": login(srv, upstream, f"bob@{dom}", verified=False),
        "free-mail domain": login(srv, upstream, "someone@gmail.com"),
        "no verified organization": login(srv, upstream, f"a@{pending}"),
        "no organization at all": login(srv, upstream, f"a@{domain()}"),
        "identity made by an administrator": made,
        "untrusted issuer": untrusted,
        "token without upstream claims": no_act,
        "e-mail changed upstream": moved,
        "the owner (no e-mail)": srv.token,
    }
    cases["blocked by the setting"] = login(srv, upstream, f"c@{EXTRA_BLOCKED}")
    answers = set()
    for case, token in cases.items():
        assert not eligible(srv, token), case
        assert not eligible(srv, token, "v1"), case
        r = lookup(srv, token)
        assert r.status_code == 404, (case, r.text)
        answers.add(r.text)
        r = ask(srv, token, org)
        assert r.status_code == 404, (case, r.text)
        answers.add(r.text)
        assert lookup(srv, token, "v1").status_code == 404, case
        with srv.grpc_channel(token) as ch:
            err, st = rpc_error(groups_pb2_grpc.GroupsServiceStub(ch).LookupGroup, groups_pb2.LookupGroupRequest())
            assert err.code() == grpc.StatusCode.NOT_FOUND, case
            answers.add(st.SerializeToString())
    assert len(answers) == 2, answers  # one HTTP body (lookup and request alike), one gRPC status
    # The eligible user asking another organization than their domain's: the same NOT_FOUND.
    r = ask(srv, good, mk_org(srv.http))
    assert r.status_code == 404 and r.text in answers


# ------------------------------------------------------------------------------------------- requests


def test_request_access_emits_an_event_and_cools_down(srv: Server, upstream: Upstream, sink: Receiver) -> None:
    dom = domain()
    org = verified_org(srv, dom)
    path = f"/{org}"
    ok(srv.http.post(f"/events/v2/subscriptions/{org}", json={"sink": sink.url(path), "types": [EVENT]}))
    token = login(srv, upstream, f"Ann@{dom}")
    me = subject(token)
    assert ask(srv, token, org).json() == {}
    [got] = sink.wait(path, 1)
    assert got.ce("type") == EVENT
    assert got.ce("subject") == org and got.ce("group") == org
    body = got.json
    assert body["actor"]["subject"] == me
    assert body["actor"]["act"]["email"] == f"Ann@{dom}" and body["actor"]["act"]["iss"] == upstream.issuer
    assert body["body"] == {"groupUid": org}
    # Listed for the organization's administrators (the operator's command), e-mail from the identity.
    [listed] = json.loads(srv.cli("domains", "requests", "--group", org))
    assert listed["identity"] == me and listed["email"] == f"Ann@{dom}"
    # Asking again within the cool-down: 429 with RetryInfo, over every route; no second event.
    again = ask(srv, token, org)
    assert again.status_code == 429, again.text
    assert again.json()["code"] == 8 and again.json()["details"][0]["reason"] == "ACCESS_ALREADY_REQUESTED"
    assert 1 <= retry_delay(again.json()) <= COOLDOWN
    assert 1 <= int(again.headers["retry-after"]) <= COOLDOWN
    assert ask(srv, token, org, "v1").status_code == 429
    with srv.grpc_channel(token) as ch:
        stub = groups_pb2_grpc.GroupsServiceStub(ch)
        err, st = rpc_error(stub.RequestGroupAccess, groups_pb2.RequestGroupAccessRequest(group_uid=org))
        assert err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert 1 <= unpack(st, error_details_pb2.RetryInfo).retry_delay.seconds <= COOLDOWN
        err, st = rpc_error(stub.RequestGroupAccess, groups_pb2.RequestGroupAccessRequest())
        assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
        err, _ = rpc_error(v1_groups_grpc.GroupsStub(ch).RequestGroupAccess, v1_groups_pb2.RequestGroupAccessRequest())
        assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
    # Another user of the domain is not held back by the first one's cool-down.
    other = login(srv, upstream, f"zed@{dom}")
    assert ask(srv, other, org, "v1").status_code == 200
    sink.wait(path, 2)
    # After the cool-down the same caller may ask again (one more event).
    time.sleep(retry_delay(again.json()) + 0.5)
    assert ask(srv, token, org).status_code == 200
    got = sink.wait(path, 3)
    assert [g.ce("type") for g in got] == [EVENT] * 3
    assert len(json.loads(srv.cli("domains", "requests", "--group", org))) == 2


def test_a_malformed_group_uid_is_invalid(srv: Server, upstream: Upstream) -> None:
    token = login(srv, upstream, f"m@{domain()}")
    r = ask(srv, token, "not-a-uid")
    assert r.status_code == 400 and r.json()["details"][1]["fieldViolations"][0]["field"] == "group_uid", r.text


def test_deleting_the_organization_forgets_its_domains(srv: Server, upstream: Upstream) -> None:
    dom = domain()
    org = verified_org(srv, dom)
    token = login(srv, upstream, f"d@{dom}")
    assert ask(srv, token, org).status_code == 200
    assert srv.http.delete(f"/iam/v2/groups/{org}").status_code == 200
    assert not eligible(srv, token)
    assert json.loads(srv.cli("domains", "ls", "--group", org)) == []
    assert json.loads(srv.cli("domains", "requests", "--group", org)) == []
    # The domain is free again for another organization.
    assert verified_org(srv, dom) != org


def test_the_cool_down_answer_is_documented(srv: Server) -> None:
    doc = httpx.get(srv.base_url + "/openapi.json", timeout=30).json()
    for version, field in (("v2", "group_uid"), ("v1", "group_id")):
        op = doc["paths"][f"/iam/{version}/groups/{{{field}}}:requestGroupAccess"]["post"]
        assert op["responses"]["429"] == {"$ref": "#/components/responses/AccessRequestedRecently"}
    assert "Retry-After" in doc["components"]["responses"]["AccessRequestedRecently"]["headers"]
    assert "429" not in doc["paths"]["/iam/v2/groups:lookupGroup"]["get"]["responses"]


# ------------------------------------------------------------------------------ the organization's view


def admin_list(srv: Server, token: str, org: str, what: str, **params: Any) -> httpx.Response:
    with srv.client(token) as c:
        return c.get(f"/iam/v2/groups/{org}/{what}", params=params)


def test_an_organization_lists_its_domains_and_access_requests(srv: Server, upstream: Upstream) -> None:
    dom, pending = domain(), domain()
    org = verified_org(srv, dom)
    challenge = json.loads(srv.cli("domains", "challenge", "--group", org, "--domain", pending))["txt"]
    # The TXT value only to those who may publish it (groups.update); a viewer sees the states.
    shown = {d["domain"]: d for d in ok(admin_list(srv, srv.token, org, "domains"))["domains"]}
    assert shown[dom]["state"] == "STATE_VERIFIED" and "txt" not in shown[dom] and shown[dom]["verifyTime"]
    assert shown[pending]["state"] == "STATE_PENDING" and shown[pending]["txt"] == challenge
    _, viewer = srv.identity_with_role(org, "viewer")
    seen = ok(admin_list(srv, viewer, org, "domains"))["domains"]
    assert {(d["domain"], d["state"]) for d in seen} == {(dom, "STATE_VERIFIED"), (pending, "STATE_PENDING")}
    assert all("txt" not in d for d in seen), seen
    # Three people ask; the owner pages through them, newest first, e-mail from the identity.
    askers = {}
    for name in ("ann", "bob", "cid"):
        token = login(srv, upstream, f"{name}@{dom}")
        assert ask(srv, token, org).status_code == 200
        askers[subject(token)] = f"{name}@{dom}"
    first = ok(admin_list(srv, srv.token, org, "accessRequests", pageSize=2))
    second = ok(admin_list(srv, srv.token, org, "accessRequests", pageSize=2, pageToken=first["nextPageToken"]))
    assert "nextPageToken" not in second
    listed = first["accessRequests"] + second["accessRequests"]
    assert {r["identityUid"]: r["email"] for r in listed} == askers
    assert [r["requestTime"] for r in listed] == sorted((r["requestTime"] for r in listed), reverse=True)
    assert all(r["name"] for r in listed)
    assert_error(admin_list(srv, srv.token, org, "accessRequests", pageToken="x" + first["nextPageToken"]), 400, 3,
                 "page_token")  # fmt: skip
    # A viewer may not see who asked (the e-mail is personal data): PERMISSION_DENIED.
    assert_denied(admin_list(srv, viewer, org, "accessRequests"))
    # gRPC: the same answers.
    with srv.grpc_channel(srv.token) as ch:
        stub = groups_pb2_grpc.GroupDomainsServiceStub(ch)
        got = stub.ListAccessRequests(groups_pb2.ListAccessRequestsRequest(group_uid=org), timeout=TIMEOUT)
        assert [r.identity_uid for r in got.access_requests] == [r["identityUid"] for r in listed]
        got_domains = stub.ListGroupDomains(groups_pb2.ListGroupDomainsRequest(group_uid=org), timeout=TIMEOUT)
        assert {d.domain: d.txt for d in got_domains.domains} == {dom: "", pending: challenge}
    with srv.grpc_channel(viewer) as ch:
        err, _ = rpc_error(groups_pb2_grpc.GroupDomainsServiceStub(ch).ListAccessRequests,
                           groups_pb2.ListAccessRequestsRequest(group_uid=org))  # fmt: skip
        assert err.code() == grpc.StatusCode.PERMISSION_DENIED


def test_only_organizations_and_only_ones_own(srv: Server, upstream: Upstream) -> None:
    dom = domain()
    org, other = verified_org(srv, dom), verified_org(srv, domain())
    assert ask(srv, login(srv, upstream, f"o@{dom}"), org).status_code == 200
    team = mk_group(srv.http, org)["uid"]
    for what in ("domains", "accessRequests"):
        assert_error(admin_list(srv, srv.token, team, what), 400, 3, "group_uid")
        assert_error(admin_list(srv, srv.token, "not-a-uid", what), 400, 3, "group_uid")
    with srv.grpc_channel(srv.token) as ch:
        err, _ = rpc_error(groups_pb2_grpc.GroupDomainsServiceStub(ch).ListGroupDomains,
                           groups_pb2.ListGroupDomainsRequest(group_uid=team))  # fmt: skip
        assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
    # The owner of one organization learns nothing of another's: NOT_FOUND, as for any group out of reach.
    _, owner = srv.identity_with_role(org, "owner")
    assert len(ok(admin_list(srv, owner, org, "accessRequests"))["accessRequests"]) == 1
    for what in ("domains", "accessRequests"):
        assert_not_found(admin_list(srv, owner, other, what), other, "Group")
    assert ok(admin_list(srv, srv.token, other, "accessRequests")) == {}
