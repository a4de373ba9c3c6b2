"""v1 Subscriptions (`/events/v1/subscriptions`, chainguard.platform.events.Subscriptions) over the v2
implementation, and the events of v1 mutations: the same subscriptions seen both ways (a v1 Subscription is
`{id, sink}`: its secret is never in a v1 answer), List the full set and `{}` for an unknown id, the same
authorization, gRPC with the contract's messages; each v1 mutation (Groups Create/Update/Delete, Subscriptions
Create/Delete) delivers exactly the CloudEvent its v2 twin delivers (type, subject, group).

One server that may deliver to loopback sinks (a subscription of the session server would send its
deliveries off this machine), receiving on the loopback `rx` receiver; on the first backend selected only:
these adapters add nothing per backend (the v2 twins do the storing and emitting, and tests/functional/events
runs them on both), and a second events server would double the module's time."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from typing import Any

import grpc
import httpx
import pytest

from platform_api.gen.chainguard.platform.common import uidp_pb2
from platform_api.gen.chainguard.platform.events.v1 import subscriptions_pb2, subscriptions_pb2_grpc
from tests.helpers import (
    BACKENDS,
    Receiver,
    Server,
    Verifier,
    assert_error,
    mk_org,
    ok,
    start_events_server,
    stop_server,
    unique,
)

PREFIX = "local.platform-api.api."
V1 = "/events/v1/subscriptions"
V2 = "/events/v2/subscriptions"


@pytest.fixture(scope="module", params=BACKENDS[:1])
def es(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """An events server: loopback sinks allowed, retries in milliseconds."""
    s = start_events_server(request.param, tmp_path_factory.mktemp("v1-events-" + request.param))
    yield s
    stop_server(s)


def path() -> str:
    return "/hook/" + secrets.token_hex(6)


def v1_list(http: httpx.Client, **params: Any) -> list[dict[str, Any]]:
    body = ok(http.get(V1, params=params))
    assert set(body) <= {"items"}
    return list(body.get("items", []))


def test_created_over_v1_is_the_v2_subscription_and_back(es: Server, rx: Receiver) -> None:
    http = es.http
    org = mk_org(http)
    made = ok(http.post(f"{V1}/{org}", json={"sink": rx.url(path())}))
    assert set(made) == {"id", "sink"} and made["id"].startswith(org + "/")  # no secret: v1 has no field for it
    seen = ok(http.get(f"{V2}/{made['id']}"))
    assert (seen["uid"], seen["sink"]) == (made["id"], made["sink"]) and "types" not in seen and "disabled" not in seen
    # Made over v2 with v2-only facts: listed over v1 as {id, sink}, the secret nowhere.
    two = ok(http.post(f"{V2}/{org}", json={"sink": rx.url(path()), "types": [PREFIX + "iam.*"], "disabled": True}))
    listed = v1_list(http, **{"uidp.childrenOf": org})
    assert sorted(listed, key=lambda s: s["id"]) == sorted(
        [made, {"id": two["uid"], "sink": two["sink"]}], key=lambda s: s["id"]
    )
    assert v1_list(http, id=two["uid"]) == [{"id": two["uid"], "sink": two["sink"]}]
    assert two["secret"] not in http.get(V1, params={"uidp.childrenOf": org}).text
    assert ok(http.get(V1, params={"id": org + "/" + "0" * 16})) == {}
    # Refused as v2 refuses: a sink off limits, an unknown parent.
    assert_error(http.post(f"{V1}/{org}", json={"sink": "https://10.0.0.1/x"}), 400, 3, "sink")
    assert http.post(f"{V1}/{org}/{'0' * 16}", json={"sink": rx.url(path())}).status_code == 404
    assert ok(http.delete(f"{V1}/{made['id']}")) == {}
    assert http.get(f"{V2}/{made['id']}").status_code == 404
    assert_error(http.delete(f"{V1}/{made['id']}"), 404, 5)
    ok(http.delete(f"{V1}/{two['uid']}"))
    assert v1_list(http, **{"uidp.childrenOf": org}) == []


def test_authorization_is_the_v2_one(es: Server, rx: Receiver) -> None:
    http = es.http
    org = mk_org(http)
    sub = ok(http.post(f"{V2}/{org}", json={"sink": rx.url(path())}))
    _, viewer = es.identity_with_role(org, "viewer")
    with es.client(viewer) as c:
        assert v1_list(c, **{"uidp.childrenOf": org}) == [{"id": sub["uid"], "sink": sub["sink"]}]
        assert c.post(f"{V1}/{org}", json={"sink": rx.url(path())}).status_code == 403
        assert c.delete(f"{V1}/{sub['uid']}").status_code == 403
    other = mk_org(http)
    _, outsider = es.identity_with_role(other, "owner")
    with es.client(outsider) as c:
        assert v1_list(c, id=sub["uid"]) == [] and v1_list(c, **{"uidp.childrenOf": org}) == []
        for v1_call, v2_call in (
            (
                c.post(f"{V1}/{org}", json={"sink": rx.url(path())}),
                c.post(f"{V2}/{org}", json={"sink": rx.url(path())}),
            ),
            (c.delete(f"{V1}/{sub['uid']}"), c.delete(f"{V2}/{sub['uid']}")),
        ):
            assert v1_call.status_code == v2_call.status_code == 404
    with es.client(None) as c:
        assert c.get(V1).status_code == 401
    ok(http.delete(f"{V2}/{sub['uid']}"))


def test_over_grpc_with_the_contract_messages(es: Server, rx: Receiver) -> None:
    org = mk_org(es.http)
    stub = subscriptions_pb2_grpc.SubscriptionsStub(es.grpc_channel(es.token))
    sink = rx.url(path())
    made = stub.Create(subscriptions_pb2.CreateSubscriptionRequest(
        parent_id=org, subscription=subscriptions_pb2.Subscription(sink=sink)))  # fmt: skip
    assert made.id.startswith(org + "/") and made.sink == sink
    found = stub.List(subscriptions_pb2.SubscriptionFilter(uidp=uidp_pb2.UIDPFilter(children_of=org)))
    assert [(s.id, s.sink) for s in found.items] == [(made.id, sink)]
    stub.Delete(subscriptions_pb2.DeleteSubscriptionRequest(id=made.id))
    assert list(stub.List(subscriptions_pb2.SubscriptionFilter(id=made.id)).items) == []
    with pytest.raises(grpc.RpcError) as e:
        stub.Delete(subscriptions_pb2.DeleteSubscriptionRequest(id=made.id))
    assert e.value.code() == grpc.StatusCode.NOT_FOUND


def test_v1_mutations_deliver_their_v2_twins_events(es: Server, rx: Receiver) -> None:
    """The same operations over v2, then over v1, at one organization: the same CloudEvents (type, subject,
    group), each verified as a receiver would."""
    http = es.http
    org = mk_org(http)
    p = path()
    sub = ok(http.post(f"{V2}/{org}", json={"sink": rx.url(p)}))
    names = {org: "org"}

    def over_v2() -> None:
        g = ok(http.post(f"/iam/v2/groups/{org}", json={"name": unique("g")}))["uid"]
        ok(http.patch(f"/iam/v2/groups/{g}", json={"description": "d"}))
        ok(http.delete(f"/iam/v2/groups/{g}"))
        s = ok(http.post(f"{V2}/{org}", json={"sink": rx.url(path())}))["uid"]
        ok(http.delete(f"{V2}/{s}"))
        names.update({g: "group", s: "subscription"})

    def over_v1() -> None:
        g = ok(http.post(f"/iam/v1/groups/{org}", json={"name": unique("g")}))["id"]
        ok(http.put(f"/iam/v1/groups/{g}", json={"name": "g", "description": "d"}))
        ok(http.delete(f"/iam/v1/groups/{g}"))
        made = ok(http.post(f"{V1}/{org}", json={"sink": rx.url(path())}))
        assert set(made) == {"id", "sink"}
        ok(http.delete(f"{V1}/{made['id']}"))
        names.update({g: "group v1", made["id"]: "subscription v1"})

    over_v2()
    over_v1()
    got = [r for r in rx.wait(p, 11) if r.ce("subject") != sub["uid"]]  # 10 and the subscription's own
    verifier = Verifier(es.base_url)
    seen = []
    for r in sorted(got, key=lambda r: r.ce("time")):
        verifier.verify(r, org, sub["secret"])
        subject = names[r.ce("subject")]
        seen.append((subject.endswith(" v1"), r.ce("type").removeprefix(PREFIX), subject.removesuffix(" v1"),
                     names[r.ce("group")].removesuffix(" v1")))  # fmt: skip
        assert "secret" not in r.json["body"]
    twins = [(t, s, g) for v1, t, s, g in seen if not v1]
    assert (
        [(t, s, g) for v1, t, s, g in seen if v1]
        == twins
        == [
            ("iam.group.created.v1", "group", "group"),
            ("iam.group.updated.v1", "group", "group"),
            ("iam.group.deleted.v1", "group", "org"),
            ("events.subscription.created.v1", "subscription", "org"),
            ("events.subscription.deleted.v1", "subscription", "org"),
        ]
    )
    assert len(rx.at(p)) == 11, "nothing else"
