"""Concurrent writers over the wire: uniqueness and parent checks hold without races (both backends)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import httpx

from tests.helpers import Server, mk_group, mk_repo


def _parallel(server: Server, calls: list[tuple[str, str, dict[str, object] | None]]) -> list[httpx.Response]:
    def one(call: tuple[str, str, dict[str, object] | None]) -> httpx.Response:
        method, path, body = call
        with server.client(server.token) as c:
            return c.request(method, path, json=body)

    with ThreadPoolExecutor(max_workers=len(calls)) as pool:
        return list(pool.map(one, calls))


def test_same_repo_name_created_concurrently_exists_once(server: Server, org: str) -> None:
    results = _parallel(server, [("POST", f"/registry/v2/repos/{org}", {"name": "race"})] * 8)
    codes = sorted(r.status_code for r in results)
    assert codes == [200] + [409] * 7, [r.text for r in results]
    listed = server.http.get("/registry/v2/repos", params={"uidp.children_of": org, "name": "race"}).json()
    assert listed["totalCount"] == "1"


def test_same_tag_upserted_concurrently_is_one_tag(server: Server, org: str) -> None:
    repo = mk_repo(server.http, org, "r")["uid"]
    digests = [f"sha256:{i:064x}" for i in range(8)]
    results = _parallel(
        server, [("POST", f"/registry/v2/tags/{repo}", {"name": "latest", "digest": d}) for d in digests]
    )
    assert all(r.status_code == 200 for r in results), [r.text for r in results]
    assert len({r.json()["uid"] for r in results}) == 1
    tags = server.http.get("/registry/v2/tags", params={"uidp.children_of": repo}).json()
    assert tags["totalCount"] == "1" and tags["tags"][0]["digest"] in digests


def test_group_delete_racing_creates_leaves_no_orphans(server: Server, org: str) -> None:
    group = mk_group(server.http, org, "team")["uid"]
    calls: list[tuple[str, str, dict[str, object] | None]] = [
        ("POST", f"/registry/v2/repos/{group}", {"name": f"repo{i}"}) for i in range(6)
    ]
    calls.insert(3, ("DELETE", f"/iam/v2/groups/{group}", None))
    results = _parallel(server, calls)
    deleted = results[3].status_code == 200
    created = [r for i, r in enumerate(results) if i != 3 and r.status_code == 200]
    repos = server.http.get("/registry/v2/repos", params={"uidp.children_of": group}).json()
    if deleted:
        # Every create either ran before the delete (then the delete would have failed) or saw no group.
        assert not created and repos["totalCount"] == "0"
        assert server.http.get(f"/iam/v2/groups/{group}").status_code == 404
    else:
        assert results[3].json()["code"] == 9
        assert int(repos["totalCount"]) == len(created) > 0
