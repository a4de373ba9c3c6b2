"""v1 Groups (`/iam/v1/groups`, chainguard.platform.iam.Groups) over the v2 implementation: the same groups
seen both ways, PUT replaces, List answers the full filtered set, an unknown id an empty list, the same
authorization; over HTTP and over gRPC with the contract's messages."""

from __future__ import annotations

from typing import Any

import grpc
import httpx
import pytest

from platform_api.gen.chainguard.platform.common import uidp_pb2
from platform_api.gen.chainguard.platform.iam.v1 import group_pb2, group_pb2_grpc
from tests.helpers import Server, assert_error, mk_group, ok, unique


def v1_list(http: httpx.Client, **params: Any) -> list[dict[str, Any]]:
    body = ok(http.get("/iam/v1/groups", params=params))
    assert set(body) <= {"items"}
    return list(body.get("items", []))


def test_created_over_v1_is_the_v2_group_and_back(http: httpx.Client, org: str) -> None:
    made = ok(http.post(f"/iam/v1/groups/{org}", json={"name": unique("g"), "description": "one"}))
    assert set(made) == {"id", "name", "description"} and made["id"].startswith(org + "/")
    seen = ok(http.get(f"/iam/v2/groups/{made['id']}"))
    assert (seen["uid"], seen["name"], seen["description"]) == (made["id"], made["name"], "one")
    two = mk_group(http, org, unique("g2"))
    listed = v1_list(http, **{"uidp.childrenOf": org})
    assert sorted(g["id"] for g in listed) == sorted([made["id"], two["uid"]])
    assert {g["id"]: g["name"] for g in listed}[two["uid"]] == two["name"]


def test_put_replaces_and_delete(http: httpx.Client, org: str) -> None:
    g = mk_group(http, org, unique("g"), description="was")
    r = http.put(f"/iam/v1/groups/{g['uid']}", json={"name": "renamed"})
    assert ok(r) == {"id": g["uid"], "name": "renamed"}  # the description not sent is cleared
    v2 = ok(http.get(f"/iam/v2/groups/{g['uid']}"))
    assert v2["name"] == "renamed" and "description" not in v2
    assert ok(http.delete(f"/iam/v1/groups/{g['uid']}")) == {}
    assert http.get(f"/iam/v2/groups/{g['uid']}").status_code == 404
    assert_error(http.delete(f"/iam/v1/groups/{g['uid']}"), 404, 5)


def test_list_filters_full_set_and_unknown_id(http: httpx.Client, org: str) -> None:
    made = [mk_group(http, org, f"n{i:03d}")["uid"] for i in range(205)]  # more than one v2 page (200)
    listed = v1_list(http, **{"uidp.childrenOf": org})
    assert sorted(g["id"] for g in listed) == sorted(made)
    assert [g["id"] for g in v1_list(http, id=made[7])] == [made[7]]
    assert [g["name"] for g in v1_list(http, name="n042", **{"uidp.childrenOf": org})] == ["n042"]
    assert v1_list(http, id=org + "/" + "0" * 16) == []
    assert ok(http.get("/iam/v1/groups", params={"id": org + "/" + "0" * 16})) == {}
    assert_error(http.get("/iam/v1/groups", params={"id": "not-a-uid"}), 400, 3, "id")  # named as sent


def test_resource_limits_are_refused_not_dropped(http: httpx.Client, org: str) -> None:
    r = http.post(f"/iam/v1/groups/{org}", json={"name": unique("g"), "resourceLimits": {"repos": 3}})
    assert_error(r, 400, 3, "group.resource_limits")


def test_authorization_is_the_v2_one(server: Server, http: httpx.Client, org: str) -> None:
    sub = mk_group(http, org, unique("sub"))["uid"]
    other = mk_group(http, org, unique("other"))["uid"]
    _, token = server.identity_with_role(sub, "viewer", home=org)
    with server.client(token) as viewer:
        assert [g["id"] for g in v1_list(viewer, **{"uidp.descendantsOf": org})] == [sub]
        assert v1_list(viewer, id=other) == []
        assert viewer.put(f"/iam/v1/groups/{sub}", json={"name": "x"}).status_code == 403
        assert viewer.delete(f"/iam/v1/groups/{sub}").status_code == 403
        assert viewer.post(f"/iam/v1/groups/{sub}", json={"name": "x"}).status_code == 403
        assert viewer.put(f"/iam/v1/groups/{other}", json={"name": "x"}).status_code in (403, 404)


def test_over_grpc_with_the_contract_messages(server: Server, org: str) -> None:
    stub = group_pb2_grpc.GroupsStub(server.grpc_channel(server.token))
    made = stub.Create(group_pb2.CreateGroupRequest(parent=org, group=group_pb2.Group(name=unique("g"))))
    assert made.id.startswith(org + "/")
    done = stub.Update(group_pb2.Group(id=made.id, name="after", description="d"))
    assert (done.id, done.name, done.description) == (made.id, "after", "d")
    found = stub.List(group_pb2.GroupFilter(uidp=uidp_pb2.UIDPFilter(children_of=org)))
    assert [(g.id, g.name) for g in found.items] == [(made.id, "after")]
    stub.Delete(group_pb2.DeleteGroupRequest(id=made.id))
    assert list(stub.List(group_pb2.GroupFilter(id=made.id)).items) == []
    with pytest.raises(grpc.RpcError) as e:
        stub.Delete(group_pb2.DeleteGroupRequest(id=made.id))
    assert e.value.code() == grpc.StatusCode.NOT_FOUND
