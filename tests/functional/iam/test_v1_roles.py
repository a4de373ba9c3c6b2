"""v1 Roles, RoleBindings and Terms (`/iam/v1/roles`, `/iam/v1/rolebindings`, `/iam/v1/terms`) over the v2
implementations, in one module so they share one server per backend: the same data seen both ways (ids,
names, times, capabilities: friendly names on v1, enum names on v2), PUT replaces, List answers the full
filtered set with the built-in roles as v2 lists them, an unknown id an empty list, CreateBatch takes the JSON
array, the same authorization; over HTTP and over gRPC with the contract's messages."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import grpc
import httpx
import pytest

from platform_api.auth.capabilities import FRIENDLY
from platform_api.gen.chainguard.platform.common import uidp_pb2
from platform_api.gen.chainguard.platform.iam.v1 import (
    role_binding_pb2,
    role_binding_pb2_grpc,
    role_pb2,
    role_pb2_grpc,
    terms_pb2,
    terms_pb2_grpc,
)
from tests.helpers import EDITOR, VIEWER, Server, all_items, assert_error, mk_group, mk_role, ok, unique

NONE = "0" * 16


def items(http: httpx.Client, path: str, **params: Any) -> list[dict[str, Any]]:
    body = ok(http.get(path, params=params))
    assert set(body) <= {"items"}
    return list(body.get("items", []))


def friendly(names: list[str]) -> list[str]:
    return [FRIENDLY[n] for n in names]


def instant(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def identity(http: httpx.Client, parent: str) -> str:
    body = {"name": unique("i"), "claimMatch": {"issuer": "https://issuer.example", "subject": unique("s")}}
    return str(ok(http.post(f"/iam/v2/identities/{parent}", json=body))["uid"])


# Roles


def test_role_created_over_v1_is_the_v2_role_and_back(http: httpx.Client, org: str) -> None:
    body = {"name": unique("r"), "description": "d", "capabilities": ["repo.list", "CAP_IAM_GROUPS_LIST"]}
    made = ok(http.post(f"/iam/v1/roles/{org}", json=body))
    assert made["id"].startswith(org + "/") and sorted(made["capabilities"]) == ["groups.list", "repo.list"]
    seen = ok(http.get(f"/iam/v2/roles/{made['id']}"))
    assert (seen["uid"], seen["name"], seen["description"]) == (made["id"], body["name"], "d")
    assert sorted(seen["capabilities"]) == ["CAP_IAM_GROUPS_LIST", "CAP_REPO_LIST"]
    assert friendly(seen["capabilities"]) == made["capabilities"]
    other = mk_role(http, org, "CAP_APK_LIST")
    listed = {r["id"]: r for r in items(http, "/iam/v1/roles", **{"uidp.childrenOf": org})}
    assert sorted(listed) == sorted([made["id"], other]) and listed[other]["capabilities"] == ["apk.list"]
    assert [r["id"] for r in items(http, "/iam/v1/roles", parent=org, name=body["name"])] == [made["id"]]
    assert [r["id"] for r in items(http, "/iam/v1/roles", id=other)] == [other]
    assert ok(http.get("/iam/v1/roles", params={"id": f"{org}/{NONE}"})) == {}


def test_unknown_capabilities_are_refused(http: httpx.Client, org: str) -> None:
    r = http.post(f"/iam/v1/roles/{org}", json={"name": unique("r"), "capabilities": ["repo.list", "no.such"]})
    assert_error(r, 400, 3, "role.capabilities")
    assert_error(http.post(f"/iam/v1/roles/{org}", json={"name": unique("r")}), 400, 3, "capabilities")
    made = mk_role(http, org, "CAP_REPO_LIST")
    assert_error(
        http.put(f"/iam/v1/roles/{made}", json={"name": "x", "capabilities": ["no.such"]}), 400, 3, "capabilities"
    )
    assert ok(http.get(f"/iam/v2/roles/{made}"))["capabilities"] == ["CAP_REPO_LIST"]


def test_builtin_roles_are_listed_as_v2_lists_them(http: httpx.Client) -> None:
    v2, _ = all_items(http, "/iam/v2/roles", "roles", **{"uidp.inRoot": "true"})
    v1 = items(http, "/iam/v1/roles", **{"uidp.inRoot": "true"})
    assert len(v1) >= 5 and VIEWER in {r["id"] for r in v1}
    assert {r["id"]: (r["name"], r["capabilities"]) for r in v1} == {
        r["uid"]: (r["name"], friendly(r["capabilities"])) for r in v2
    }
    everything = {r["id"] for r in items(http, "/iam/v1/roles")}
    assert everything >= {r["uid"] for r in v2}


def test_role_put_replaces_and_delete(http: httpx.Client, org: str) -> None:
    made = ok(
        http.post(f"/iam/v2/roles/{org}", json={"name": "r", "description": "was", "capabilities": ["CAP_REPO_LIST"]})
    )
    r = http.put(f"/iam/v1/roles/{made['uid']}", json={"name": "renamed", "capabilities": ["apk.list"]})
    assert ok(r) == {"id": made["uid"], "name": "renamed", "capabilities": ["apk.list"]}
    v2 = ok(http.get(f"/iam/v2/roles/{made['uid']}"))
    assert (v2["name"], "description" in v2, v2["capabilities"]) == ("renamed", False, ["CAP_APK_LIST"])
    assert ok(http.delete(f"/iam/v1/roles/{made['uid']}")) == {}
    assert_error(http.delete(f"/iam/v1/roles/{made['uid']}"), 404, 5)
    # A built-in role is not changed through the API: v1 answers what v2 answers.
    v2_answer = http.patch(f"/iam/v2/roles/{VIEWER}", json={"name": "mine", "capabilities": ["CAP_REPO_LIST"]})
    v1_answer = http.put(f"/iam/v1/roles/{VIEWER}", json={"name": "mine", "capabilities": ["repo.list"]})
    assert v2_answer.status_code >= 400 and (v1_answer.status_code, v1_answer.json()["code"]) == (
        v2_answer.status_code, v2_answer.json()["code"],
    )  # fmt: skip


def test_role_list_is_the_full_set(http: httpx.Client, org: str) -> None:
    made = [mk_role(http, org, "CAP_REPO_LIST", name=f"n{i:03d}") for i in range(205)]  # > one v2 page (200)
    assert sorted(r["id"] for r in items(http, "/iam/v1/roles", parent=org)) == sorted(made)


# Role bindings


def test_binding_created_over_v1_is_the_v2_binding_and_back(http: httpx.Client, org: str) -> None:
    who, role = identity(http, org), mk_role(http, org, "CAP_REPO_LIST", name=unique("r"))
    made = ok(http.post(f"/iam/v1/rolebindings/{org}", json={"identity": who, "role": VIEWER}))
    assert made == {"id": made["id"], "identity": who, "group": org, "role": VIEWER}
    seen = ok(http.get(f"/iam/v2/roleBindings/{made['id']}"))
    assert (seen["identity"]["uid"], seen["group"]["uid"], seen["role"]["uid"]) == (who, org, VIEWER)
    other = ok(http.post(f"/iam/v2/roleBindings/{org}", json={"identityUid": who, "roleUid": role}))
    listed = {b["id"]: b for b in items(http, "/iam/v1/rolebindings", **{"uidp.childrenOf": org})}
    v2 = {b["uid"]: b for b in ok(http.get("/iam/v2/roleBindings", params={"uidp.childrenOf": org}))["roleBindings"]}
    assert sorted(listed) == sorted(v2) and {made["id"], other["uid"]} <= set(listed)
    for uid, b in v2.items():
        v1 = listed[uid]
        assert (v1["identity"], v1["group"]["id"], v1["group"]["name"], v1["role"]["id"], v1["role"]["name"]) == (
            b["identity"]["uid"], b["group"]["uid"], b["group"]["name"], b["role"]["uid"], b["role"]["name"],
        )  # fmt: skip
        assert instant(v1["createdAt"]) == instant(b["createTime"])
        assert (v1.get("claimMatchIssuer"), v1.get("claimMatchSubject")) == (
            b["identity"].get("issuer"), b["identity"].get("subject"),
        )  # fmt: skip
    assert listed[other["uid"]]["role"]["capabilities"] == ["repo.list"]
    viewer_caps = friendly(ok(http.get(f"/iam/v2/roles/{VIEWER}"))["capabilities"])
    assert listed[made["id"]]["role"]["capabilities"] == viewer_caps
    assert [b["id"] for b in items(http, "/iam/v1/rolebindings", id=made["id"])] == [made["id"]]
    assert ok(http.get("/iam/v1/rolebindings", params={"id": f"{org}/{NONE}"})) == {}


def test_binding_group_must_be_its_parent(http: httpx.Client, org: str) -> None:
    sub = mk_group(http, org, unique("sub"))["uid"]
    who = identity(http, org)
    r = http.post(f"/iam/v1/rolebindings/{org}", json={"identity": who, "role": VIEWER, "group": sub})
    assert_error(r, 400, 3, "role_binding.group")
    made = ok(http.post(f"/iam/v1/rolebindings/{sub}", json={"identity": who, "role": VIEWER, "group": sub}))
    r = http.put(f"/iam/v1/rolebindings/{made['id']}", json={"identity": who, "role": VIEWER, "group": org})
    assert_error(r, 400, 3, "group")


def test_binding_put_replaces_and_delete(http: httpx.Client, org: str) -> None:
    who, other = identity(http, org), identity(http, org)
    made = ok(http.post(f"/iam/v2/roleBindings/{org}", json={"identityUid": who, "roleUid": VIEWER}))
    done = ok(http.put(f"/iam/v1/rolebindings/{made['uid']}", json={"identity": other, "role": EDITOR}))
    assert done == {"id": made["uid"], "identity": other, "group": org, "role": EDITOR}
    seen = ok(http.get(f"/iam/v2/roleBindings/{made['uid']}"))
    assert (seen["identity"]["uid"], seen["role"]["uid"]) == (other, EDITOR)
    assert_error(http.put(f"/iam/v1/rolebindings/{made['uid']}", json={"identity": other}), 400, 3, "role_uid")
    assert ok(http.delete(f"/iam/v1/rolebindings/{made['uid']}")) == {}
    assert http.get(f"/iam/v2/roleBindings/{made['uid']}").status_code == 404
    assert ok(http.delete(f"/iam/v1/rolebindings/{made['uid']}")) == {}  # v2's delete is idempotent


def test_create_batch_takes_the_json_array(http: httpx.Client, org: str) -> None:
    who = [identity(http, org) for _ in range(3)]
    body = [{"identity": w, "role": VIEWER} for w in who]
    before = ok(http.get("/iam/v2/roleBindings", params={"uidp.childrenOf": org}))["roleBindings"]
    made = ok(http.post(f"/iam/v1/rolebindings/batch/{org}", json=body))["roleBindings"]
    assert [(b["identity"], b["group"], b["role"]) for b in made] == [(w, org, VIEWER) for w in who]
    after = ok(http.get("/iam/v2/roleBindings", params={"uidp.childrenOf": org}))["roleBindings"]
    assert {b["uid"] for b in after} - {b["uid"] for b in before} == {b["id"] for b in made}
    r = http.post(f"/iam/v1/rolebindings/batch/{org}", json=[{"identity": who[0], "role": VIEWER, "group": NONE}])
    assert_error(r, 400, 3, "role_bindings[0].group")
    assert_error(http.post(f"/iam/v1/rolebindings/batch/{org}", json=[]), 400, 3, "requests")


def test_authorization_is_the_v2_one(server: Server, http: httpx.Client, org: str) -> None:
    sub = mk_group(http, org, unique("sub"))["uid"]
    other = mk_group(http, org, unique("other"))["uid"]
    mine, theirs = mk_role(http, sub, "CAP_REPO_LIST"), mk_role(http, other, "CAP_REPO_LIST")
    bound = ok(
        http.post(f"/iam/v2/roleBindings/{other}", json={"identityUid": identity(http, other), "roleUid": theirs})
    )
    _, token = server.identity_with_role(sub, "viewer", home=org)
    with server.client(token) as viewer:
        v2_roles, _ = all_items(viewer, "/iam/v2/roles", "roles", **{"uidp.descendantsOf": org})
        seen = {r["id"] for r in items(viewer, "/iam/v1/roles", **{"uidp.descendantsOf": org})}
        assert seen == {r["uid"] for r in v2_roles} and mine in seen and theirs not in seen
        v2_bindings, _ = all_items(viewer, "/iam/v2/roleBindings", "roleBindings", **{"uidp.descendantsOf": org})
        seen = {b["id"] for b in items(viewer, "/iam/v1/rolebindings", **{"uidp.descendantsOf": org})}
        assert seen == {b["uid"] for b in v2_bindings} and bound["uid"] not in seen
        assert items(viewer, "/iam/v1/rolebindings", id=bound["uid"]) == []
        assert viewer.post(f"/iam/v1/roles/{sub}", json={"name": "x", "capabilities": ["repo.list"]}).status_code == 403
        assert viewer.put(f"/iam/v1/roles/{mine}", json={"name": "x", "capabilities": ["repo.list"]}).status_code == 403
        assert viewer.delete(f"/iam/v1/roles/{mine}").status_code == 403
        who = identity(http, sub)
        assert viewer.post(f"/iam/v1/rolebindings/{sub}", json={"identity": who, "role": VIEWER}).status_code == 403
        assert (
            viewer.post(f"/iam/v1/rolebindings/batch/{sub}", json=[{"identity": who, "role": VIEWER}]).status_code
            == 403
        )
        mine_bound = ok(http.post(f"/iam/v2/roleBindings/{sub}", json={"identityUid": who, "roleUid": mine}))["uid"]
        assert viewer.delete(f"/iam/v1/rolebindings/{mine_bound}").status_code == 403
        assert (
            viewer.put(f"/iam/v1/rolebindings/{mine_bound}", json={"identity": who, "role": VIEWER}).status_code == 403
        )
        # Out of reach: v1 answers exactly what v2 answers.
        v2_answer = viewer.delete(f"/iam/v2/roleBindings/{bound['uid']}")
        v1_answer = viewer.delete(f"/iam/v1/rolebindings/{bound['uid']}")
        assert v2_answer.status_code >= 400 and (v1_answer.status_code, v1_answer.json()["code"]) == (
            v2_answer.status_code, v2_answer.json()["code"],
        )  # fmt: skip
        assert viewer.post(f"/iam/v1/terms/{sub}", json={"documentIds": ["tos.v1"]}).status_code == 403


# Terms


def test_terms_accepted_over_v1_are_the_v2_ones(server: Server, http: httpx.Client, org: str) -> None:
    sub = mk_group(http, org, unique("sub"))["uid"]
    out = ok(http.post(f"/iam/v1/terms/{org}", json={"documentIds": ["tos.v1", "tos.v1"]}))
    assert out == {"group": org, "documentIds": ["tos.v1"]}
    ok(http.post(f"/iam/v2/terms/{sub}", json={"documentIds": ["dpa.v1"]}))
    v1 = items(http, f"/iam/v1/terms/{sub}")
    v2 = ok(http.get(f"/iam/v2/terms/{sub}"))["termsAcceptances"]
    assert sorted((t["docId"], t["acceptedBy"], instant(t["acceptedAt"])) for t in v1) == sorted(
        (t["docId"], t["acceptedBy"], instant(t["createTime"])) for t in v2
    )
    assert {t["docId"] for t in v1} == {"tos.v1", "dpa.v1"} and {t["acceptedBy"] for t in v1} == {server.owner}
    assert_error(http.post(f"/iam/v1/terms/{org}", json={"documentIds": ["nope"]}), 400, 3, "document_ids")
    assert_error(http.get(f"/iam/v1/terms/{org}/{NONE}"), 404, 5)


# gRPC


def test_over_grpc_with_the_contract_messages(server: Server, http: httpx.Client, org: str) -> None:
    channel = server.grpc_channel(server.token)
    roles = role_pb2_grpc.RolesStub(channel)
    made = roles.Create(
        role_pb2.CreateRoleRequest(parent_id=org, role=role_pb2.Role(name="g", capabilities=["repo.list"]))
    )
    assert made.id.startswith(org + "/") and list(made.capabilities) == ["repo.list"]
    done = roles.Update(role_pb2.Role(id=made.id, name="after", capabilities=["repo.list", "apk.list"]))
    assert sorted(done.capabilities) == ["apk.list", "repo.list"]
    found = roles.List(role_pb2.RoleFilter(uidp=uidp_pb2.UIDPFilter(children_of=org)))
    assert [(r.id, r.name) for r in found.items] == [(made.id, "after")]

    bindings = role_binding_pb2_grpc.RoleBindingsStub(channel)
    who = [identity(http, org) for _ in range(2)]
    batch = bindings.CreateBatch(role_binding_pb2.CreateRoleBindingBatchRequest(
        parent=org, role_bindings=[role_binding_pb2.RoleBinding(identity=w, role=made.id) for w in who]))  # fmt: skip
    assert [(b.identity, b.group, b.role) for b in batch.role_bindings] == [(w, org, made.id) for w in who]
    listed = bindings.List(role_binding_pb2.RoleBindingFilter(id=batch.role_bindings[0].id))
    assert [(b.id, b.role.id, list(b.role.capabilities)) for b in listed.items] == [
        (batch.role_bindings[0].id, made.id, list(done.capabilities))
    ]
    for b in batch.role_bindings:
        bindings.Delete(role_binding_pb2.DeleteRoleBindingRequest(id=b.id))
    roles.Delete(role_pb2.DeleteRoleRequest(id=made.id))
    with pytest.raises(grpc.RpcError) as e:
        roles.Delete(role_pb2.DeleteRoleRequest(id=made.id))
    assert e.value.code() == grpc.StatusCode.NOT_FOUND

    terms = terms_pb2_grpc.TermsStub(channel)
    assert list(terms.AcceptTerms(terms_pb2.AcceptTermsRequest(group=org, document_ids=["dpa.v1"])).document_ids) == [
        "dpa.v1"
    ]
    assert [t.doc_id for t in terms.ListAccepted(terms_pb2.TermsFilter(group=org)).items] == ["dpa.v1"]
