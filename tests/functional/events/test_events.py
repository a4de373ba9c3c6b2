"""Events over the wire (reference 6.16 and 12): subscriptions, and CloudEvents webhook deliveries to a real
receiver on loopback that verifies our JWT (against our JWKS), the body digest and the Standard Webhooks
signature — for every mutating RPC built so far, on both storage backends.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest

from tests.helpers import (
    BACKENDS,
    BUILTIN_ROLE_UIDS,
    Receiver,
    Server,
    Verifier,
    fails_first,
    mk_group,
    mk_org,
    mk_repo,
    ok,
    start_events_server,
    stop_server,
)

PREFIX = "local.platform-api.api."
DIGEST_A = "sha256:" + "a" * 64
DIGEST_B = "sha256:" + "b" * 64


@pytest.fixture(scope="module", params=BACKENDS)
def es(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """An events server: loopback sinks allowed, retries in milliseconds."""
    s = start_events_server(request.param, tmp_path_factory.mktemp("events-" + request.param))
    yield s
    stop_server(s)


@pytest.fixture(scope="module")
def verifier(es: Server) -> Verifier:
    return Verifier(es.base_url)


def path() -> str:
    return "/hook/" + secrets.token_hex(6)


def subscribe(http: httpx.Client, parent: str, sink: str, **fields: Any) -> dict[str, Any]:
    return ok(http.post(f"/events/v2/subscriptions/{parent}", json={"sink": sink, **fields}))


def deliveries(http: httpx.Client, sub: str, **params: Any) -> dict[str, Any]:
    return ok(http.get("/events/v2/deliveries", params={"uidp.children_of": sub, **params}))


def wait_until(predicate: Any, timeout: float = 20.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        time.sleep(0.05)


def parent(uid: str) -> str:
    return uid.rsplit("/", 1)[0] if "/" in uid else ""


# ------------------------------------------------------------------------------------------- subscriptions


def test_subscription_crud_and_secret_shown_once(es: Server, rx: Receiver) -> None:
    http = es.http
    org = mk_org(http)
    sub = subscribe(http, org, rx.url(path()))
    assert sub["uid"].startswith(org + "/") and len(sub["uid"]) == len(org) + 17
    assert sub["secret"].startswith("whsec_") and len(sub["secret"]) > 40
    assert set(sub) >= {"uid", "sink", "createTime", "updateTime", "secret"}
    got = ok(http.get(f"/events/v2/subscriptions/{sub['uid']}"))
    assert "secret" not in got and got["sink"] == sub["sink"]
    listed = ok(http.get("/events/v2/subscriptions", params={"uidp.children_of": org}))
    assert listed["totalCount"] == "1" and "secret" not in listed["subscriptions"][0]
    # A group with a subscription cannot be deleted.
    r = http.delete(f"/iam/v2/groups/{org}")
    assert r.status_code == 400 and "subscriptions" in r.json()["message"]
    # Update: types, disabled; output-only fields ignored; sink re-checked.
    typed = [PREFIX + "iam.roles.created.v1"]
    upd = ok(http.patch(f"/events/v2/subscriptions/{sub['uid']}", json={"types": typed, "secret": "no"}))
    assert upd["types"] == typed and "secret" not in upd and upd["updateTime"] >= sub["updateTime"]
    r = http.patch(f"/events/v2/subscriptions/{sub['uid']}", json={"sink": "https://10.1.2.3/x"})
    assert r.status_code == 400
    ok(http.delete(f"/events/v2/subscriptions/{sub['uid']}"))
    assert http.get(f"/events/v2/subscriptions/{sub['uid']}").status_code == 404
    ok(http.delete(f"/iam/v2/groups/{org}"))


@pytest.mark.parametrize(
    "sink",
    [
        "http://example.com/hook",  # not https
        "https://10.0.0.1/x",  # private
        "https://192.168.1.10/x",
        "https://169.254.169.254/latest/meta-data",  # link-local: cloud metadata
        "https://[fd00::1]/x",  # unique local
        "https://0.0.0.0/x",  # unspecified
        "https://224.0.0.1/x",  # multicast
        "https://100.64.0.1/x",  # shared address space
        "https://[::ffff:10.0.0.1]/x",  # IPv4-mapped private
        "https://user:pw@203.0.113.1/x",  # user info
        "ftp://example.com/x",
        "",
    ],
)
def test_sink_refused_at_create(http: httpx.Client, org: str, sink: str) -> None:
    """The session server runs without --insecure-allow-loopback."""
    r = http.post(f"/events/v2/subscriptions/{org}", json={"sink": sink})
    assert r.status_code == 400, r.text
    assert r.json()["code"] == 3


@pytest.mark.parametrize(
    "sink", ["https://localhost/x", "https://127.0.0.1/x", "https://[::1]/x", "http://127.0.0.1/x"]
)
def test_loopback_sink_refused_without_flag(http: httpx.Client, org: str, sink: str) -> None:
    """`localhost` is a name that resolves to 127.0.0.1: the resolved address is what is checked."""
    r = http.post(f"/events/v2/subscriptions/{org}", json={"sink": sink})
    assert r.status_code == 400, r.text
    assert "loopback" in r.json()["message"] or "https" in r.json()["message"]


@pytest.mark.parametrize("tail", ["/a b", "/a\r\nX-Injected: 1", "/a\tb", "/caf\u00e9", "/a\x7f", "/a?q=1 2"])
def test_sink_that_no_request_can_name_refused_at_create_and_update(es: Server, rx: Receiver, tail: str) -> None:
    """A sink whose path or query holds a space, a control character or a non-ASCII character cannot be an
    HTTP/1.1 request target: refused when written (before, it was stored and every delivery to it failed
    before an attempt could be recorded, and was claimed again forever)."""
    org = mk_org(es.http)
    r = es.http.post(f"/events/v2/subscriptions/{org}", json={"sink": rx.url("/hook") + tail})
    assert r.status_code == 400, r.text
    assert r.json()["code"] == 3 and "visible ASCII" in r.json()["message"], r.text
    sub = subscribe(es.http, org, rx.url(path()))
    r = es.http.patch(f"/events/v2/subscriptions/{sub['uid']}", json={"sink": rx.url("/hook") + tail})
    assert r.status_code == 400, r.text
    assert r.json()["code"] == 3 and "visible ASCII" in r.json()["message"], r.text


def test_subscription_authorization(server: Server, http: httpx.Client, org: str) -> None:
    _, viewer = server.identity_with_role(org, "viewer")
    with server.client(viewer) as c:
        r = c.post(f"/events/v2/subscriptions/{org}", json={"sink": "https://203.0.113.1/x"})
        assert r.status_code == 403, r.text
        assert c.get("/events/v2/subscriptions", params={"uidp.children_of": org}).status_code == 200
    outsider_org = mk_org(http)
    _, outsider = server.identity_with_role(outsider_org, "owner")
    with server.client(outsider) as c:
        r = c.post(f"/events/v2/subscriptions/{org}", json={"sink": "https://203.0.113.1/x"})
        assert r.status_code == 404, r.text
        assert c.get("/events/v2/deliveries", params={"uidp.children_of": org}).json()["totalCount"] == "0"
    with server.client(None) as c:
        assert c.get("/events/v2/subscriptions").status_code == 401


# ------------------------------------------------------------------------------------------- deliveries


def test_every_mutation_emits_its_event(es: Server, rx: Receiver, verifier: Verifier) -> None:
    """Every mutating RPC built so far: type, subject, group extension, source, body type and body."""
    http = es.http
    org = mk_org(http)
    p = path()
    sub = subscribe(http, org, rx.url(p))
    expected: list[tuple[str, str, str, str, str]] = []  # (type suffix, subject, group, source path, bodytype)

    def expect(suffix: str, subject: str, grp: str, source: str, bodytype: str) -> None:
        expected.append((suffix, subject, grp, source, bodytype))

    expect(
        "events.subscription.created.v1",
        sub["uid"],
        org,
        "/events/v2/subscriptions",
        "chainguard.platform.events.v2.Subscription",
    )
    g = mk_group(http, org)["uid"]
    expect("iam.group.created.v1", g, g, "/iam/v2/groups", "chainguard.platform.iam.v2.Group")
    ok(http.patch(f"/iam/v2/groups/{g}", json={"description": "d"}))
    expect("iam.group.updated.v1", g, g, "/iam/v2/groups", "chainguard.platform.iam.v2.Group")
    repo = mk_repo(http, g, "nginx")["uid"]
    expect("platform.registry.repo.created.v1", repo, g, "/registry/v2/repos", "chainguard.platform.registry.v2.Repo")
    ok(http.patch(f"/registry/v2/repos/{repo}", json={"description": "web"}))
    expect("platform.registry.repo.updated.v1", repo, g, "/registry/v2/repos", "chainguard.platform.registry.v2.Repo")
    ok(http.patch(f"/registry/v2/repos/{repo}/readme", json={"content": "# hi"}))
    expect(
        "platform.registry.repo.updated.v1", repo, g, "/registry/v2/repos", "chainguard.platform.registry.v2.RepoReadme"
    )
    tag = ok(http.post(f"/registry/v2/tags/{repo}", json={"name": "latest", "digest": DIGEST_A}))["uid"]
    expect("platform.registry.tag.created.v1", tag, org, "/registry/v2/tags", "chainguard.platform.registry.v2.Tag")
    ok(http.post(f"/registry/v2/tags/{repo}", json={"name": "latest", "digest": DIGEST_B}))  # upsert
    expect("platform.registry.tag.created.v1", tag, org, "/registry/v2/tags", "chainguard.platform.registry.v2.Tag")
    ok(http.delete(f"/registry/v2/tags/{tag}"))
    expect(
        "platform.registry.tag.deleted.v1",
        tag,
        org,
        "/registry/v2/tags",
        "chainguard.platform.registry.v2.DeleteTagRequest",
    )
    ok(http.delete(f"/registry/v2/repos/{repo}"))
    expect(
        "platform.registry.repo.deleted.v1",
        repo,
        g,
        "/registry/v2/repos",
        "chainguard.platform.registry.v2.DeleteRepoRequest",
    )
    ident = ok(http.post(f"/iam/v2/identities/{g}", json={"name": "robot", "claimMatch": {
        "issuer": "https://issuer.example", "subject": "robot"}}))["uid"]  # fmt: skip
    expect("iam.identity.created.v1", ident, g, "/iam/v2/identities", "chainguard.platform.iam.v2.Identity")
    ok(http.patch(f"/iam/v2/identities/{ident}", json={"description": "bot"}))
    expect("iam.identity.updated.v1", ident, g, "/iam/v2/identities", "chainguard.platform.iam.v2.Identity")
    role = ok(http.post(f"/iam/v2/roles/{g}", json={"name": "r", "capabilities": ["CAP_REPO_LIST"]}))["uid"]
    expect("iam.roles.created.v1", role, g, "/iam/v2/roles", "chainguard.platform.iam.v2.Role")
    ok(http.patch(f"/iam/v2/roles/{role}", json={"description": "rd"}))
    expect("iam.roles.updated.v1", role, g, "/iam/v2/roles", "chainguard.platform.iam.v2.Role")
    rb = ok(http.post(f"/iam/v2/roleBindings/{g}", json={"identityUid": ident, "roleUid": role}))["uid"]
    expect("iam.rolebindings.created.v1", rb, g, "/iam/v2/roleBindings", "chainguard.platform.iam.v2.RoleBinding")
    ok(http.patch(f"/iam/v2/roleBindings/{rb}", json={"roleUid": BUILTIN_ROLE_UIDS["viewer"]}))
    expect("iam.rolebindings.updated.v1", rb, g, "/iam/v2/roleBindings", "chainguard.platform.iam.v2.RoleBinding")
    ok(http.delete(f"/iam/v2/roleBindings/{rb}"))
    expect(
        "iam.rolebindings.deleted.v1",
        rb,
        g,
        "/iam/v2/roleBindings",
        "chainguard.platform.iam.v2.DeleteRoleBindingRequest",
    )
    batch = ok(http.post("/iam/v2/roleBindings:batchCreate", json={
        "parent": g, "roleUid": role, "requests": [{"roleBinding": {"identityUid": ident}}]}))  # fmt: skip
    expect("iam.rolebindings.created.batch.v1", g, g, "/iam/v2/roleBindings",
           "chainguard.platform.iam.v2.BatchCreateRoleBindingsResponse")  # fmt: skip
    ok(http.delete(f"/iam/v2/roleBindings/{batch['roleBindings'][0]['uid']}"))
    expect("iam.rolebindings.deleted.v1", batch["roleBindings"][0]["uid"], g, "/iam/v2/roleBindings",
           "chainguard.platform.iam.v2.DeleteRoleBindingRequest")  # fmt: skip
    ok(http.delete(f"/iam/v2/roles/{role}"))
    expect("iam.roles.deleted.v1", role, g, "/iam/v2/roles", "chainguard.platform.iam.v2.DeleteRoleRequest")
    ok(http.delete(f"/iam/v2/identities/{ident}"))
    expect(
        "iam.identity.deleted.v1", ident, g, "/iam/v2/identities", "chainguard.platform.iam.v2.DeleteIdentityRequest"
    )
    ok(http.delete(f"/iam/v2/groups/{g}"))
    expect("iam.group.deleted.v1", g, org, "/iam/v2/groups", "chainguard.platform.iam.v2.DeleteGroupRequest")
    other = subscribe(http, org, rx.url(path()))
    expect("events.subscription.created.v1", other["uid"], org, "/events/v2/subscriptions",
           "chainguard.platform.events.v2.Subscription")  # fmt: skip
    ok(http.patch(f"/events/v2/subscriptions/{other['uid']}", json={"types": [PREFIX + "iam.roles.*"]}))
    expect("events.subscription.updated.v1", other["uid"], org, "/events/v2/subscriptions",
           "chainguard.platform.events.v2.Subscription")  # fmt: skip
    ok(http.delete(f"/events/v2/subscriptions/{other['uid']}"))
    expect("events.subscription.deleted.v1", other["uid"], org, "/events/v2/subscriptions",
           "chainguard.platform.events.v2.DeleteSubscriptionRequest")  # fmt: skip

    got = rx.wait(p, len(expected))
    time.sleep(0.3)
    assert len(rx.at(p)) == len(expected), "no duplicates and nothing else"
    by_time = sorted(got, key=lambda r: r.ce("time"))
    seen = [(r.ce("type").removeprefix(PREFIX), r.ce("subject"), r.ce("group"),
             r.ce("source").removeprefix(verifier.issuer), r.ce("bodytype")) for r in by_time]  # fmt: skip
    assert seen == expected
    ids = set()
    for r in got:
        verifier.verify(r, org, sub["secret"])
        assert r.headers["content-type"] == "application/json"
        assert r.ce("specversion") == "1.0" and r.ce("audience") == "customer"
        assert r.headers["user-agent"].startswith("platform-api/")
        assert r.headers["webhook-id"] == r.ce("id")
        assert r.ce("time").endswith("Z") and len(r.ce("time")) == len("2026-01-28T12:54:21.123456789Z")
        body = r.json
        assert body["actor"] == {"subject": es.owner}
        ids.add(r.ce("id"))
    assert len(ids) == len(expected)
    bodies = {r.ce("type").removeprefix(PREFIX) + " " + r.ce("subject"): r.json["body"] for r in got}
    # Create/update carry the response (camelCase, as the API answers), delete the request.
    assert bodies[f"iam.group.updated.v1 {g}"]["description"] == "d"
    assert bodies[f"iam.group.deleted.v1 {g}"] == {"uid": g}
    assert bodies[f"platform.registry.repo.created.v1 {repo}"]["createTime"]
    assert bodies[f"iam.rolebindings.created.batch.v1 {g}"]["roleBindings"][0]["uid"] == batch["roleBindings"][0]["uid"]
    # Secrets never travel in events.
    created = bodies[f"events.subscription.created.v1 {sub['uid']}"]
    assert created["uid"] == sub["uid"] and "secret" not in created


def test_ancestors_receive_siblings_do_not(es: Server, rx: Receiver, verifier: Verifier) -> None:
    http = es.http
    org = mk_org(http)
    a, b = mk_group(http, org)["uid"], mk_group(http, org)["uid"]
    a1 = mk_group(http, a)["uid"]
    paths = {name: path() for name in ("org", "a", "b", "a1")}
    subs = {
        name: subscribe(http, uid, rx.url(paths[name])) for name, uid in (("org", org), ("a", a), ("b", b), ("a1", a1))
    }
    repo_in_a1 = mk_repo(http, a1, "deep")["uid"]
    repo_in_a = mk_repo(http, a, "mid")["uid"]
    marker = mk_repo(http, b, "marker")["uid"]

    def repo_events(name: str) -> set[str]:
        return {r.ce("subject") for r in rx.at(paths[name]) if r.ce("type").endswith("repo.created.v1")}

    # org: its subscription events, b's creation... wait for the marker at org and b, then compare.
    wait_until(lambda: marker in repo_events("org") and marker in repo_events("b"))
    wait_until(lambda: repo_in_a1 in repo_events("a1") and repo_in_a in repo_events("a"))
    time.sleep(0.3)
    assert repo_events("org") == {repo_in_a1, repo_in_a, marker}
    assert repo_events("a") == {repo_in_a1, repo_in_a}
    assert repo_events("a1") == {repo_in_a1}
    assert repo_events("b") == {marker}
    for name, uid in (("org", org), ("a", a), ("b", b), ("a1", a1)):
        for r in rx.at(paths[name]):
            verifier.verify(r, uid, subs[name]["secret"])
            assert r.ce("group") == uid or r.ce("group").startswith(uid + "/")


def test_type_filter(es: Server, rx: Receiver) -> None:
    http = es.http
    org = mk_org(http)
    only_repos, prefixed = path(), path()
    subscribe(http, org, rx.url(only_repos), types=[PREFIX + "platform.registry.repo.created.v1"])
    subscribe(http, org, rx.url(prefixed), types=[PREFIX + "iam.group.*"])
    g = mk_group(http, org)["uid"]
    repo = mk_repo(http, g, "x")["uid"]
    ok(http.patch(f"/registry/v2/repos/{repo}", json={"description": "y"}))
    (got,) = rx.wait(only_repos, 1)
    assert got.ce("subject") == repo
    (got,) = rx.wait(prefixed, 1)
    assert got.ce("type") == PREFIX + "iam.group.created.v1"
    time.sleep(0.3)
    assert len(rx.at(only_repos)) == 1 and len(rx.at(prefixed)) == 1


def _bad_request(body: dict[str, Any]) -> list[dict[str, str]]:
    violations: list[dict[str, str]] = next(d for d in body["details"] if d["@type"].endswith("BadRequest"))[
        "fieldViolations"
    ]
    return violations


@pytest.mark.parametrize(
    ("bad", "meant"),
    [
        ("no.such.type", ""),
        ("registry.repo.created", PREFIX + "platform.registry.repo.created.v1"),
        ("platform.registry.repo.created.v1", PREFIX + "platform.registry.repo.created.v1"),
        ("dev.chainguard.api.iam.group.created.v1", PREFIX + "iam.group.created.v1"),
        ("registry.pull", "local.platform-api.registry.pull.v1"),
        (PREFIX + "nothing.*", ""),
    ],
)
def test_unknown_types_refused_with_the_valid_ones(es: Server, bad: str, meant: str) -> None:
    """A type we never emit would be stored and receive nothing: create and update refuse it, naming the field,
    the likely full name and every type there is (over HTTP and gRPC: one rule)."""
    from platform_api.gen.chainguard.platform.events.v2 import subscriptions_pb2 as ev
    from platform_api.gen.chainguard.platform.events.v2 import subscriptions_pb2_grpc as ev_grpc

    http, org, sink = es.http, mk_org(es.http), "http://127.0.0.1:9/hook"
    r = http.post(f"/events/v2/subscriptions/{org}", json={"sink": sink, "types": [PREFIX + "iam.*", bad]})
    assert r.status_code == 400, r.text
    (violation,) = _bad_request(r.json())
    assert violation["field"] == "types" and repr(bad[:-1] if bad.endswith("*") else bad) in violation["description"]
    assert (f"did you mean {meant!r}" in violation["description"]) == bool(meant), violation["description"]
    for listed in (
        "iam.group.created.v1",
        "platform.registry.tag.deleted.v1",
        "registry.push.v1",
        "local.platform-api.",
    ):
        assert listed in violation["description"]
    assert ok(http.get("/events/v2/subscriptions", params={"uidp.children_of": org})).get("subscriptions") is None
    sub = subscribe(http, org, sink)
    r = http.patch(f"/events/v2/subscriptions/{sub['uid']}", json={"types": [bad]})
    assert r.status_code == 400 and _bad_request(r.json())[0]["field"] == "types", r.text
    stub = ev_grpc.SubscriptionsServiceStub(es.channel)
    with pytest.raises(grpc.RpcError) as e:
        stub.CreateSubscription(ev.CreateSubscriptionRequest(
            parent=org, subscription=ev.Subscription(sink=sink, types=[bad])), timeout=10)  # fmt: skip
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "types: " in (e.value.details() or "")


def test_known_types_and_prefixes_accepted(es: Server) -> None:
    http, org, sink = es.http, mk_org(es.http), "http://127.0.0.1:9/hook"
    types = [PREFIX + "iam.group.access_requested.v1", "local.platform-api.registry.pull.v1", PREFIX + "iam.*", "*",
             PREFIX + "events.subscription.deleted.v1"]  # fmt: skip
    sub = subscribe(http, org, sink, types=types)
    assert sub["types"] == types
    # Updating another field leaves the types alone (and does not check them again).
    assert ok(http.patch(f"/events/v2/subscriptions/{sub['uid']}", json={"disabled": True}))["types"] == types


def test_retries_until_success_and_attempts_listed(es: Server, rx: Receiver) -> None:
    http = es.http
    org = mk_org(http)
    p = path()
    rx.behaviours[p] = fails_first(3, 503)
    sub = subscribe(http, org, rx.url(p), types=[PREFIX + "iam.group.created.v1"])
    g = mk_group(http, org)["uid"]
    got = rx.wait(p, 4)
    assert len({r.ce("id") for r in got}) == 1, "a stable Ce-Id across attempts"
    assert all(r.ce("subject") == g for r in got)
    d = wait_until(
        lambda: (x := deliveries(http, sub["uid"])["deliveries"]) and x[0]["state"] == "STATE_DELIVERED" and x
    )
    (delivery,) = d
    assert delivery["attemptCount"] == 4 and delivery["eventId"] == got[0].ce("id")
    assert [a.get("statusCode") for a in delivery["attempts"]] == [503, 503, 503, 200]
    assert all(a["latency"].endswith("s") and a["time"] for a in delivery["attempts"])
    assert delivery["attempts"][0]["error"] == "HTTP 503" and "error" not in delivery["attempts"][3]
    assert ok(http.get(f"/events/v2/deliveries/{delivery['uid']}")) == delivery


def test_exhausted_attempts_fail_and_redeliver(es: Server, rx: Receiver) -> None:
    http = es.http
    org = mk_org(http)
    p = path()
    rx.behaviours[p] = lambda n: (500, {}) if n <= 5 else (200, {})
    sub = subscribe(http, org, rx.url(p), types=[PREFIX + "iam.group.created.v1"])
    mk_group(http, org)
    got = rx.wait(p, 5, timeout=30)  # the last of 5 attempts waits for 24 h * scale
    d = wait_until(lambda: (x := deliveries(http, sub["uid"])["deliveries"]) and x[0]["state"] == "STATE_FAILED" and x)
    assert d[0]["attemptCount"] == 5 and "nextAttemptTime" not in d[0]
    spans = got[-1].at - got[0].at
    assert spans >= 24 * 3600 * 0.00005 * 0.9
    # Redelivery: same event id, a fresh round, attempts kept.
    r = ok(http.post(f"/events/v2/subscriptions/{sub['uid']}:redeliver", json={"eventId": d[0]["eventId"]}))
    assert r["state"] == "STATE_PENDING" and r["attemptCount"] == 5
    again = rx.wait(p, 6)
    assert again[5].ce("id") == d[0]["eventId"]
    done = wait_until(
        lambda: (x := deliveries(http, sub["uid"])["deliveries"]) and x[0]["state"] == "STATE_DELIVERED" and x
    )
    assert done[0]["attemptCount"] == 6
    r2 = http.post(f"/events/v2/subscriptions/{sub['uid']}:redeliver", json={"eventId": "nope"})
    assert r2.status_code == 404


def test_retry_after_is_honoured(es: Server, rx: Receiver) -> None:
    http = es.http
    org = mk_org(http)
    p = path()
    rx.behaviours[p] = fails_first(1, 429, {"retry-after": "1"})
    subscribe(http, org, rx.url(p), types=[PREFIX + "iam.group.created.v1"])
    mk_group(http, org)
    first, second = rx.wait(p, 2)
    assert second.at - first.at >= 0.9  # backoff alone would be milliseconds here


def test_gone_disables_the_subscription(es: Server, rx: Receiver) -> None:
    http = es.http
    org = mk_org(http)
    p = path()
    rx.behaviours[p] = lambda n: (410, {}) if n == 1 else (200, {})
    sub = subscribe(http, org, rx.url(p), types=[PREFIX + "iam.group.created.v1"])
    mk_group(http, org)
    rx.wait(p, 1)
    wait_until(lambda: ok(http.get(f"/events/v2/subscriptions/{sub['uid']}")).get("disabled"))
    (d,) = deliveries(http, sub["uid"])["deliveries"]
    assert d["state"] == "STATE_DISABLED" and d["attempts"][0]["statusCode"] == 410
    mk_group(http, org)  # nothing is queued for a disabled subscription
    assert deliveries(http, sub["uid"])["totalCount"] == "1"
    r = http.post(f"/events/v2/subscriptions/{sub['uid']}:redeliver", json={"eventId": d["eventId"]})
    assert r.status_code == 400 and r.json()["code"] == 9
    ok(http.patch(f"/events/v2/subscriptions/{sub['uid']}", json={"disabled": False}))
    g = mk_group(http, org)["uid"]
    second = rx.wait(p, 2)[1]
    assert second.ce("subject") == g
    time.sleep(0.3)
    assert len(rx.at(p)) == 2


def test_deliveries_list_conventions(es: Server, rx: Receiver) -> None:
    http = es.http
    org = mk_org(http)
    p = path()
    sub = subscribe(http, org, rx.url(p), types=[PREFIX + "iam.group.created.v1"])
    for _ in range(5):
        mk_group(http, org)
    rx.wait(p, 5)
    wait_until(lambda: deliveries(http, sub["uid"], state="STATE_DELIVERED")["totalCount"] == "5")
    page1 = deliveries(http, sub["uid"], page_size=2, order_by="created_at desc")
    assert page1["totalCount"] == "5" and len(page1["deliveries"]) == 2 and page1["nextPageToken"]
    page2 = deliveries(http, sub["uid"], page_size=2, order_by="created_at desc", page_token=page1["nextPageToken"])
    page3 = deliveries(http, sub["uid"], page_size=2, order_by="created_at desc", page_token=page2["nextPageToken"])
    assert "nextPageToken" not in page3
    all_uids = [d["uid"] for pg in (page1, page2, page3) for d in pg["deliveries"]]
    assert len(set(all_uids)) == 5 and all(u.startswith(sub["uid"] + "/") for u in all_uids)
    times = [d["createTime"] for pg in (page1, page2, page3) for d in pg["deliveries"]]
    assert times == sorted(times, reverse=True)
    one = page1["deliveries"][0]
    assert deliveries(http, sub["uid"], event_id=one["eventId"])["deliveries"] == [one]
    assert deliveries(http, sub["uid"], state="STATE_FAILED")["totalCount"] == "0"
    assert deliveries(http, sub["uid"], skip=4)["skipped"] == 4
    assert http.get("/events/v2/deliveries", params={"order_by": "name"}).status_code == 400
    # Deleting the subscription drops its deliveries.
    ok(http.delete(f"/events/v2/subscriptions/{sub['uid']}"))
    assert deliveries(http, sub["uid"])["totalCount"] == "0"


def test_rolled_back_changes_emit_nothing(es: Server, rx: Receiver) -> None:
    http = es.http
    org = mk_org(http)
    p = path()
    sub = subscribe(http, org, rx.url(p))
    g = mk_group(http, org, "taken")["uid"]
    ok(http.post(f"/registry/v2/repos/{g}", json={"name": "r"}))
    assert http.post(f"/iam/v2/groups/{org}", json={"name": "taken"}).status_code == 409  # duplicate name
    assert http.delete(f"/iam/v2/groups/{g}").status_code == 400  # not empty: FAILED_PRECONDITION
    assert http.post(f"/registry/v2/repos/{g}", json={"name": "r"}).status_code == 409
    assert http.post(f"/registry/v2/tags/{g}/{'0' * 16}", json={"name": "t", "digest": DIGEST_A}).status_code == 404
    marker = mk_group(http, org)["uid"]
    types = [d["eventType"].removeprefix(PREFIX) for d in deliveries(http, sub["uid"], page_size=50)["deliveries"]]
    assert sorted(types) == sorted(
        ["events.subscription.created.v1", "iam.group.created.v1", "platform.registry.repo.created.v1",
         "iam.group.created.v1"]
    )  # fmt: skip
    got = rx.wait(p, 4)
    time.sleep(0.3)
    assert len(rx.at(p)) == 4 and marker in {r.ce("subject") for r in got}


def test_ssrf_checked_again_at_delivery(tmp_path: Path, rx: Receiver, es: Server) -> None:
    """A sink accepted earlier whose address is no longer allowed (here: the loopback permission is gone,
    as when DNS starts answering a private address) is refused at delivery, and nothing is sent."""
    s = start_events_server(es.backend, tmp_path)
    org = mk_org(s.http)
    p = path()
    sub = subscribe(s.http, org, rx.url(p), types=[PREFIX + "iam.group.created.v1"])
    stop_server(s, drop=False)
    s = start_events_server(es.backend, tmp_path, database_url=s.database_url, loopback=False)
    try:
        mk_group(s.http, org)
        d = wait_until(lambda: (x := deliveries(s.http, sub["uid"])["deliveries"]) and x[0].get("attempts") and x)
        attempt = d[0]["attempts"][0]
        assert attempt.get("statusCode", 0) == 0 and attempt["error"].startswith("refused:"), attempt
        time.sleep(0.3)
        assert rx.at(p) == []
    finally:
        stop_server(s)


def test_over_grpc(es: Server, rx: Receiver, verifier: Verifier) -> None:
    """The same RPCs over gRPC: a mutation made there emits its event too."""
    from platform_api.gen.chainguard.platform.events.v2 import subscriptions_pb2 as ev
    from platform_api.gen.chainguard.platform.events.v2 import subscriptions_pb2_grpc as ev_grpc
    from platform_api.gen.chainguard.platform.iam.v2 import groups_pb2, groups_pb2_grpc

    org = mk_org(es.http)
    p = path()
    subs = ev_grpc.SubscriptionsServiceStub(es.channel)
    sub = subs.CreateSubscription(
        ev.CreateSubscriptionRequest(
            parent=org, subscription=ev.Subscription(sink=rx.url(p), types=[PREFIX + "iam.*"])
        ),
        timeout=10,
    )
    assert sub.secret.startswith("whsec_")
    g = groups_pb2_grpc.GroupsServiceStub(es.channel).CreateGroup(
        groups_pb2.CreateGroupRequest(parent=org, group=groups_pb2.Group(name="over-grpc")), timeout=10
    )
    (got,) = rx.wait(p, 1)
    assert got.ce("subject") == g.uid and got.json["actor"]["subject"] == es.owner
    verifier.verify(got, org, sub.secret)
    listed = ev_grpc.DeliveriesServiceStub(es.channel).ListDeliveries(
        ev.ListDeliveriesRequest(uidp={"children_of": sub.uid}), timeout=10
    )
    assert listed.total_count == 1 and listed.deliveries[0].event_id == got.ce("id")
    assert subs.GetSubscription(ev.GetSubscriptionRequest(uid=sub.uid), timeout=10).secret == ""
