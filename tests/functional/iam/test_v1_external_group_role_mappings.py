"""v1 ExternalGroupRoleMappings (`/iam/v1/externalGroupRoleMappings`, chainguard.platform.iam.
ExternalGroupRoleMappings) over the v2 implementation: the same mappings both ways, Get, List and its filters,
Delete and BatchDelete, the same authorization; over HTTP and over gRPC."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import grpc
import httpx
import pytest

from platform_api.gen.chainguard.platform.common import uidp_pb2
from platform_api.gen.chainguard.platform.iam.v1 import external_group_role_mappings_pb2 as pb
from platform_api.gen.chainguard.platform.iam.v1 import external_group_role_mappings_pb2_grpc as pb_grpc
from tests.helpers import EDITOR, OWNER, VIEWER, Server, assert_error, mk_group, mk_idp, ok, unique

PATH = "/iam/v1/externalGroupRoleMappings"
V2 = "/iam/v2/externalGroupRoleMappings"


def v1_list(http: httpx.Client, **params: Any) -> list[dict[str, Any]]:
    body = ok(http.get(PATH, params=params))
    assert set(body) <= {"items"}
    return list(body.get("items", []))


def mk(http: httpx.Client, idp: str, group: str, role: str = VIEWER, scope: str = "") -> dict[str, Any]:
    body = {"externalGroupId": group, "roleUidp": role, "scope": scope or idp.rsplit("/", 1)[0]}
    return ok(http.post(f"{PATH}/{idp}", json=body))


def instant(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def test_created_over_v1_is_the_v2_mapping_and_back(http: httpx.Client, org: str) -> None:
    idp = mk_idp(http, org)["uid"]
    made = mk(http, idp, "Engineering", EDITOR)
    assert set(made) == {"id", "identityProviderUidp", "externalGroupId", "roleUidp", "scope", "createdAt"}
    assert made["id"].startswith(idp + "/")
    assert (made["identityProviderUidp"], made["externalGroupId"], made["roleUidp"], made["scope"]) == (
        idp, "Engineering", EDITOR, org,
    )  # fmt: skip
    seen = ok(http.get(f"{V2}/{made['id']}"))
    assert (seen["uid"], seen["identityProviderUid"], seen["externalGroupId"], seen["roleUid"], seen["scope"]) == (
        made["id"], idp, "Engineering", EDITOR, org,
    )  # fmt: skip
    assert instant(seen["createTime"]) == instant(made["createdAt"])
    assert ok(http.get(f"{PATH}/{made['id']}")) == made
    two = ok(http.post(f"{V2}/{idp}", json={"externalGroupId": "Ops", "roleUid": VIEWER, "scope": org}))
    other = mk(http, mk_idp(http, org)["uid"], "Elsewhere")
    listed = {m["id"]: m for m in v1_list(http, identityProviderUidp=idp)}
    assert set(listed) == {made["id"], two["uid"]} and listed[made["id"]] == made
    assert listed[two["uid"]]["roleUidp"] == VIEWER and listed[two["uid"]]["identityProviderUidp"] == idp
    assert {m["id"] for m in v1_list(http, **{"uidp.descendantsOf": org})} == {made["id"], two["uid"], other["id"]}
    assert [m["id"] for m in v1_list(http, **{"uidp.ids": other["id"]})] == [other["id"]]
    assert ok(http.get(PATH, params={"identityProviderUidp": org + "/" + "0" * 16})) == {}
    assert_error(http.get(f"{PATH}/{idp}/{'0' * 16}"), 404, 5)
    assert_error(http.post(f"{PATH}/{idp}", json={"externalGroupId": "Engineering", "roleUidp": EDITOR, "scope": org}),
                 409, 6)  # fmt: skip


def test_delete_and_batch_delete(http: httpx.Client, org: str) -> None:
    idp = mk_idp(http, org)["uid"]
    a, b, c = (mk(http, idp, g)["id"] for g in ("a", "b", "c"))
    assert ok(http.delete(f"{PATH}/{a}")) == {}
    assert http.get(f"{V2}/{a}").status_code == 404
    assert_error(http.delete(f"{PATH}/{a}"), 404, 5)
    out = ok(http.post(f"{PATH}:batchDelete", json={"parentId": idp, "ids": [b, a, c]}))
    assert out["parentId"] == idp and [m["id"] for m in out["items"]] == [b, c]  # gone ones skipped, as v2
    assert out["items"][0]["externalGroupId"] == "b" and out["items"][0]["identityProviderUidp"] == idp
    assert v1_list(http, identityProviderUidp=idp) == []
    assert_error(http.post(f"{PATH}:batchDelete", json={"parentId": idp, "ids": [org + "/" + "1" * 16]}), 400, 3)


def test_authorization_is_the_v2_one(server: Server, http: httpx.Client, org: str) -> None:
    sub = mk_group(http, org, unique("sub"))["uid"]
    mine, theirs = mk(http, mk_idp(http, sub)["uid"], "x"), mk(http, mk_idp(http, org)["uid"], "y")
    _, token = server.identity_with_role(sub, "viewer", home=org)
    with server.client(token) as viewer:
        assert [m["id"] for m in v1_list(viewer, **{"uidp.descendantsOf": org})] == [mine["id"]]
        assert ok(viewer.get(f"{PATH}/{mine['id']}")) == mine
        assert viewer.get(f"{PATH}/{theirs['id']}").status_code == viewer.get(f"{V2}/{theirs['id']}").status_code
        body = {"externalGroupId": "z", "roleUidp": VIEWER, "scope": sub}
        assert viewer.post(f"{PATH}/{mine['identityProviderUidp']}", json=body).status_code == 403
        assert viewer.delete(f"{PATH}/{mine['id']}").status_code == 403
        batch = {"parentId": mine["identityProviderUidp"], "ids": [mine["id"]]}
        assert viewer.post(f"{PATH}:batchDelete", json=batch).status_code == 403
    # Nobody maps a role they do not hold (v2's rule).
    _, token = server.identity_with_role(org, "editor")
    with server.client(token) as editor:
        body = {"externalGroupId": "z", "roleUidp": OWNER, "scope": org}
        assert editor.post(f"{PATH}/{theirs['identityProviderUidp']}", json=body).status_code == 403


def test_over_grpc_with_the_contract_messages(server: Server, http: httpx.Client, org: str) -> None:
    idp = mk_idp(http, org)["uid"]
    stub = pb_grpc.ExternalGroupRoleMappingsStub(server.grpc_channel(server.token))
    mapping = pb.ExternalGroupRoleMapping(external_group_id="Eng", role_uidp=VIEWER, scope=org)
    made = stub.Create(pb.CreateExternalGroupRoleMappingRequest(parent_id=idp, mapping=mapping))
    assert (made.identity_provider_uidp, made.role_uidp, made.scope) == (idp, VIEWER, org) and made.created_at.seconds
    assert stub.Get(pb.GetExternalGroupRoleMappingRequest(uid=made.id)) == made
    found = stub.List(pb.ExternalGroupRoleMappingFilter(uidp=uidp_pb2.UIDPFilter(descendants_of=org)))
    assert [m.id for m in found.items] == [made.id]
    second = stub.Create(pb.CreateExternalGroupRoleMappingRequest(parent_id=idp, mapping=mapping.__class__(
        external_group_id="Ops", role_uidp=VIEWER, scope=org)))  # fmt: skip
    out = stub.BatchDelete(pb.BatchDeleteExternalGroupRoleMappingsRequest(parent_id=idp, ids=[second.id]))
    assert out.parent_id == idp and [m.id for m in out.items] == [second.id]
    stub.Delete(pb.DeleteExternalGroupRoleMappingRequest(id=made.id))
    with pytest.raises(grpc.RpcError) as e:
        stub.Get(pb.GetExternalGroupRoleMappingRequest(uid=made.id))
    assert e.value.code() == grpc.StatusCode.NOT_FOUND
