"""totalCount of unscoped Lists with no filter comes from the counters over the caller's visible subtrees:
it must equal what paging returns, for a caller with several roots, nested groups and the roots' own rows."""

from __future__ import annotations

from typing import Any

import httpx

from tests.helpers import BUILTIN_ROLE_UIDS, mk_group, mk_repo


def _all(client: httpx.Client, path: str, key: str) -> tuple[int, list[str]]:
    seen: list[str] = []
    params: dict[str, Any] = {"page_size": 7}
    total = -1
    while True:
        r = client.get(path, params=params)
        assert r.status_code == 200, r.text
        body = r.json()
        total = int(body["totalCount"])
        seen += [x["uid"] for x in body.get(key, [])]
        if not body.get("nextPageToken"):
            return total, seen
        params["page_token"] = body["nextPageToken"]


def test_totals_match_the_rows_over_several_roots(server: Any, http: httpx.Client, org: str) -> None:
    # Two sibling groups the caller views (two roots, the roots' own group rows visible), one nested group
    # inside the first, and rows the caller must not count: the organization's own and a third group's.
    a, b, c = (mk_group(http, org, n)["uid"] for n in ("a", "b", "c"))
    nested = mk_group(http, a, "nested")["uid"]
    for parent, n in ((org, 2), (a, 3), (nested, 4), (b, 5), (c, 6)):
        for _ in range(n):
            mk_repo(http, parent)
    ident, token = server.identity_with_role(a, "viewer", home=org)
    r = http.post(f"/iam/v2/roleBindings/{b}", json={"identityUid": ident, "roleUid": BUILTIN_ROLE_UIDS["viewer"]})
    assert r.status_code == 200, r.text
    with server.client(token) as viewer:
        total, repos = _all(viewer, "/registry/v2/repos", "repos")
        assert total == len(repos) == 3 + 4 + 5
        total, groups = _all(viewer, "/iam/v2/groups", "groups")
        assert total == len(groups) == 3 and set(groups) == {a, nested, b}
        assert http.delete(f"/registry/v2/repos/{repos[0]}").status_code == 200
        assert _all(viewer, "/registry/v2/repos", "repos")[0] == 11
        total, roles = _all(viewer, "/iam/v2/roles", "roles")  # the built-in roles are public root rows
        assert total == len(roles) > 0
