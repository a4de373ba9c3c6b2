"""totalCount stays exact through creates and deletes, whether it is answered from the maintained
per-parent counters (structural filters) or from COUNT(*) (other filters)."""

from __future__ import annotations

import secrets
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx

from tests.helpers import mk_group, mk_repo

DIGEST = "sha256:" + "ab" * 32


def _listed(http: httpx.Client, path: str, **params: Any) -> tuple[int, int]:
    """(totalCount, number of items actually returned across all pages)."""
    seen, token, total = 0, None, -1
    while True:
        query = {**params, "page_size": 200, **({"page_token": token} if token else {})}
        body = http.get(path, params=query).json()
        total = int(body["totalCount"])
        seen += len(next((v for k, v in body.items() if isinstance(v, list)), []))
        token = body.get("nextPageToken")
        if not token:
            return total, seen


def test_counts_follow_creates_and_deletes(http: httpx.Client, org: str) -> None:
    team = mk_group(http, org, "team")["uid"]
    sub = mk_group(http, team, "sub")["uid"]
    repos = {}
    for parent, names in ((org, ["a", "b"]), (team, ["c"]), (sub, ["d", "e", "f"])):
        for n in names:
            repos[n] = mk_repo(http, parent, n)["uid"]
    for tag in ["latest", "1.0", "sha256-abc", "1.0-20260101", "1.0-r2"]:
        assert http.post(f"/registry/v2/tags/{repos['d']}", json={"name": tag, "digest": DIGEST}).status_code == 200

    def check(path: str, expected: int, **params: Any) -> None:
        assert _listed(http, path, **params) == (expected, expected), (path, params)

    check("/registry/v2/repos", 6, **{"uidp.descendants_of": org})
    check("/registry/v2/repos", 4, **{"uidp.descendants_of": team})
    check("/registry/v2/repos", 1, **{"uidp.children_of": team})
    check("/registry/v2/repos", 1, **{"uidp.descendants_of": org, "name": "e"})  # COUNT(*) path
    check("/iam/v2/groups", 2, **{"uidp.descendants_of": org})
    check("/registry/v2/tags", 2, **{"uidp.children_of": repos["d"]})
    check("/registry/v2/tags", 3, **{"uidp.children_of": repos["d"], "include_referrers": "true"})
    check("/registry/v2/tags", 5, **{"uidp.children_of": repos["d"], "include_referrers": "true",
                                     "include_dates": "true", "include_epochs": "true"})  # fmt: skip
    roots_before, _ = _listed(http, "/iam/v2/groups", **{"uidp.in_root": "true"})
    assert roots_before >= 1

    assert http.delete(f"/registry/v2/repos/{repos['d']}").status_code == 200
    check("/registry/v2/repos", 5, **{"uidp.descendants_of": org})
    check("/registry/v2/tags", 0, **{"uidp.children_of": repos["d"], "include_referrers": "true"})
    for n in ("e", "f"):
        assert http.delete(f"/registry/v2/repos/{repos[n]}").status_code == 200
    assert http.delete(f"/iam/v2/groups/{sub}").status_code == 200
    check("/iam/v2/groups", 1, **{"uidp.descendants_of": org})
    check("/registry/v2/repos", 3, **{"uidp.descendants_of": org})


def test_counts_stay_exact_under_concurrent_creates_and_deletes_in_one_parent(http: httpx.Client, org: str) -> None:
    """On PostgreSQL concurrent writers count on different counter rows (shards, one per connection) and a
    delete may decrement another shard than its create incremented: only the sum is exact, and it must be."""
    team = mk_group(http, org, "busy")["uid"]
    created = [mk_repo(http, team)["uid"] for _ in range(12)]

    def create(_: int) -> int:
        return http.post(f"/registry/v2/repos/{team}", json={"name": "c-" + secrets.token_hex(4)}).status_code

    def delete(uid: str) -> int:
        return http.delete(f"/registry/v2/repos/{uid}").status_code

    with ThreadPoolExecutor(16) as pool:
        creates = pool.map(create, range(48))
        deletes = pool.map(delete, created)
        assert set(creates) == {200} and set(deletes) == {200}
    assert _listed(http, "/registry/v2/repos", **{"uidp.children_of": team}) == (48, 48)
    assert _listed(http, "/registry/v2/repos", **{"uidp.descendants_of": org, "name": "nothing"}) == (0, 0)
