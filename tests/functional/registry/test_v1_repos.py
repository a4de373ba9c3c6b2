"""v1 repos (`/registry/v1/repos`, chainguard.platform.registry.Registry Create/Update/List/DeleteRepo) over
the v2 implementation: the same repos seen both ways, PUT replaces, List answers the full filtered set and
`{}` for an unknown id, what v2 does not keep is refused, the same authorization; over HTTP and gRPC."""

from __future__ import annotations

from typing import Any

import grpc
import httpx
import pytest

from platform_api.gen.chainguard.platform.common import uidp_pb2
from platform_api.gen.chainguard.platform.registry.v1 import registry_pb2, registry_pb2_grpc
from tests.helpers import Server, assert_error, error_info, mk_group, mk_repo, ok, rpc_error, unique


def v1_list(http: httpx.Client, **params: Any) -> list[dict[str, Any]]:
    body = ok(http.get("/registry/v1/repos", params=params))
    assert set(body) <= {"items"}
    return list(body.get("items", []))


def test_created_over_v1_is_the_v2_repo_and_back(http: httpx.Client, org: str) -> None:
    body = {"name": unique("r"), "description": "one", "aliases": ["a1:latest"], "activeTags": ["latest"]}
    made = ok(http.post(f"/registry/v1/repos/{org}", json=body))
    assert set(made) == {"id", "name", "description", "aliases", "activeTags", "createTime"}
    seen = ok(http.get(f"/registry/v2/repos/{made['id']}"))
    assert (seen["uid"], seen["name"], seen["description"], seen["createTime"]) == (
        made["id"], made["name"], "one", made["createTime"],
    )  # fmt: skip
    assert (seen["aliases"], seen["activeTags"]) == (["a1:latest"], ["latest"])
    two = mk_repo(http, org, unique("r2"))
    listed = {r["id"]: r for r in v1_list(http, **{"uidp.childrenOf": org})}
    assert sorted(listed) == sorted([made["id"], two["uid"]])
    assert (listed[two["uid"]]["name"], listed[two["uid"]]["createTime"]) == (two["name"], two["createTime"])
    assert [r["id"] for r in v1_list(http, name=two["name"], **{"uidp.childrenOf": org})] == [two["uid"]]
    assert [r["id"] for r in v1_list(http, id=made["id"])] == [made["id"]]
    assert ok(http.get("/registry/v1/repos", params={"id": org + "/" + "0" * 16})) == {}


def test_create_existing_answers_it_unless_prevented(http: httpx.Client, org: str) -> None:
    first = mk_repo(http, org, unique("r"), description="kept")
    again = ok(http.post(f"/registry/v1/repos/{org}", json={"name": first["name"], "description": "other"}))
    assert (again["id"], again["description"]) == (first["uid"], "kept")
    # The body is `repo` (HTTP rule): preventExisting travels as a query parameter.
    r = http.post(f"/registry/v1/repos/{org}", json={"name": first["name"]}, params={"preventExisting": "true"})
    assert_error(r, 409, 6)


def test_put_replaces_and_delete(http: httpx.Client, org: str) -> None:
    made = mk_repo(http, org, unique("r"), description="was", aliases=["x:1"])
    r = http.put(f"/registry/v1/repos/{made['uid']}", json={"name": "renamed"})
    assert ok(r) == {"id": made["uid"], "name": "renamed", "createTime": made["createTime"]}
    v2 = ok(http.get(f"/registry/v2/repos/{made['uid']}"))
    assert v2["name"] == "renamed" and "description" not in v2 and "aliases" not in v2
    assert ok(http.delete(f"/registry/v1/repos/{made['uid']}")) == {}
    assert http.get(f"/registry/v2/repos/{made['uid']}").status_code == 404
    assert_error(http.delete(f"/registry/v1/repos/{made['uid']}"), 404, 5)


@pytest.mark.parametrize(
    ("field", "value"),
    [("catalogTier", "BASE"), ("bundles", ["b"]), ("readme", "# hi"), ("sync_config", {"source": "s"}),
     ("customOverlay", {"environment": {"A": "1"}})],
)  # fmt: skip
def test_unkept_fields_are_refused_not_dropped(http: httpx.Client, org: str, field: str, value: Any) -> None:
    snake = {"catalogTier": "catalog_tier", "customOverlay": "custom_overlay"}.get(field, field)
    r = http.post(f"/registry/v1/repos/{org}", json={"name": unique("r"), field: value})
    assert_error(r, 400, 3, "repo." + snake)
    made = mk_repo(http, org, unique("r"))
    assert_error(http.put(f"/registry/v1/repos/{made['uid']}", json={"name": "n", field: value}), 400, 3, snake)


def test_authorization_is_the_v2_one(server: Server, http: httpx.Client, org: str) -> None:
    sub = mk_group(http, org, unique("sub"))["uid"]
    mine = mk_repo(http, sub, unique("r"))["uid"]
    other = mk_repo(http, org, unique("r"))["uid"]
    _, token = server.identity_with_role(sub, "viewer", home=org)
    with server.client(token) as viewer:
        assert [r["id"] for r in v1_list(viewer, **{"uidp.descendantsOf": org})] == [mine]
        assert v1_list(viewer, id=other) == []
        assert viewer.put(f"/registry/v1/repos/{mine}", json={"name": "x"}).status_code == 403
        assert viewer.delete(f"/registry/v1/repos/{mine}").status_code == 403
        assert viewer.post(f"/registry/v1/repos/{sub}", json={"name": "x"}).status_code == 403
        assert viewer.put(f"/registry/v1/repos/{other}", json={"name": "x"}).status_code in (403, 404)


def test_over_grpc_with_the_contract_messages(server: Server, org: str) -> None:
    stub = registry_pb2_grpc.RegistryStub(server.grpc_channel(server.token))
    made = stub.CreateRepo(registry_pb2.CreateRepoRequest(parent_id=org, repo=registry_pb2.Repo(name=unique("r"))))
    assert made.id.startswith(org + "/") and made.create_time.seconds > 0
    done = stub.UpdateRepo(registry_pb2.Repo(id=made.id, name="after", description="d"))
    assert (done.id, done.name, done.description) == (made.id, "after", "d")
    found = stub.ListRepos(registry_pb2.RepoFilter(uidp=uidp_pb2.UIDPFilter(children_of=org)))
    assert [(r.id, r.name) for r in found.items if r.id == made.id] == [(made.id, "after")]
    with pytest.raises(grpc.RpcError) as e:
        stub.UpdateRepo(registry_pb2.Repo(id=made.id, name="after", bundles=["b"]))
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    stub.DeleteRepo(registry_pb2.DeleteRepoRequest(id=made.id))
    assert list(stub.ListRepos(registry_pb2.RepoFilter(id=made.id)).items) == []


def big_repo(name: str) -> dict[str, Any]:
    """A repo as large as the contract's caps let one be written: ~150 KB of stored JSON."""
    return {
        "name": name,
        "description": "d" * 512,
        "aliases": [f"{'a' * 100}/alias-{a:03d}:{'t' * 30}" for a in range(100)],
        "activeTags": [f"{t:04d}{'v' * 124}" for t in range(1000)],
    }


def test_the_full_set_has_the_byte_budget_of_a_page(server: Server, http: httpx.Client, org: str) -> None:
    """Issue 26 item 6: a v1 list answers at most listing.MAX_ANSWER (3 MiB) bytes of records, refused as the set
    is read (413 ANSWER_TOO_LARGE), not once all of it is built; a viewer asking gets the same answer."""
    group = mk_group(http, org, unique("big"))["uid"]
    names = [unique("r") for _ in range(24)]  # 24 x ~150 KB: past 3 MiB, far below the 64 MiB backstop
    for name in names:
        ok(http.post(f"/registry/v2/repos/{group}", json=big_repo(name)))
    _, token = server.identity_with_role(group, "viewer", home=org)
    for client in (http, server.client(token)):
        r = client.get("/registry/v1/repos", params={"uidp.childrenOf": group})
        assert r.status_code == 413, r.status_code
        body = r.json()
        assert body["code"] == 8 and body["details"][0]["reason"] == "ANSWER_TOO_LARGE", body
        assert body["details"][0]["metadata"] == {"limitBytes": str(3 << 20)}
    # What fits answers whole.
    assert [r["name"] for r in v1_list(http, name=names[3], **{"uidp.childrenOf": group})] == [names[3]]
    stub = registry_pb2_grpc.RegistryStub(server.grpc_channel(token))
    err, st = rpc_error(stub.ListRepos, registry_pb2.RepoFilter(uidp=uidp_pb2.UIDPFilter(children_of=group)))
    assert err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED and error_info(st).reason == "ANSWER_TOO_LARGE"
