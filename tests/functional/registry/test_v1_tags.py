"""v1 tags (`/registry/v1/tags`, chainguard.platform.registry.Registry Create/Update/List/DeleteTag) over the
v2 implementation: the same tags seen both ways, PUT points the tag (no rename), List answers the full
filtered set (v1's exclude_* flags) and `{}` for an unknown id, bundles are refused, the same authorization;
over HTTP and gRPC."""

from __future__ import annotations

from typing import Any

import grpc
import httpx
import pytest

from platform_api.gen.chainguard.platform.common import uidp_pb2
from platform_api.gen.chainguard.platform.registry.v1 import registry_pb2, registry_pb2_grpc
from tests.helpers import Server, assert_error, mk_group, mk_org, mk_repo, ok, run_db, unique

D1, D2 = "sha256:" + "1" * 64, "sha256:" + "2" * 64


def v1_list(http: httpx.Client, **params: Any) -> list[dict[str, Any]]:
    body = ok(http.get("/registry/v1/tags", params=params))
    assert set(body) <= {"items"}
    return list(body.get("items", []))


def mk_tag(http: httpx.Client, repo: str, name: str, digest: str = D1) -> dict[str, Any]:
    return ok(http.post(f"/registry/v2/tags/{repo}", json={"name": name, "digest": digest}))


@pytest.fixture(scope="module")
def repo(server: Server) -> str:
    """One repo for the tests whose tags do not meet (one org per module: fewer rows, less time)."""
    return str(mk_repo(server.http, mk_org(server.http), unique("r"))["uid"])


def test_created_over_v1_is_the_v2_tag_and_back(http: httpx.Client, repo: str) -> None:
    made = ok(http.post(f"/registry/v1/tags/{repo}", json={"name": "v1made", "digest": D1, "deprecated": True}))
    assert set(made) == {"id", "name", "digest", "lastUpdated", "deprecated"}
    seen = ok(http.get(f"/registry/v2/tags/{made['id']}"))
    assert (seen["uid"], seen["name"], seen["digest"], seen["updateTime"], seen["deprecated"]) == (
        made["id"], "v1made", D1, made["lastUpdated"], True,
    )  # fmt: skip
    two = mk_tag(http, repo, "v2made")
    listed = {t["id"]: t for t in v1_list(http, **{"uidp.childrenOf": repo})}
    assert {made["id"], two["uid"]} <= set(listed)
    assert (listed[two["uid"]]["name"], listed[two["uid"]]["lastUpdated"]) == ("v2made", two["updateTime"])
    assert [t["id"] for t in v1_list(http, id=made["id"])] == [made["id"]]
    assert ok(http.get("/registry/v1/tags", params={"id": repo + "/" + "0" * 16})) == {}


def test_put_points_the_tag_and_delete(http: httpx.Client, repo: str) -> None:
    t = mk_tag(http, repo, unique("t"))
    done = ok(http.put(f"/registry/v1/tags/{t['uid']}", json={"name": t["name"], "digest": D2, "deprecated": True}))
    assert (done["id"], done["digest"], done["deprecated"]) == (t["uid"], D2, True)
    # PUT replaces: deprecated not sent is cleared.
    done = ok(http.put(f"/registry/v1/tags/{t['uid']}", json={"name": t["name"], "digest": D2}))
    v2 = ok(http.get(f"/registry/v2/tags/{t['uid']}"))
    assert (v2["digest"], v2.get("deprecated", False), v2["updateTime"]) == (D2, False, done["lastUpdated"])
    assert_error(http.put(f"/registry/v1/tags/{t['uid']}", json={"name": "other", "digest": D2}), 400, 3, "name")
    assert_error(http.put(f"/registry/v1/tags/{t['uid']}", json={"name": t["name"], "digest": "x"}), 400, 3)
    assert ok(http.delete(f"/registry/v1/tags/{t['uid']}")) == {}
    assert http.get(f"/registry/v2/tags/{t['uid']}").status_code == 404
    assert_error(http.put(f"/registry/v1/tags/{t['uid']}", json={"name": t["name"], "digest": D2}), 404, 5)
    assert_error(http.delete(f"/registry/v1/tags/{t['uid']}"), 404, 5)


def test_bundles_are_refused_not_dropped(http: httpx.Client, repo: str) -> None:
    r = http.post(f"/registry/v1/tags/{repo}", json={"name": "b", "digest": D1, "bundles": ["x"]})
    assert_error(r, 400, 3, "tag.bundles")
    t = mk_tag(http, repo, unique("t"))
    r = http.put(f"/registry/v1/tags/{t['uid']}", json={"name": t["name"], "digest": D1, "bundles": ["x"]})
    assert_error(r, 400, 3, "bundles")


def test_list_full_set_and_exclude_flags(http: httpx.Client, org: str) -> None:
    r = mk_repo(http, org, unique("many"))["uid"]
    names = [f"n{i:03d}" for i in range(203)] + ["sha256-abc", "1.2-20240101", "1.2-r3"]
    made = {mk_tag(http, r, n)["uid"] for n in names}  # more than one v2 page (200)
    assert {t["id"] for t in v1_list(http, **{"uidp.childrenOf": r})} == made
    some = v1_list(http, excludeReferrers=True, excludeDates=True, excludeEpochs=True, **{"uidp.childrenOf": r})
    assert len(some) == 203
    assert [t["name"] for t in v1_list(http, name="1.2-r3", **{"uidp.childrenOf": r})] == ["1.2-r3"]
    assert [t["name"] for t in v1_list(http, name="1.2-r3", excludeEpochs=True, **{"uidp.childrenOf": r})] == []
    v2 = ok(http.get("/registry/v2/tags", params={"uidp.childrenOf": r, "pageSize": 5, "digest": D1}))
    assert v2["totalCount"] == "203"  # v2 hides the referrer, dated and epoch tags unless asked


def test_authorization_is_the_v2_one(server: Server, http: httpx.Client, org: str) -> None:
    sub = mk_group(http, org, unique("sub"))["uid"]
    mine = mk_tag(http, mk_repo(http, sub, unique("r"))["uid"], "t")
    other = mk_tag(http, mk_repo(http, org, unique("r"))["uid"], "t")
    _, token = server.identity_with_role(sub, "viewer", home=org)
    with server.client(token) as viewer:
        assert [t["id"] for t in v1_list(viewer, **{"uidp.descendantsOf": org})] == [mine["uid"]]
        assert v1_list(viewer, id=other["uid"]) == []
        body = {"name": "t", "digest": D2}
        assert viewer.put(f"/registry/v1/tags/{mine['uid']}", json=body).status_code == 403
        assert viewer.delete(f"/registry/v1/tags/{mine['uid']}").status_code == 403
        assert viewer.post(f"/registry/v1/tags/{mine['uid'].rsplit('/', 1)[0]}", json=body).status_code == 403
        assert viewer.put(f"/registry/v1/tags/{other['uid']}", json=body).status_code in (403, 404)


def test_over_grpc_with_the_contract_messages(server: Server, repo: str) -> None:
    stub = registry_pb2_grpc.RegistryStub(server.grpc_channel(server.token))
    made = stub.CreateTag(registry_pb2.CreateTagRequest(repo_id=repo, tag=registry_pb2.Tag(name="g", digest=D1)))
    assert made.id.startswith(repo + "/") and made.last_updated.seconds > 0
    done = stub.UpdateTag(registry_pb2.Tag(id=made.id, name="g", digest=D2, deprecated=True))
    assert (done.id, done.digest, done.deprecated) == (made.id, D2, True)
    found = stub.ListTags(registry_pb2.TagFilter(uidp=uidp_pb2.UIDPFilter(children_of=repo), name="g"))
    assert [(t.id, t.digest) for t in found.items] == [(made.id, D2)]
    stub.DeleteTag(registry_pb2.DeleteTagRequest(id=made.id))
    assert list(stub.ListTags(registry_pb2.TagFilter(id=made.id)).items) == []
    with pytest.raises(grpc.RpcError) as e:
        stub.DeleteTag(registry_pb2.DeleteTagRequest(id=made.id))
    assert e.value.code() == grpc.StatusCode.NOT_FOUND


def test_v1_writes_emit_the_contract_events(server: Server, http: httpx.Client, repo: str) -> None:
    made = ok(http.post(f"/registry/v1/tags/{repo}", json={"name": unique("e"), "digest": D1}))
    ok(http.put(f"/registry/v1/tags/{made['id']}", json={"name": made["name"], "digest": D2}))
    ok(http.put(f"/registry/v1/tags/{made['id']}", json={"name": made["name"], "digest": D2}))  # unchanged: none
    ok(http.delete(f"/registry/v1/tags/{made['id']}"))

    async def types(database: Any) -> list[str]:
        found = await database.fetch("SELECT type FROM events WHERE subject = $1 ORDER BY time", made["id"])
        return [r["type"].rsplit(".registry.", 1)[1] for r in found]

    assert run_db(server, types) == ["tag.created.v1", "tag.updated.v1", "tag.deleted.v1"]


def test_tags_without_a_digest_as_the_terraform_provider_writes_them(server: Server, http: httpx.Client) -> None:
    """terraform-provider-calls.md 3.9: CreateTag{repo_id, tag{name, deprecated}} and UpdateTag(Tag{id, name,
    deprecated}), never a digest. The tag points nowhere until a push (or a write with a digest) fills it; an
    update without one keeps it; v2 shows such a tag without `digest`; nothing of its history until it has one."""
    r = str(mk_repo(http, mk_org(http), unique("tf"))["uid"])
    stub = registry_pb2_grpc.RegistryStub(server.grpc_channel(server.token))
    made = stub.CreateTag(registry_pb2.CreateTagRequest(repo_id=r, tag=registry_pb2.Tag(name="latest")))
    assert made.id.startswith(r + "/") and made.digest == "" and not made.deprecated
    v2 = ok(http.get(f"/registry/v2/tags/{made.id}"))
    assert v2["name"] == "latest" and "digest" not in v2
    assert ok(http.get(f"/registry/v1/tags/{made.id}/history")).get("items", []) == []
    # A write with a digest fills it (as a push does); an update without one keeps it and deprecates.
    ok(http.post(f"/registry/v2/tags/{r}", json={"name": "latest", "digest": D1}))
    done = stub.UpdateTag(registry_pb2.Tag(id=made.id, name="latest", deprecated=True))
    assert (done.id, done.digest, done.deprecated) == (made.id, D1, True)
    again = ok(http.post(f"/registry/v1/tags/{r}", json={"name": "latest"}))  # v1 create: an upsert by name
    assert (again["id"], again["digest"], again.get("deprecated", False)) == (made.id, D1, False)
    # v2 keeps requiring a digest; a malformed one is refused on v1 too.
    assert_error(http.post(f"/registry/v2/tags/{r}", json={"name": "nodigest"}), 400, 3, "digest")
    assert_error(http.post(f"/registry/v1/tags/{r}", json={"name": "bad", "digest": "x"}), 400, 3, "digest")
