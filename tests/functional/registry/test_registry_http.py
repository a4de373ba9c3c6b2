"""Registry over HTTP/JSON: the tutorial walk-through (reference 2.2/2.2a, 3), repos, tags and the readme
(reference 6.10, 6.11), against both storage backends.
"""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest

from tests.helpers import assert_error, detail, mk_group, mk_repo

# The tutorial's data set, created in a non-alphabetical order so that name order, creation order and
# uid order (random) differ.
TUTORIAL = ["redis", "apko", "nginx", "static", "go", "python", "busybox", "ruby", "jdk", "postgres", "node", "php"]
DIGEST_A = "sha256:" + "a" * 64
DIGEST_B = "sha256:" + "b" * 64

# ---------------------------------------------------------------------------------------------- helpers


def mk_tag(http: httpx.Client, repo: str, name: str, digest: str = DIGEST_A, **fields: Any) -> dict[str, Any]:
    r = http.post(f"/registry/v2/tags/{repo}", json={"name": name, "digest": digest, **fields})
    assert r.status_code == 200, r.text
    return dict(r.json())


def get_ok(http: httpx.Client, path: str, **params: Any) -> dict[str, Any]:
    r = http.get(path, params=params)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("application/json")
    return dict(r.json())


def list_repos(http: httpx.Client, org: str, **params: Any) -> dict[str, Any]:
    return get_ok(http, "/registry/v2/repos", **{"uidp.descendants_of": org, **params})


def list_tags(http: httpx.Client, repo: str, **params: Any) -> dict[str, Any]:
    return get_ok(http, "/registry/v2/tags", **{"uidp.children_of": repo, "page_size": 200, **params})


def names(body: dict[str, Any], key: str = "repos") -> list[str]:
    return [item["name"] for item in body.get(key, [])]


def tutorial(http: httpx.Client, org: str) -> dict[str, dict[str, Any]]:
    """The 12 tutorial repos, each created at a distinct millisecond."""
    out = {}
    for n in TUTORIAL:
        out[n] = mk_repo(http, org, n)
        time.sleep(0.003)
    return out


# ------------------------------------------------------------------------------- tutorial walk-through


def test_tutorial_pages_follow_the_token_to_the_end(http: httpx.Client, org: str) -> None:
    repos = tutorial(http, org)
    first = list_repos(http, org, page_size=5)
    assert first["totalCount"] == "12" and first["skipped"] == 0
    assert len(first["repos"]) == 5 and first["nextPageToken"]
    seen = names(first)
    token = first["nextPageToken"]
    pages = 1
    while token:
        page = list_repos(http, org, page_size=5, page_token=token)
        assert page["totalCount"] == "12"
        seen += names(page)
        token = page.get("nextPageToken")
        pages += 1
    assert pages == 3 and len(seen) == 12 and set(seen) == set(TUTORIAL)
    # The default order is uid ascending.
    assert seen == [r["name"] for r in sorted(repos.values(), key=lambda r: r["uid"])]


def test_tutorial_second_page_has_the_next_five(http: httpx.Client, org: str) -> None:
    tutorial(http, org)
    first = list_repos(http, org, page_size=5, order_by="name")
    second = list_repos(http, org, page_size=5, order_by="name", page_token=first["nextPageToken"])
    assert names(first) == ["apko", "busybox", "go", "jdk", "nginx"]
    assert names(second) == ["node", "php", "postgres", "python", "redis"]
    last = list_repos(http, org, page_size=5, order_by="name", page_token=second["nextPageToken"])
    assert names(last) == ["ruby", "static"] and "nextPageToken" not in last


def test_tutorial_order_by_name(http: httpx.Client, org: str) -> None:
    tutorial(http, org)
    assert names(list_repos(http, org, page_size=5, order_by="name")) == ["apko", "busybox", "go", "jdk", "nginx"]
    desc = list_repos(http, org, page_size=5, order_by="name desc")
    assert names(desc) == ["static", "ruby", "redis", "python", "postgres"]
    assert desc["totalCount"] == "12"


def test_tutorial_order_by_name_desc_url_encoded(http: httpx.Client, org: str) -> None:
    tutorial(http, org)
    r = http.get(f"/registry/v2/repos?uidp.descendants_of={org}&page_size=5&order_by=name%20desc")
    assert r.status_code == 200, r.text
    assert names(r.json()) == ["static", "ruby", "redis", "python", "postgres"]


def test_tutorial_order_by_created_at_desc(http: httpx.Client, org: str) -> None:
    repos = tutorial(http, org)
    body = list_repos(http, org, page_size=5, order_by="created_at desc")
    # Created in TUTORIAL order at distinct milliseconds: newest first.
    assert names(body) == list(reversed(TUTORIAL))[:5]
    times = [r["createTime"] for r in body["repos"]]
    assert times == sorted(times, reverse=True)
    assert times[0] == repos[TUTORIAL[-1]]["createTime"]
    asc = list_repos(http, org, page_size=5, order_by="created_at")
    assert names(asc) == TUTORIAL[:5]


def test_tutorial_skip(http: httpx.Client, org: str) -> None:
    tutorial(http, org)
    body = list_repos(http, org, page_size=5, order_by="name", skip=10)
    assert body["skipped"] == 10 and body["totalCount"] == "12"
    assert names(body) == ["ruby", "static"]
    assert "nextPageToken" not in body
    assert names(list_repos(http, org, page_size=5, order_by="name", skip=3)) == [
        "jdk",
        "nginx",
        "node",
        "php",
        "postgres",
    ]


def test_tutorial_name_filter_is_exact(http: httpx.Client, org: str) -> None:
    repos = tutorial(http, org)
    body = list_repos(http, org, name="nginx")
    assert body["totalCount"] == "1" and body["repos"] == [repos["nginx"]]
    for partial in ["ngin", "NGINX", "nginx ", "ng%", "*"]:
        empty = list_repos(http, org, name=partial)
        assert empty["totalCount"] == "0" and not empty.get("repos"), partial


def test_tutorial_get_by_uid(http: httpx.Client, org: str) -> None:
    repos = tutorial(http, org)
    got = get_ok(http, f"/registry/v2/repos/{repos['nginx']['uid']}")
    assert got == repos["nginx"]
    assert got["uid"].startswith(org + "/") and len(got["uid"]) == 40 + 1 + 16


def test_tutorial_patch_without_mask_changes_only_description(http: httpx.Client, org: str) -> None:
    repo = mk_repo(http, org, "nginx", aliases=["nginx:latest"], activeTags=["1.27"])
    time.sleep(0.003)
    text = "Updated description — only this field changes"
    r = http.patch(f"/registry/v2/repos/{repo['uid']}", json={"description": text})
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["description"] == text
    assert {k: v for k, v in out.items() if k not in ("description", "updateTime")} == {
        k: v for k, v in repo.items() if k != "updateTime"
    }
    assert out["updateTime"] > repo["updateTime"]
    assert get_ok(http, f"/registry/v2/repos/{repo['uid']}") == out


def test_tutorial_patch_with_mask_ignores_other_body_fields(http: httpx.Client, org: str) -> None:
    repo = mk_repo(http, org, "nginx")
    body = {"description": "Only this field is updated", "name": "this-is-ignored"}
    r = http.patch(f"/registry/v2/repos/{repo['uid']}?updateMask=description", json=body)
    assert r.status_code == 200, r.text
    assert (r.json()["name"], r.json()["description"]) == ("nginx", "Only this field is updated")
    stored = get_ok(http, f"/registry/v2/repos/{repo['uid']}")
    assert (stored["name"], stored["description"]) == ("nginx", "Only this field is updated")
    assert list_repos(http, org, name="this-is-ignored")["totalCount"] == "0"


def test_patch_mask_naming_an_absent_field_clears_it(http: httpx.Client, org: str) -> None:
    repo = mk_repo(http, org, "nginx", description="old")
    r = http.patch(f"/registry/v2/repos/{repo['uid']}", params={"update_mask": "description"}, json={"name": "x"})
    assert r.status_code == 200, r.text
    assert "description" not in r.json() and r.json()["name"] == "nginx"


def test_patch_star_replaces_every_updatable_field(http: httpx.Client, org: str) -> None:
    repo = mk_repo(http, org, "nginx", description="old", aliases=["nginx:latest"], active_tags=["1"])
    r = http.patch(f"/registry/v2/repos/{repo['uid']}?updateMask=*", json={"name": "web", "description": "new"})
    assert r.status_code == 200, r.text
    out = r.json()
    assert (out["uid"], out["name"], out["description"]) == (repo["uid"], "web", "new")
    assert "aliases" not in out and "activeTags" not in out  # replaced by the (empty) values of the body
    assert out["createTime"] == repo["createTime"]


def test_patch_star_without_required_name_is_rejected(http: httpx.Client, org: str) -> None:
    repo = mk_repo(http, org, "nginx", description="old")
    r = http.patch(f"/registry/v2/repos/{repo['uid']}?updateMask=*", json={"description": "new"})
    assert_error(r, 400, 3, field="name")
    assert get_ok(http, f"/registry/v2/repos/{repo['uid']}") == repo


@pytest.mark.parametrize("mask", ["colour", "description,colour", "name.first", "readme"])
def test_patch_unknown_mask_path_is_invalid(http: httpx.Client, org: str, mask: str) -> None:
    repo = mk_repo(http, org, "nginx", description="old")
    r = http.patch(f"/registry/v2/repos/{repo['uid']}", params={"updateMask": mask}, json={"description": "new"})
    assert_error(r, 400, 3, field="update_mask")
    assert get_ok(http, f"/registry/v2/repos/{repo['uid']}")["description"] == "old"


def test_patch_camel_and_snake_mask_paths(http: httpx.Client, org: str) -> None:
    repo = mk_repo(http, org, "nginx", active_tags=["1"])
    for mask, tags in [("activeTags", ["2"]), ("active_tags", ["3", "4"])]:
        r = http.patch(f"/registry/v2/repos/{repo['uid']}?updateMask={mask}", json={"activeTags": tags, "name": "zz"})
        assert r.status_code == 200, r.text
        assert r.json()["activeTags"] == tags and r.json()["name"] == "nginx"


def test_patch_output_only_fields_are_ignored(http: httpx.Client, org: str) -> None:
    repo = mk_repo(http, org, "nginx")
    body = {"uid": org + "/" + "0" * 16, "createTime": "2000-01-01T00:00:00.000Z", "description": "d"}
    r = http.patch(f"/registry/v2/repos/{repo['uid']}", json=body)
    assert r.status_code == 200, r.text
    assert (r.json()["uid"], r.json()["createTime"], r.json()["description"]) == (repo["uid"], repo["createTime"], "d")
    masked = http.patch(f"/registry/v2/repos/{repo['uid']}?updateMask=create_time,uid", json=body)
    assert masked.status_code == 200, masked.text
    assert masked.json()["createTime"] == repo["createTime"] and masked.json()["uid"] == repo["uid"]


def test_patch_rename(http: httpx.Client, org: str) -> None:
    repo = mk_repo(http, org, "nginx")
    mk_repo(http, org, "taken")
    r = http.patch(f"/registry/v2/repos/{repo['uid']}", json={"name": "taken"})
    assert_error(r, 409, 6)
    r = http.patch(f"/registry/v2/repos/{repo['uid']}", json={"name": "Bad Name"})
    assert_error(r, 400, 3, field="name")
    r = http.patch(f"/registry/v2/repos/{repo['uid']}", json={"name": "web"})
    assert r.status_code == 200 and r.json()["name"] == "web"
    assert names(list_repos(http, org, order_by="name")) == ["taken", "web"]


def test_patch_missing_or_invalid_repo(http: httpx.Client, org: str) -> None:
    missing = org + "/" + "0" * 16
    body = assert_error(http.patch(f"/registry/v2/repos/{missing}", json={"description": "x"}), 404, 5)
    assert detail(body, "ResourceInfo")["resourceName"] == missing
    assert_error(http.patch("/registry/v2/repos/xyz", json={"description": "x"}), 400, 3)


def test_tutorial_delete_then_not_found(http: httpx.Client, org: str) -> None:
    repo = mk_repo(http, org, "nginx")
    r = http.delete(f"/registry/v2/repos/{repo['uid']}")
    assert r.status_code == 200 and r.json() == {}
    assert r.headers["content-type"].startswith("application/json")
    body = assert_error(http.get(f"/registry/v2/repos/{repo['uid']}"), 404, 5)
    info = detail(body, "ResourceInfo")
    assert info["resourceName"] == repo["uid"] and info["resourceType"]
    assert detail(body, "ErrorInfo")["reason"] == "NOT_FOUND"
    assert_error(http.delete(f"/registry/v2/repos/{repo['uid']}"), 404, 5)
    assert list_repos(http, org)["totalCount"] == "0"


# ------------------------------------------------------------------------------------------- repo create


def test_create_repo_returns_the_stored_resource(http: httpx.Client, org: str) -> None:
    repo = mk_repo(http, org, "nginx", description="web", aliases=["nginx:latest"], activeTags=["1.27", "latest"])
    assert repo["uid"].startswith(org + "/")
    assert (repo["name"], repo["description"], repo["aliases"], repo["activeTags"]) == (
        "nginx",
        "web",
        ["nginx:latest"],
        ["1.27", "latest"],
    )
    assert get_ok(http, f"/registry/v2/repos/{repo['uid']}") == repo


def test_create_repo_output_only_fields_ignored(http: httpx.Client, org: str) -> None:
    forged = org + "/" + "0" * 16
    repo = mk_repo(http, org, "nginx", uid=forged, createTime="2000-01-01T00:00:00.000Z")
    assert repo["uid"] != forged and not repo["createTime"].startswith("2000")


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "name"),
        ({"name": ""}, "name"),
        ({"name": "Nginx"}, "name"),
        ({"name": "bad/name"}, "name"),
        ({"name": "x" * 256}, "name"),
        ({"name": "ok", "description": "two\nlines"}, "description"),
        ({"name": "ok", "description": "d" * 513}, "description"),
        ({"name": "ok", "aliases": ["no-tag"]}, "aliases"),
        ({"name": "ok", "activeTags": ["-bad"]}, "active_tags"),
    ],
)
def test_create_repo_validation(http: httpx.Client, org: str, body: dict[str, Any], field: str) -> None:
    assert_error(http.post(f"/registry/v2/repos/{org}", json=body), 400, 3, field=field)
    assert list_repos(http, org)["totalCount"] == "0"


def test_create_repo_limits_accepted(http: httpx.Client, org: str) -> None:
    mk_repo(http, org, "x" * 255, description="d" * 512)
    mk_repo(http, org, "a b.c_d-e")


def test_create_repo_under_missing_or_invalid_parent(http: httpx.Client, org: str) -> None:
    body = assert_error(http.post("/registry/v2/repos/" + "0" * 40, json={"name": "nginx"}), 404, 5)
    assert detail(body, "ResourceInfo")["resourceName"] == "0" * 40
    assert_error(http.post(f"/registry/v2/repos/{org}/{'1' * 16}", json={"name": "nginx"}), 404, 5)
    # A repo is not a group: no repo under a repo.
    repo = mk_repo(http, org, "nginx")
    assert_error(http.post(f"/registry/v2/repos/{repo['uid']}", json={"name": "inner"}), 404, 5)
    assert_error(http.post("/registry/v2/repos/NOT-A-UID", json={"name": "nginx"}), 400, 3)


def test_duplicate_repo_name(http: httpx.Client, org: str) -> None:
    first = mk_repo(http, org, "nginx")
    body = assert_error(http.post(f"/registry/v2/repos/{org}", json={"name": "nginx"}), 409, 6)
    assert body["message"].startswith("Already exists")
    # The same name in another group is fine.
    sub = mk_group(http, org, "team")["uid"]
    second = mk_repo(http, sub, "nginx")
    assert second["uid"] != first["uid"]
    listed = list_repos(http, org, name="nginx")
    assert listed["totalCount"] == "2"


def test_invalid_uid_in_path(http: httpx.Client, org: str) -> None:
    for bad in ["xyz", org.upper(), org + "/abc", org + "/" + "g" * 16, org[:-1]]:
        assert_error(http.get(f"/registry/v2/repos/{bad}"), 400, 3, field="uid")
        assert_error(http.delete(f"/registry/v2/repos/{bad}"), 400, 3)


def test_get_missing_repo_in_existing_org(http: httpx.Client, org: str) -> None:
    missing = f"{org}/{'f' * 16}"
    body = assert_error(http.get(f"/registry/v2/repos/{missing}"), 404, 5)
    assert body["message"] and detail(body, "ResourceInfo")["resourceName"] == missing
    # A group uid is not a repo uid.
    assert_error(http.get(f"/registry/v2/repos/{org}"), 404, 5)


# -------------------------------------------------------------------------------------------------- tags


def test_tag_create_and_get(http: httpx.Client, org: str) -> None:
    repo = mk_repo(http, org, "nginx")
    tag = mk_tag(http, repo["uid"], "latest")
    assert tag["uid"].startswith(repo["uid"] + "/") and len(tag["uid"]) == len(repo["uid"]) + 17
    assert (tag["name"], tag["digest"]) == ("latest", DIGEST_A)
    assert "deprecated" not in tag  # false is a zero value
    assert tag["updateTime"] == tag["createTime"]
    assert get_ok(http, f"/registry/v2/tags/{tag['uid']}") == tag


def test_tag_create_is_an_upsert_by_name(http: httpx.Client, org: str) -> None:
    repo = mk_repo(http, org, "nginx")
    first = mk_tag(http, repo["uid"], "latest", DIGEST_A)
    time.sleep(0.003)
    second = mk_tag(http, repo["uid"], "latest", DIGEST_B)
    assert second["uid"] == first["uid"] and second["digest"] == DIGEST_B
    assert second["createTime"] == first["createTime"] and second["updateTime"] > first["updateTime"]
    listed = list_tags(http, repo["uid"])
    assert listed["totalCount"] == "1" and listed["tags"] == [second]
    # The same name in another repo is another tag.
    other = mk_repo(http, org, "redis")
    assert mk_tag(http, other["uid"], "latest")["uid"] != first["uid"]


def test_tag_deprecated_round_trips_and_selects_client_side(http: httpx.Client, org: str) -> None:
    repo = mk_repo(http, org, "nginx")
    mk_tag(http, repo["uid"], "latest")
    mk_tag(http, repo["uid"], "1.27")
    old = mk_tag(http, repo["uid"], "1.26", DIGEST_B, deprecated=True)
    assert old["deprecated"] is True
    assert get_ok(http, f"/registry/v2/tags/{old['uid']}")["deprecated"] is True
    tags = list_tags(http, repo["uid"])["tags"]
    assert sorted(t["name"] for t in tags) == ["1.26", "1.27", "latest"]
    assert [t["name"] for t in tags if t.get("deprecated")] == ["1.26"]
    # Un-deprecating through the upsert.
    assert "deprecated" not in mk_tag(http, repo["uid"], "1.26", DIGEST_B, deprecated=False)
    assert not any(t.get("deprecated") for t in list_tags(http, repo["uid"])["tags"])


@pytest.mark.parametrize(
    "digest", ["sha256:xyz", "md5:" + "a" * 32, "sha256:" + "a" * 63, "sha256:" + "A" * 64, "a" * 64, ""]
)
def test_tag_invalid_digest(http: httpx.Client, org: str, digest: str) -> None:
    repo = mk_repo(http, org, "nginx")
    r = http.post(f"/registry/v2/tags/{repo['uid']}", json={"name": "latest", "digest": digest})
    assert_error(r, 400, 3, field="digest")
    assert list_tags(http, repo["uid"])["totalCount"] == "0"


@pytest.mark.parametrize("name", ["-bad", ".bad", "a" * 129, "", "has space", "a/b", "a:b"])
def test_tag_invalid_name(http: httpx.Client, org: str, name: str) -> None:
    repo = mk_repo(http, org, "nginx")
    r = http.post(f"/registry/v2/tags/{repo['uid']}", json={"name": name, "digest": DIGEST_A})
    assert_error(r, 400, 3, field="name")


def test_tag_name_limits_accepted(http: httpx.Client, org: str) -> None:
    repo = mk_repo(http, org, "nginx")
    for name in ["a" * 128, "_x", "Latest", "1.2.3-rc_1"]:
        assert mk_tag(http, repo["uid"], name)["name"] == name


def test_tag_under_missing_repo(http: httpx.Client, org: str) -> None:
    missing = f"{org}/{'0' * 16}"
    body = assert_error(http.post(f"/registry/v2/tags/{missing}", json={"name": "x", "digest": DIGEST_A}), 404, 5)
    assert detail(body, "ResourceInfo")["resourceName"] == missing
    # A group is not a repo.
    assert_error(http.post(f"/registry/v2/tags/{org}", json={"name": "x", "digest": DIGEST_A}), 404, 5)
    assert_error(http.post("/registry/v2/tags/nope", json={"name": "x", "digest": DIGEST_A}), 400, 3)


def test_tag_kinds_hidden_unless_included(http: httpx.Client, org: str) -> None:
    repo = mk_repo(http, org, "nginx")
    for name in ["latest", "1.2", "sha256-abc", "1.2-20260101", "1.2-r3"]:
        mk_tag(http, repo["uid"], name)
    uid = repo["uid"]

    def listed(**flags: Any) -> set[str]:
        body = list_tags(http, uid, **flags)
        assert body["totalCount"] == str(len(body.get("tags", [])))
        return set(names(body, "tags"))

    assert listed() == {"latest", "1.2"}
    assert listed(include_referrers="true") == {"latest", "1.2", "sha256-abc"}
    assert listed(include_dates="true") == {"latest", "1.2", "1.2-20260101"}
    assert listed(include_epochs="true") == {"latest", "1.2", "1.2-r3"}
    assert listed(includeReferrers="true", includeDates="true", includeEpochs="true") == {
        "latest",
        "1.2",
        "sha256-abc",
        "1.2-20260101",
        "1.2-r3",
    }
    assert listed(include_referrers="false") == {"latest", "1.2"}


def test_tag_list_filters(http: httpx.Client, org: str) -> None:
    a = mk_repo(http, org, "a")
    b = mk_repo(http, org, "b")
    mk_tag(http, a["uid"], "latest", DIGEST_A)
    mk_tag(http, a["uid"], "1.0", DIGEST_B)
    mk_tag(http, b["uid"], "latest", DIGEST_B)
    assert sorted(names(list_tags(http, a["uid"]), "tags")) == ["1.0", "latest"]
    assert names(list_tags(http, a["uid"], name="latest"), "tags") == ["latest"]
    assert names(list_tags(http, a["uid"], digest=DIGEST_B), "tags") == ["1.0"]
    everywhere = get_ok(http, "/registry/v2/tags", **{"uidp.descendants_of": org, "name": "latest"})
    assert everywhere["totalCount"] == "2"
    ordered = list_tags(http, a["uid"], order_by="name desc")
    assert names(ordered, "tags") == ["latest", "1.0"]


def test_tag_list_updated_since(http: httpx.Client, org: str) -> None:
    repo = mk_repo(http, org, "nginx")
    old = mk_tag(http, repo["uid"], "old")
    time.sleep(0.005)
    new = mk_tag(http, repo["uid"], "new")
    assert new["updateTime"] > old["updateTime"]
    body = list_tags(http, repo["uid"], updated_since=old["updateTime"])
    assert names(body, "tags") == ["new"]
    assert_error(http.get("/registry/v2/tags", params={"updated_since": "yesterday"}), 400, 3)


def test_tag_delete(http: httpx.Client, org: str) -> None:
    repo = mk_repo(http, org, "nginx")
    tag = mk_tag(http, repo["uid"], "latest")
    keep = mk_tag(http, repo["uid"], "keep")
    r = http.delete(f"/registry/v2/tags/{tag['uid']}")
    assert r.status_code == 200 and r.json() == {}
    body = assert_error(http.get(f"/registry/v2/tags/{tag['uid']}"), 404, 5)
    assert detail(body, "ResourceInfo")["resourceName"] == tag["uid"]
    assert_error(http.delete(f"/registry/v2/tags/{tag['uid']}"), 404, 5)
    assert list_tags(http, repo["uid"])["tags"] == [keep]


def test_deleting_a_repo_deletes_its_tags(http: httpx.Client, org: str) -> None:
    repo = mk_repo(http, org, "nginx")
    other = mk_repo(http, org, "redis")
    tags = [mk_tag(http, repo["uid"], n) for n in ["latest", "1.0", "sha256-abc"]]
    survivor = mk_tag(http, other["uid"], "latest")
    assert http.delete(f"/registry/v2/repos/{repo['uid']}").status_code == 200
    for t in tags:
        assert_error(http.get(f"/registry/v2/tags/{t['uid']}"), 404, 5)
    gone = list_tags(http, repo["uid"], include_referrers="true")
    assert gone["totalCount"] == "0" and not gone.get("tags")
    assert get_ok(http, f"/registry/v2/tags/{survivor['uid']}") == survivor
    # A new repo of the same name starts without tags.
    again = mk_repo(http, org, "nginx")
    assert list_tags(http, again["uid"], include_referrers="true")["totalCount"] == "0"


# ------------------------------------------------------------------------------------------------ readme


def test_readme_initially_empty(http: httpx.Client, org: str) -> None:
    repo = mk_repo(http, org, "nginx")
    assert get_ok(http, f"/registry/v2/repos/{repo['uid']}/readme") == {"uid": repo["uid"]}
    # The readme is not a field of the repo.
    assert "readme" not in get_ok(http, f"/registry/v2/repos/{repo['uid']}")


def test_readme_update_round_trips(http: httpx.Client, org: str) -> None:
    repo = mk_repo(http, org, "nginx")
    content = "# Hello\n\nSome *markdown* with `code` and a [link](https://example.com).\n"
    r = http.patch(f"/registry/v2/repos/{repo['uid']}/readme", json={"content": content})
    assert r.status_code == 200, r.text
    assert r.json() == {"uid": repo["uid"], "content": content}
    assert get_ok(http, f"/registry/v2/repos/{repo['uid']}/readme") == {"uid": repo["uid"], "content": content}
    # The repo itself keeps its fields and sees no readme key.
    stored = get_ok(http, f"/registry/v2/repos/{repo['uid']}")
    assert stored["name"] == "nginx" and "readme" not in stored and "content" not in stored
    # Another repo's readme is untouched.
    other = mk_repo(http, org, "redis")
    assert get_ok(http, f"/registry/v2/repos/{other['uid']}/readme") == {"uid": other["uid"]}


@pytest.mark.parametrize(
    "content",
    [
        "<script>alert(1)</script>",
        "# Hi\n<SCRIPT src=//evil></SCRIPT>",
        '<img src=x onerror="alert(1)">',
        '<a href="javascript:alert(1)">x</a>',
        "<iframe src=https://evil></iframe>",
    ],
)
def test_readme_unsafe_html_rejected(http: httpx.Client, org: str, content: str) -> None:
    repo = mk_repo(http, org, "nginx")
    http.patch(f"/registry/v2/repos/{repo['uid']}/readme", json={"content": "# safe"})
    r = http.patch(f"/registry/v2/repos/{repo['uid']}/readme", json={"content": content})
    assert_error(r, 400, 3, field="content")
    assert get_ok(http, f"/registry/v2/repos/{repo['uid']}/readme")["content"] == "# safe"


@pytest.mark.parametrize(
    "content",
    [
        "Set one = 2 in the config file.",
        "Learn javascript: the good parts",
        "Never put `<script>` in a readme.",
    ],
)
def test_readme_safe_prose_accepted(http: httpx.Client, org: str, content: str) -> None:
    repo = mk_repo(http, org, "nginx")
    r = http.patch(f"/registry/v2/repos/{repo['uid']}/readme", json={"content": content})
    assert r.status_code == 200, r.text
    assert r.json()["content"] == content


@pytest.mark.parametrize(
    "content",
    [
        '<a href="jav&#97;script:alert(1)">x</a>',
        '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">x</a>',
        '<p style="position:fixed;top:0;left:0;width:100%">x</p>',
        "<textarea>x</textarea>",
    ],
)
def test_readme_unsafe_html_bypasses_rejected(http: httpx.Client, org: str, content: str) -> None:
    repo = mk_repo(http, org, "nginx")
    r = http.patch(f"/registry/v2/repos/{repo['uid']}/readme", json={"content": content})
    assert_error(r, 400, 3, field="content")


def test_readme_of_missing_repo(http: httpx.Client, org: str) -> None:
    missing = f"{org}/{'0' * 16}"
    assert_error(http.get(f"/registry/v2/repos/{missing}/readme"), 404, 5)
    assert_error(http.patch(f"/registry/v2/repos/{missing}/readme", json={"content": "# x"}), 404, 5)
    assert_error(http.get("/registry/v2/repos/nope/readme"), 400, 3)


def test_readme_goes_with_the_repo(http: httpx.Client, org: str) -> None:
    repo = mk_repo(http, org, "nginx")
    http.patch(f"/registry/v2/repos/{repo['uid']}/readme", json={"content": "# Hello"})
    assert http.delete(f"/registry/v2/repos/{repo['uid']}").status_code == 200
    assert_error(http.get(f"/registry/v2/repos/{repo['uid']}/readme"), 404, 5)
    again = mk_repo(http, org, "nginx")
    assert get_ok(http, f"/registry/v2/repos/{again['uid']}/readme") == {"uid": again["uid"]}
