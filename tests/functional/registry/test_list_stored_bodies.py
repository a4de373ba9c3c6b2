"""Lists of repos and tags send their stored bodies as stored (listing.Table.bodies_are_answers): each item
must be exactly the record a Get answers, over HTTP and gRPC, after every kind of write; and the v1 lists,
which read the same implementation's items, still convert them."""

from __future__ import annotations

import secrets

from platform_api.gen.chainguard.platform.common import uidp_pb2
from platform_api.gen.chainguard.platform.registry.v2 import repos_pb2, repos_pb2_grpc
from tests.helpers.iam import mk_org, ok
from tests.helpers.registry import mk_repo
from tests.helpers.server import Server

DIGEST = "sha256:" + "ab" * 32
OTHER = "sha256:" + "cd" * 32


def _writes(server: Server) -> tuple[str, str]:
    """An organization with repos written every way the API writes them: (org, one repo's uid)."""
    http = server.http
    org = mk_org(http)
    plain = mk_repo(http, org)
    full = mk_repo(http, org, "full-" + secrets.token_hex(3), description="déjà vu \u2603 \"quoted\"",
                   aliases=["a:1", "b:2"], active_tags=["1", "latest"])  # fmt: skip
    ok(http.patch(f"/registry/v2/repos/{plain['uid']}?updateMask=description", json={"description": "changed"}))
    ok(http.patch(f"/registry/v2/repos/{full['uid']}/readme", json={"content": "# readme\n"}))
    for name in ("latest", "1.0"):
        ok(http.post(f"/registry/v2/tags/{full['uid']}", json={"name": name, "digest": DIGEST}))
    tags = ok(http.get("/registry/v2/tags", params={"uidp.children_of": full["uid"]}))["tags"]
    moved = next(t for t in tags if t["name"] == "1.0")
    # v2 has no UpdateTag: v1's moves the tag (and writes its body) through the same queries.
    ok(http.put(f"/registry/v1/tags/{moved['uid']}", json={"id": moved["uid"], "name": "1.0", "digest": OTHER,
                                                            "deprecated": True}))  # fmt: skip
    return org, full["uid"]


def test_listed_items_are_what_get_answers(server: Server) -> None:
    http = server.http
    org, repo = _writes(server)
    listed = ok(http.get("/registry/v2/repos", params={"uidp.children_of": org}))["repos"]
    assert len(listed) == 2
    for item in listed:
        assert item == ok(http.get(f"/registry/v2/repos/{item['uid']}")), item
    tags = ok(http.get("/registry/v2/tags", params={"uidp.children_of": repo}))["tags"]
    assert {t["name"] for t in tags} == {"latest", "1.0"}
    for item in tags:
        assert item == ok(http.get(f"/registry/v2/tags/{item['uid']}")), item
    # The same over gRPC: the stored bytes become the messages a Get answers.
    stub = repos_pb2_grpc.ReposServiceStub(server.channel)
    answer = stub.ListRepos(repos_pb2.ListReposRequest(uidp=uidp_pb2.UIDPFilter(children_of=org)))
    assert len(answer.repos) == 2
    for message in answer.repos:
        assert message == stub.GetRepo(repos_pb2.GetRepoRequest(uid=message.uid))


def test_v1_lists_still_read_the_items(server: Server) -> None:
    org, repo = _writes(server)
    v1 = ok(server.http.get("/registry/v1/repos", params={"uidp.childrenOf": org}))
    assert sorted(r["name"] for r in v1["items"]) == sorted(
        r["name"] for r in ok(server.http.get("/registry/v2/repos", params={"uidp.children_of": org}))["repos"]
    )
    tags = ok(server.http.get("/registry/v1/tags", params={"uidp.childrenOf": repo}))
    assert {t["name"] for t in tags["items"]} == {"latest", "1.0"}
