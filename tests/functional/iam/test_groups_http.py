"""IAM groups over HTTP/JSON (reference 6.1, 8.3): organizations and sub-groups, masks, deletion rules and the
uidp filters, against both storage backends.
"""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest

from tests.helpers import assert_error, detail, mk_group, mk_repo, unique


def get_ok(http: httpx.Client, path: str, **params: Any) -> dict[str, Any]:
    r = http.get(path, params=params)
    assert r.status_code == 200, r.text
    return dict(r.json())


def list_groups(http: httpx.Client, **params: Any) -> dict[str, Any]:
    return get_ok(http, "/iam/v2/groups", **{"page_size": 200, **params})


def uids(body: dict[str, Any]) -> set[str]:
    return {g["uid"] for g in body.get("groups", [])}


# ------------------------------------------------------------------------------------------------- CRUD


def test_create_root_organization(http: httpx.Client) -> None:
    name = unique("acme")
    g = mk_group(http, "", name, description="Acme Inc")
    assert len(g["uid"]) == 40 and "/" not in g["uid"] and all(c in "0123456789abcdef" for c in g["uid"])
    assert (g["name"], g["description"]) == (name, "Acme Inc")
    assert g["createTime"] == g["updateTime"]
    assert get_ok(http, f"/iam/v2/groups/{g['uid']}") == g


def test_create_sub_group(http: httpx.Client, org: str) -> None:
    team = mk_group(http, org, "backend-team", description="Backend engineering team")
    assert team["uid"].startswith(org + "/") and len(team["uid"]) == 57
    sub = mk_group(http, team["uid"], "sub")
    assert sub["uid"].startswith(team["uid"] + "/")
    assert get_ok(http, f"/iam/v2/groups/{sub['uid']}") == sub
    # Zero values are omitted.
    assert "description" not in sub


def test_create_group_validation(http: httpx.Client, org: str) -> None:
    body = assert_error(http.post(f"/iam/v2/groups/{org}", json={}), 400, 3, field="name")
    assert "name" in body["message"]
    for bad in ["Bad Name!", "UPPER", "", "a/b", "x" * 256]:
        assert_error(http.post(f"/iam/v2/groups/{org}", json={"name": bad}), 400, 3, field="name")
    assert_error(http.post("/iam/v2/groups/", json={"name": "Bad Name!"}), 400, 3, field="name")
    desc = {"name": "ok", "description": "tab\there"}
    assert_error(http.post(f"/iam/v2/groups/{org}", json=desc), 400, 3, field="description")
    assert list_groups(http, **{"uidp.descendants_of": org})["totalCount"] == "0"


def test_create_group_under_missing_or_invalid_parent(http: httpx.Client, org: str) -> None:
    body = assert_error(http.post(f"/iam/v2/groups/{org}/{'0' * 16}", json={"name": "team"}), 404, 5)
    assert detail(body, "ResourceInfo")["resourceName"] == f"{org}/{'0' * 16}"
    assert_error(http.post("/iam/v2/groups/" + "0" * 40, json={"name": "team"}), 404, 5)
    assert_error(http.post("/iam/v2/groups/not-a-uid", json={"name": "team"}), 400, 3)
    # A repo is not a group.
    repo = mk_repo(http, org, "nginx")["uid"]
    assert_error(http.post(f"/iam/v2/groups/{repo}", json={"name": "team"}), 404, 5)


def test_duplicate_sibling_names(http: httpx.Client, org: str) -> None:
    team = mk_group(http, org, "team")
    assert_error(http.post(f"/iam/v2/groups/{org}", json={"name": "team"}), 409, 6)
    # Same name elsewhere in the tree is fine.
    nested = mk_group(http, team["uid"], "team")
    assert nested["uid"] != team["uid"]


def test_get_missing_and_invalid(http: httpx.Client, org: str) -> None:
    missing = f"{org}/{'a' * 16}"
    body = assert_error(http.get(f"/iam/v2/groups/{missing}"), 404, 5)
    info = detail(body, "ResourceInfo")
    assert info["resourceName"] == missing and info["resourceType"]
    assert_error(http.get("/iam/v2/groups/xyz"), 400, 3, field="uid")


def test_update_name_and_description(http: httpx.Client, org: str) -> None:
    team = mk_group(http, org, "team", description="old")
    time.sleep(0.003)
    r = http.patch(f"/iam/v2/groups/{team['uid']}", json={"description": "new"})
    assert r.status_code == 200, r.text
    assert (r.json()["name"], r.json()["description"]) == ("team", "new")
    assert r.json()["updateTime"] > team["updateTime"] and r.json()["createTime"] == team["createTime"]
    r = http.patch(f"/iam/v2/groups/{team['uid']}", json={"name": "renamed"})
    assert (r.json()["name"], r.json()["description"]) == ("renamed", "new")
    assert get_ok(http, f"/iam/v2/groups/{team['uid']}") == r.json()
    found = list_groups(http, **{"uidp.children_of": org, "name": "renamed"})
    assert uids(found) == {team["uid"]}


def test_update_mask_rules(http: httpx.Client, org: str) -> None:
    team = mk_group(http, org, "team", description="old")
    r = http.patch(f"/iam/v2/groups/{team['uid']}?updateMask=description", json={"description": "d", "name": "nope"})
    assert (r.json()["name"], r.json()["description"]) == ("team", "d")
    r = http.patch(f"/iam/v2/groups/{team['uid']}?update_mask=name", json={"description": "zzz", "name": "n2"})
    assert (r.json()["name"], r.json()["description"]) == ("n2", "d")
    r = http.patch(f"/iam/v2/groups/{team['uid']}?updateMask=*", json={"name": "n3"})
    assert r.json()["name"] == "n3" and "description" not in r.json()
    assert_error(http.patch(f"/iam/v2/groups/{team['uid']}?updateMask=colour", json={"name": "x"}), 400, 3)
    assert_error(http.patch(f"/iam/v2/groups/{team['uid']}", json={"name": "Bad Name!"}), 400, 3, field="name")
    assert get_ok(http, f"/iam/v2/groups/{team['uid']}")["name"] == "n3"


def test_update_rename_conflict_and_missing(http: httpx.Client, org: str) -> None:
    a = mk_group(http, org, "a")
    mk_group(http, org, "b")
    assert_error(http.patch(f"/iam/v2/groups/{a['uid']}", json={"name": "b"}), 409, 6)
    assert_error(http.patch(f"/iam/v2/groups/{org}/{'0' * 16}", json={"name": "x"}), 404, 5)


def test_update_root_organization(http: httpx.Client, org: str) -> None:
    r = http.patch(f"/iam/v2/groups/{org}", json={"description": "changed"})
    assert r.status_code == 200, r.text
    assert r.json()["uid"] == org and r.json()["description"] == "changed"


def test_delete_empty_group(http: httpx.Client, org: str) -> None:
    team = mk_group(http, org, "team")
    r = http.delete(f"/iam/v2/groups/{team['uid']}")
    assert r.status_code == 200 and r.json() == {}
    assert_error(http.get(f"/iam/v2/groups/{team['uid']}"), 404, 5)
    assert_error(http.delete(f"/iam/v2/groups/{team['uid']}"), 404, 5)
    assert list_groups(http, **{"uidp.descendants_of": org})["totalCount"] == "0"
    # The organization itself can go once empty.
    assert http.delete(f"/iam/v2/groups/{org}").json() == {}
    assert_error(http.get(f"/iam/v2/groups/{org}"), 404, 5)


def _assert_not_empty(r: httpx.Response) -> None:
    body = assert_error(r, 400, 9)
    assert body["message"].startswith("Precondition failed"), body
    violations = detail(body, "PreconditionFailure")["violations"]
    assert [v["type"] for v in violations] == ["RESOURCE_NOT_EMPTY"] and violations[0]["description"]


def test_delete_refused_while_group_has_a_sub_group(http: httpx.Client, org: str) -> None:
    team = mk_group(http, org, "team")
    sub = mk_group(http, team["uid"], "sub")
    _assert_not_empty(http.delete(f"/iam/v2/groups/{team['uid']}"))
    _assert_not_empty(http.delete(f"/iam/v2/groups/{org}"))
    assert get_ok(http, f"/iam/v2/groups/{team['uid']}") == team
    assert http.delete(f"/iam/v2/groups/{sub['uid']}").status_code == 200
    assert http.delete(f"/iam/v2/groups/{team['uid']}").status_code == 200


def test_delete_refused_while_group_has_a_repo(http: httpx.Client, org: str) -> None:
    team = mk_group(http, org, "team")
    repo = mk_repo(http, team["uid"], "nginx")["uid"]
    r = http.delete(f"/iam/v2/groups/{team['uid']}")
    _assert_not_empty(r)
    assert "repo" in r.json()["message"]
    assert get_ok(http, f"/registry/v2/repos/{repo}")["name"] == "nginx"
    assert http.delete(f"/registry/v2/repos/{repo}").status_code == 200
    assert http.delete(f"/iam/v2/groups/{team['uid']}").json() == {}


# ---------------------------------------------------------------------------------------------- listing


@pytest.fixture
def tree(http: httpx.Client, org: str) -> dict[str, str]:
    """org -> a -> aa -> aaa, org -> b; plus an unrelated organization."""
    a = mk_group(http, org, "a")["uid"]
    aa = mk_group(http, a, "aa")["uid"]
    aaa = mk_group(http, aa, "aaa")["uid"]
    b = mk_group(http, org, "b")["uid"]
    other = mk_group(http, "", unique("other"))["uid"]
    other_child = mk_group(http, other, "a")["uid"]
    return {"org": org, "a": a, "aa": aa, "aaa": aaa, "b": b, "other": other, "other_child": other_child}


def test_descendants_of_is_strict_and_any_depth(http: httpx.Client, tree: dict[str, str]) -> None:
    body = list_groups(http, **{"uidp.descendants_of": tree["org"]})
    assert uids(body) == {tree["a"], tree["aa"], tree["aaa"], tree["b"]}
    assert body["totalCount"] == "4" and body["skipped"] == 0
    assert uids(list_groups(http, **{"uidp.descendants_of": tree["a"]})) == {tree["aa"], tree["aaa"]}
    leaf = list_groups(http, **{"uidp.descendants_of": tree["aaa"]})
    assert leaf["totalCount"] == "0" and not leaf.get("groups")


def test_children_of_is_direct_only(http: httpx.Client, tree: dict[str, str]) -> None:
    body = list_groups(http, **{"uidp.children_of": tree["org"]})
    assert uids(body) == {tree["a"], tree["b"]} and body["totalCount"] == "2"
    assert uids(list_groups(http, **{"uidp.children_of": tree["a"]})) == {tree["aa"]}
    assert uids(list_groups(http, **{"uidp.childrenOf": tree["aa"]})) == {tree["aaa"]}


def test_ancestors_of_is_strict(http: httpx.Client, tree: dict[str, str]) -> None:
    body = list_groups(http, **{"uidp.ancestors_of": tree["aaa"]})
    assert uids(body) == {tree["org"], tree["a"], tree["aa"]} and body["totalCount"] == "3"
    ordered = list_groups(http, **{"uidp.ancestorsOf": tree["aaa"], "order_by": "uid desc"})
    assert [g["uid"] for g in ordered["groups"]] == [tree["aa"], tree["a"], tree["org"]]
    roots = list_groups(http, **{"uidp.ancestors_of": tree["org"]})
    assert roots["totalCount"] == "0"


def test_in_root_lists_only_organizations(http: httpx.Client, tree: dict[str, str]) -> None:
    seen: set[str] = set()
    token = None
    while True:
        params: dict[str, Any] = {"uidp.in_root": "true"}
        if token:
            params["page_token"] = token
        body = list_groups(http, **params)
        assert all("/" not in g["uid"] for g in body.get("groups", []))
        seen |= uids(body)
        token = body.get("nextPageToken")
        if not token:
            break
    assert {tree["org"], tree["other"]} <= seen
    assert not seen & {tree["a"], tree["b"], tree["other_child"]}
    assert int(body["totalCount"]) == len(seen)
    # Combined with ids: only the roots among them.
    both = list_groups(http, **{"uidp.inRoot": "true", "uidp.ids": [tree["org"], tree["a"]]})
    assert uids(both) == {tree["org"]}


def test_ids_filter(http: httpx.Client, tree: dict[str, str]) -> None:
    r = http.get(f"/iam/v2/groups?uidp.ids={tree['a']}&uidp.ids={tree['other']}&uidp.ids={tree['aaa']}")
    assert r.status_code == 200, r.text
    assert uids(r.json()) == {tree["a"], tree["other"], tree["aaa"]} and r.json()["totalCount"] == "3"
    one = list_groups(http, **{"uidp.ids": tree["b"]})
    assert uids(one) == {tree["b"]}
    # Combined with a scope filter, the conditions AND together.
    scoped = list_groups(http, **{"uidp.ids": [tree["a"], tree["other_child"]], "uidp.descendants_of": tree["org"]})
    assert uids(scoped) == {tree["a"]} and scoped["totalCount"] == "1"
    missing = list_groups(http, **{"uidp.ids": f"{tree['org']}/{'0' * 16}"})
    assert missing["totalCount"] == "0"


@pytest.mark.parametrize("param", ["uidp.descendants_of", "uidp.children_of", "uidp.ancestors_of", "uidp.ids"])
def test_invalid_uid_in_filter(http: httpx.Client, org: str, param: str) -> None:
    for bad in ["xyz", org + "/", org.upper()]:
        assert_error(http.get("/iam/v2/groups", params={param: bad}), 400, 3, field=param)


def test_name_filter_and_order(http: httpx.Client, org: str) -> None:
    for n in ["delta", "alpha", "charlie", "bravo"]:
        mk_group(http, org, n)
    scope = {"uidp.descendants_of": org}
    asc = list_groups(http, **scope, order_by="name")
    assert [g["name"] for g in asc["groups"]] == ["alpha", "bravo", "charlie", "delta"]
    desc = list_groups(http, **scope, order_by="name desc", page_size=2)
    assert [g["name"] for g in desc["groups"]] == ["delta", "charlie"] and desc["nextPageToken"]
    rest = list_groups(http, **scope, order_by="name desc", page_size=2, page_token=desc["nextPageToken"])
    assert [g["name"] for g in rest["groups"]] == ["bravo", "alpha"] and "nextPageToken" not in rest
    exact = list_groups(http, **scope, name="charlie")
    assert [g["name"] for g in exact["groups"]] == ["charlie"]
    assert list_groups(http, **scope, name="char")["totalCount"] == "0"


def test_list_groups_without_filter_is_paged(http: httpx.Client, org: str) -> None:
    body = get_ok(http, "/iam/v2/groups", page_size=1)
    assert len(body["groups"]) == 1 and int(body["totalCount"]) >= 1
    if int(body["totalCount"]) > 1:
        assert body["nextPageToken"]
