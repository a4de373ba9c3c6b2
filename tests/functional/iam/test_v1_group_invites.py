"""v1 GroupInvites (`/iam/v1/group_invites`, chainguard.platform.iam.GroupInvites) over the v2 implementation:
the same invites both ways, the code answered once (by Create) and redeemable, List the full set (more than
one v2 page) with its filters, the same authorization, `CreateWithGroup` unserved; over HTTP and gRPC."""

from __future__ import annotations

import secrets
from datetime import datetime
from typing import Any

import grpc
import httpx
import pytest
from google.protobuf import duration_pb2

from platform_api.auth import capabilities
from platform_api.gen.chainguard.platform.iam.v1 import group_invites_pb2 as pb
from platform_api.gen.chainguard.platform.iam.v1 import group_invites_pb2_grpc as pb_grpc
from tests.helpers import EDITOR, OWNER, VIEWER, Server, assert_error, mk_group, never_shows, ok, unique

PATH = "/iam/v1/group_invites"
V2 = "/iam/v2/groupInvites"
WEEK = "604800s"


def v1_list(http: httpx.Client, **params: Any) -> list[dict[str, Any]]:
    body = ok(http.get(PATH, params=params))
    assert set(body) <= {"items"}
    return list(body.get("items", []))


def instant(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def test_created_over_v1_is_the_v2_invite_and_back(server: Server, http: httpx.Client, org: str) -> None:
    r = http.post(f"{PATH}/{org}", json={"ttl": WEEK, "role": EDITOR, "email": "dev@example.com", "singleUse": True})
    made = ok(r)
    code = made.pop("code")
    assert code.startswith("painv_") and made["id"].startswith(org + "/") and len(made["keyId"]) == 16
    assert (
        made["role"]["id"] == EDITOR
        and made["role"]["name"] == "editor"
        and "repo.create" in made["role"]["capabilities"]
    )
    seen = ok(http.get(f"{V2}/{made['id']}"))
    assert (seen["uid"], seen["keyId"], seen["email"], seen["singleUse"]) == (
        made["id"],
        made["keyId"],
        "dev@example.com",
        True,
    )
    assert instant(seen["expirationTime"]) == instant(made["expiration"]) and seen["role"]["name"] == "editor"
    # The same capabilities, by their friendly names in v1.
    assert made["role"]["capabilities"] == [capabilities.FRIENDLY[c] for c in seen["role"]["capabilities"]]
    two = ok(http.post(f"/iam/v2/groupInvites/{org}", json={"roleUid": VIEWER, "ttl": WEEK}))
    two.pop("code")
    r_list = http.get(PATH, params={"group": org})
    listed = {i["id"]: i for i in ok(r_list)["items"]}
    assert set(listed) == {made["id"], two["uid"]}
    mine = listed[made["id"]]
    assert (mine["keyId"], mine["email"], mine["singleUse"], mine["role"]) == (
        made["keyId"], "dev@example.com", True, made["role"],
    )  # fmt: skip
    assert instant(mine["createdAt"]) == instant(seen["createTime"]) and "code" not in mine
    assert [i["id"] for i in v1_list(http, id=two["uid"])] == [two["uid"]]
    assert [i["id"] for i in v1_list(http, keyId=two["keyId"], group=org)] == [two["uid"]]
    assert ok(http.get(PATH, params={"id": org + "/" + "0" * 16})) == {}
    never_shows([r_list, http.get(f"{V2}/{made['id']}"), http.get(PATH, params={"id": made["id"]})], code)
    # The code a v1 Create answers is the invite's: it redeems.
    code = ok(http.post(f"{PATH}/{org}", json={"ttl": WEEK, "role": VIEWER}))["code"]
    body = {"name": unique("new"), "claimMatch": {"issuer": "https://issuer.example", "subject": secrets.token_hex(8)}}
    uid = ok(http.post(f"/iam/v2/identities/{org}", json=body))["uid"]
    with server.client(server.mint(uid)) as c:
        assert ok(c.post("/auth/v1/register", json={"code": code}))["group"] == org


def test_list_full_set_and_delete(http: httpx.Client, org: str) -> None:
    group = mk_group(http, org, unique("many"))["uid"]
    made = [ok(http.post(f"{PATH}/{group}", json={"ttl": WEEK, "role": VIEWER}))["id"] for _ in range(205)]
    assert sorted(i["id"] for i in v1_list(http, group=group)) == sorted(made)  # more than one v2 page (200)
    assert ok(http.delete(f"{PATH}/{made[0]}")) == {}
    assert http.get(f"{V2}/{made[0]}").status_code == 404
    assert_error(http.delete(f"{PATH}/{made[0]}"), 404, 5)
    assert len(v1_list(http, group=group)) == 204


def test_authorization_is_the_v2_one(server: Server, http: httpx.Client, org: str) -> None:
    sub, other = mk_group(http, org, unique("sub"))["uid"], mk_group(http, org, unique("other"))["uid"]
    mine, theirs = (ok(http.post(f"{PATH}/{g}", json={"ttl": WEEK, "role": VIEWER}))["id"] for g in (sub, other))
    _, token = server.identity_with_role(sub, "viewer", home=org)
    with server.client(token) as viewer:
        assert [i["id"] for i in v1_list(viewer, group=sub)] == [mine]
        assert v1_list(viewer, group=other) == [] and v1_list(viewer, id=theirs) == []
        assert viewer.post(f"{PATH}/{sub}", json={"ttl": WEEK, "role": VIEWER}).status_code == 403
        assert viewer.delete(f"{PATH}/{mine}").status_code == 403
        assert viewer.delete(f"{PATH}/{theirs}").status_code == viewer.delete(f"{V2}/{theirs}").status_code
    # An editor cannot invite into a role it does not hold (v2's rule).
    _, token = server.identity_with_role(sub, "editor", home=org)
    with server.client(token) as editor:
        r = editor.post(f"{PATH}/{sub}", json={"ttl": WEEK, "role": OWNER})
        assert r.status_code == editor.post(f"{V2}/{sub}", json={"ttl": WEEK, "roleUid": OWNER}).status_code == 403


def test_over_grpc_with_the_contract_messages(server: Server, org: str) -> None:
    stub = pb_grpc.GroupInvitesStub(server.grpc_channel(server.token))
    made = stub.Create(pb.GroupInviteRequest(group=org, ttl=duration_pb2.Duration(seconds=3600), role=VIEWER))
    assert made.id.startswith(org + "/") and made.code.startswith("painv_") and made.role.name == "viewer"
    found = stub.List(pb.GroupInviteFilter(group=org))
    assert [(i.id, i.key_id) for i in found.items] == [(made.id, made.key_id)]
    stub.Delete(pb.DeleteGroupInviteRequest(id=made.id))
    assert list(stub.List(pb.GroupInviteFilter(id=made.id)).items) == []
    with pytest.raises(grpc.RpcError) as e:
        stub.CreateWithGroup(pb.GroupInviteRequest(group=org, ttl=duration_pb2.Duration(seconds=3600), role=VIEWER))
    assert e.value.code() == grpc.StatusCode.UNIMPLEMENTED
