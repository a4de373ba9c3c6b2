"""v1 tag history and digest count (chainguard.platform.registry.Registry ListTagHistory, GetManifestDigestCount):
every create or move of a tag, by any writer (v2, v1, `import oci`), is one history entry, oldest first, gone
with the tag and with its repo; `start`/`end` bound it; the count is of the images recorded under a scope;
authorization is the v1 method's (a viewer elsewhere is refused); at most the last 1,000 entries per tag are
kept; over HTTP and gRPC. A database upgraded from the previous release starts each tag's history with its current
digest: tests/functional/ops/test_upgrade.py (test_writes_after_the_upgrade, on the server it already starts)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from google.protobuf import timestamp_pb2

from platform_api.gen.chainguard.platform.registry.v1 import registry_pb2, registry_pb2_grpc
from tests.helpers import Server, assert_error, mk_group, mk_repo, ok, run_db, unique
from tests.helpers.registry import image

D1, D2, D3 = ("sha256:" + c * 64 for c in "123")


def history(client: httpx.Client, tag: str, **params: Any) -> list[tuple[str, str]]:
    body = ok(client.get(f"/registry/v1/tags/{tag}/history", params=params))
    assert set(body) <= {"items"}
    return [(e["updateTimestamp"], e["digest"]) for e in body.get("items", [])]


def stored(server: Server, prefix: str) -> int:
    """The tag_history rows of the tags at or below `prefix` (what a delete must leave: none)."""

    async def go(database: Any) -> int:
        sql = "SELECT COUNT(*) FROM tag_history WHERE tag = $1 OR (tag > $2 AND tag < $3)"
        return int(await database.fetchval(sql, prefix, prefix + "/", prefix + "0"))

    return run_db(server, go)


@pytest.fixture(scope="module")
def repo(server: Server) -> str:
    """One repo for the tests whose tags do not meet (one org per module: fewer rows, less time)."""
    org = str(ok(server.http.post("/iam/v2/groups/", json={"name": unique("org")}))["uid"])
    return str(mk_repo(server.http, org, unique("r"))["uid"])


def test_a_tag_moved_twice_has_three_entries_in_order(server: Server, http: httpx.Client, repo: str) -> None:
    made = ok(http.post(f"/registry/v2/tags/{repo}", json={"name": "moved", "digest": D1}))
    tag = made["uid"]
    put = ok(http.put(f"/registry/v1/tags/{tag}", json={"name": "moved", "digest": D2}))  # v1 UpdateTag
    ok(http.put(f"/registry/v1/tags/{tag}", json={"name": "moved", "digest": D2, "deprecated": True}))  # no move
    again = ok(http.post(f"/registry/v1/tags/{repo}", json={"name": "moved", "digest": D3}))  # v1 CreateTag upsert
    got = history(http, tag)
    assert got == [(made["updateTime"], D1), (put["lastUpdated"], D2), (again["lastUpdated"], D3)]
    # [start, end)
    assert history(http, tag, start=put["lastUpdated"]) == got[1:]
    assert history(http, tag, end=put["lastUpdated"]) == got[:1]
    assert history(http, tag, start=put["lastUpdated"], end=again["lastUpdated"]) == got[1:2]
    # v1 and v2 agree on the tag's current digest and time: the last entry.
    v2 = ok(http.get(f"/registry/v2/tags/{tag}"))
    assert got[-1] == (v2["updateTime"], v2["digest"])
    # Deleted with the tag: the history of an unknown tag is `{}`, as a v1 list filtered by an unknown id.
    ok(http.delete(f"/registry/v1/tags/{tag}"))
    assert ok(http.get(f"/registry/v1/tags/{tag}/history")) == {}
    assert stored(server, tag) == 0
    assert_error(http.get("/registry/v1/tags/x!/history"), 400, 3, "parent_id")


def test_history_goes_with_its_repo(server: Server, http: httpx.Client, repo: str) -> None:
    other = mk_repo(http, repo.rsplit("/", 1)[0], unique("gone"))["uid"]
    for name in ("a", "b"):
        ok(http.post(f"/registry/v2/tags/{other}", json={"name": name, "digest": D1}))
    assert stored(server, other) == 2
    ok(http.delete(f"/registry/v2/repos/{other}"))
    assert stored(server, other) == 0


def test_imports_and_the_digest_count(server: Server, http: httpx.Client, org: str, tmp_path: Path) -> None:
    empty = mk_group(http, org, unique("empty"))["uid"]
    repo, _, digest = image(server, http, org, tmp_path, ("latest", "1.0"))
    tags = {t["name"]: t for t in ok(http.get("/registry/v2/tags", params={"uidp.childrenOf": repo}))["tags"]}
    # `import oci` writes tags through the same upsert: their creation is their first entry.
    assert history(http, tags["latest"]["uid"]) == [(tags["latest"]["updateTime"], digest)]
    assert ok(http.get(f"/registry/v1/digestcount/{repo}")) == {"count": "1"}
    assert ok(http.get(f"/registry/v1/digestcount/{org}")) == {"count": "1"}
    assert ok(http.get(f"/registry/v1/digestcount/{empty}")) == {}  # a zero count is omitted (proto3 JSON)
    stub = registry_pb2_grpc.RegistryStub(server.grpc_channel(server.token))
    assert stub.GetManifestDigestCount(registry_pb2.ManifestDigestCountFilter(parent_id=org)).count == 1
    found = stub.ListTagHistory(registry_pb2.TagHistoryFilter(parent_id=tags["1.0"]["uid"]))
    assert [(e.update_timestamp.ToJsonString(), e.digest) for e in found.items] == [(tags["1.0"]["updateTime"], digest)]
    later = timestamp_pb2.Timestamp()
    later.FromJsonString(tags["1.0"]["updateTime"])
    later.seconds += 1
    after = stub.ListTagHistory(registry_pb2.TagHistoryFilter(parent_id=tags["1.0"]["uid"], start=later))
    assert list(after.items) == []


def test_authorization(server: Server, http: httpx.Client, org: str) -> None:
    sub = mk_group(http, org, unique("sub"))["uid"]
    mine, other = (
        ok(http.post(f"/registry/v2/tags/{mk_repo(http, g, unique('r'))['uid']}", json={"name": "t", "digest": D1}))
        for g in (sub, org)
    )
    _, token = server.identity_with_role(sub, "viewer", home=org)
    with server.client(token) as viewer:
        assert history(viewer, mine["uid"]) == [(mine["updateTime"], D1)]
        # Out of the viewer's reach: refused by the v1 method's authorization, without saying whether it exists.
        assert_error(viewer.get(f"/registry/v1/tags/{other['uid']}/history"), 404, 5)
        assert ok(viewer.get(f"/registry/v1/digestcount/{sub}")) == {}
        assert_error(viewer.get(f"/registry/v1/digestcount/{org}"), 404, 5)


def test_the_last_1000_entries_per_tag_are_kept(server: Server, http: httpx.Client, repo: str) -> None:
    made = ok(http.post(f"/registry/v2/tags/{repo}", json={"name": "busy", "digest": D1}))

    async def fill(database: Any) -> None:  # 999 older moves (seq 2..1000) without 999 API calls
        await database.execute(
            "WITH RECURSIVE n(i) AS (SELECT 2 UNION ALL SELECT i + 1 FROM n WHERE i < 1000)"
            " INSERT INTO tag_history (tag, seq, digest, at) SELECT $1, i, $2, $3 FROM n",
            made["uid"], D2, made["updateTime"],
        )  # fmt: skip

    run_db(server, fill)
    moved = ok(http.post(f"/registry/v2/tags/{repo}", json={"name": "busy", "digest": D3}))
    got = history(http, made["uid"])
    # The 1,001st entry dropped the oldest (the creation at D1).
    assert len(got) == 1000 and got[0] == (made["updateTime"], D2) and got[-1] == (moved["updateTime"], D3)
