"""Shared HTTP/JSON conventions (spec 2, 4.1, 7, 8; reference 1, 2, 4): wire encoding, structured errors,
routing, and the List rules (paging, tokens, order_by, skip, keyset stability), against both backends.
"""

from __future__ import annotations

import re
import string
import time
from typing import Any

import httpx
import pytest

from tests.helpers import assert_error, detail, mk_group, mk_repo

TS = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
DIGEST = "sha256:" + "c" * 64


def list_repos(http: httpx.Client, org: str, **params: Any) -> dict[str, Any]:
    r = http.get("/registry/v2/repos", params={"uidp.descendants_of": org, **params})
    assert r.status_code == 200, r.text
    return dict(r.json())


def names(body: dict[str, Any], key: str = "repos") -> list[str]:
    return [item["name"] for item in body.get(key, [])]


def all_pages(http: httpx.Client, org: str, **params: Any) -> list[dict[str, Any]]:
    """Every repo of the listing, following nextPageToken; asserts each page is well-formed."""
    out: list[dict[str, Any]] = []
    token = None
    while True:
        body = list_repos(http, org, **params, **({"page_token": token} if token else {}))
        page = body.get("repos", [])
        size = int(params.get("page_size", 50))
        assert len(page) <= size
        out += page
        token = body.get("nextPageToken")
        if not token:
            return out
        assert len(page) == size


# ------------------------------------------------------------------------------------------ wire format


def test_ping(http: httpx.Client) -> None:
    r = http.get("/ping/v2/ping")
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/json")
    assert isinstance(r.json()["response"], str) and r.json()["response"]


def test_success_is_200_json_for_every_verb(http: httpx.Client, org: str) -> None:
    responses = [
        http.post(f"/registry/v2/repos/{org}", json={"name": "nginx"}),
    ]
    uid = responses[0].json()["uid"]
    responses += [
        http.get(f"/registry/v2/repos/{uid}"),
        http.get("/registry/v2/repos", params={"uidp.children_of": org}),
        http.patch(f"/registry/v2/repos/{uid}", json={"description": "d"}),
        http.delete(f"/registry/v2/repos/{uid}"),
    ]
    for r in responses:
        assert r.status_code == 200, r.text
        assert r.headers["content-type"].startswith("application/json")
    assert responses[-1].json() == {}


def test_zero_values_are_omitted(http: httpx.Client, org: str) -> None:
    repo = mk_repo(http, org, "nginx")
    assert set(repo) == {"uid", "name", "createTime", "updateTime"}
    r = http.patch(f"/registry/v2/repos/{repo['uid']}", json={"description": "x", "aliases": ["a:1"]})
    assert r.json()["description"] == "x" and r.json()["aliases"] == ["a:1"]
    r = http.patch(f"/registry/v2/repos/{repo['uid']}", json={"description": "", "aliases": []})
    assert set(r.json()) == {"uid", "name", "createTime", "updateTime"}, r.json()
    listed = list_repos(http, org)["repos"][0]
    assert set(listed) == {"uid", "name", "createTime", "updateTime"}


def test_empty_list_envelope(http: httpx.Client, org: str) -> None:
    for path, scope in [
        ("/registry/v2/repos", "uidp.descendants_of"),
        ("/iam/v2/groups", "uidp.descendants_of"),
        ("/registry/v2/tags", "uidp.descendants_of"),
    ]:
        r = http.get(path, params={scope: org})
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["totalCount"] == "0" and body["skipped"] == 0, body
        assert "nextPageToken" not in body
        assert set(body) <= {"totalCount", "skipped", "repos", "groups", "tags"}
        assert not body.get(path.rsplit("/", 1)[1])


def test_list_envelope_types(http: httpx.Client, org: str) -> None:
    for i in range(3):
        mk_repo(http, org, f"r{i}")
    body = list_repos(http, org, page_size=2)
    assert isinstance(body["totalCount"], str) and body["totalCount"] == "3"
    assert isinstance(body["skipped"], int) and body["skipped"] == 0
    assert isinstance(body["nextPageToken"], str) and body["nextPageToken"]
    assert isinstance(body["repos"], list)


def test_timestamps(http: httpx.Client, org: str) -> None:
    before = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(time.time() - 5))
    repo = mk_repo(http, org, "nginx")
    after = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(time.time() + 5))
    assert TS.match(repo["createTime"]) and TS.match(repo["updateTime"]), repo
    assert repo["createTime"] == repo["updateTime"]
    assert before <= repo["createTime"] <= after
    time.sleep(0.003)
    updated = http.patch(f"/registry/v2/repos/{repo['uid']}", json={"description": "d"}).json()
    assert TS.match(updated["updateTime"]) and updated["updateTime"] > repo["updateTime"]
    assert updated["createTime"] == repo["createTime"]
    group = mk_group(http, org, "team")
    assert TS.match(group["createTime"]) and group["createTime"] == group["updateTime"]
    tag = http.post(f"/registry/v2/tags/{repo['uid']}", json={"name": "latest", "digest": DIGEST}).json()
    assert TS.match(tag["updateTime"]) and TS.match(tag["createTime"])


def test_unchanged_patch_keeps_update_time(http: httpx.Client, org: str) -> None:
    repo = mk_repo(http, org, "nginx", description="d")
    time.sleep(0.003)
    same = http.patch(f"/registry/v2/repos/{repo['uid']}", json={"description": "d"})
    assert same.status_code == 200 and same.json() == repo


def test_body_accepts_snake_and_camel_case(http: httpx.Client, org: str) -> None:
    snake = mk_repo(http, org, "a", active_tags=["1.0"])
    camel = mk_repo(http, org, "b", activeTags=["2.0"])
    assert snake["activeTags"] == ["1.0"] and camel["activeTags"] == ["2.0"]
    assert "active_tags" not in snake  # output is camelCase
    r = http.patch(f"/registry/v2/repos/{snake['uid']}", json={"active_tags": ["3.0"]})
    assert r.json()["activeTags"] == ["3.0"]
    tag = http.post(f"/registry/v2/tags/{snake['uid']}", json={"name": "t", "digest": DIGEST, "deprecated": True})
    assert tag.json()["deprecated"] is True


def test_query_accepts_snake_and_camel_case(http: httpx.Client, org: str) -> None:
    for n in ["c", "a", "d", "b"]:
        mk_repo(http, org, n)
    snake = http.get("/registry/v2/repos", params={"uidp.descendants_of": org, "page_size": 2, "order_by": "name"})
    camel = http.get("/registry/v2/repos", params={"uidp.descendantsOf": org, "pageSize": 2, "orderBy": "name"})
    assert names(snake.json()) == names(camel.json()) == ["a", "b"]
    token = camel.json()["nextPageToken"]
    rest = http.get("/registry/v2/repos", params={"uidp.descendantsOf": org, "pageSize": 2, "orderBy": "name",
                                                  "pageToken": token})  # fmt: skip
    assert names(rest.json()) == ["c", "d"]
    assert names(list_repos(http, org, orderBy="name desc", pageSize=1)) == ["d"]
    uid = snake.json()["repos"][0]["uid"]
    for key in ["update_mask", "updateMask"]:
        r = http.patch(f"/registry/v2/repos/{uid}", params={key: "description"}, json={"description": key, "name": "z"})
        assert (r.json()["name"], r.json()["description"]) == ("a", key)


def test_unknown_body_fields_and_query_params_ignored(http: httpx.Client, org: str) -> None:
    body = {"name": "nginx", "colour": "red", "nested": {"x": [1, 2]}, "readme": "# x", "syncSettings": {"a": 1}}
    repo = mk_repo(http, org, **body)  # type: ignore[arg-type]
    assert set(repo) == {"uid", "name", "createTime", "updateTime"}
    listed = list_repos(http, org, colour="red", **{"uidp.colour": "x", "uidp": "x", "name.inner": "y"})
    assert names(listed) == ["nginx"]
    r = http.patch(f"/registry/v2/repos/{repo['uid']}", params={"colour": "x"}, json={"colour": 1, "description": "d"})
    assert r.status_code == 200 and r.json()["description"] == "d"


def test_null_body_field_means_not_set(http: httpx.Client, org: str) -> None:
    repo = mk_repo(http, org, "nginx", description=None)
    assert "description" not in repo
    assert_error(http.post(f"/registry/v2/repos/{org}", json={"name": None}), 400, 3, field="name")


def test_responses_carry_a_request_id(http: httpx.Client, org: str) -> None:
    r = http.get(f"/iam/v2/groups/{org}", headers={"x-request-id": "trace-123"})
    assert r.headers.get("x-request-id") == "trace-123"
    assert http.get(f"/iam/v2/groups/{org}").headers.get("x-request-id")


# ---------------------------------------------------------------------------------------------- errors


def test_validation_error_shape(http: httpx.Client, org: str) -> None:
    body = assert_error(http.post(f"/iam/v2/groups/{org}", json={}), 400, 3, field="name")
    assert body["message"].startswith("Invalid argument")
    assert detail(body, "ErrorInfo")["domain"].startswith("iam.")
    violation = detail(body, "BadRequest")["fieldViolations"][0]
    assert violation["field"] == "name" and violation["description"]
    # Registry errors name the registry area.
    repo_err = assert_error(http.post(f"/registry/v2/repos/{org}", json={}), 400, 3, field="name")
    assert detail(repo_err, "ErrorInfo")["domain"].startswith("registry.")


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"name": 5}, "name"),
        ({"name": ["a"]}, "name"),
        ({"name": {"x": 1}}, "name"),
        ({"name": True}, "name"),
        ({"name": "ok", "description": 1.5}, "description"),
    ],
)
def test_wrong_type_is_invalid_argument(http: httpx.Client, org: str, body: dict[str, Any], field: str) -> None:
    assert_error(http.post(f"/iam/v2/groups/{org}", json=body), 400, 3, field=field)


def test_wrong_type_in_repeated_field(http: httpx.Client, org: str) -> None:
    r = http.post(f"/registry/v2/repos/{org}", json={"name": "x", "aliases": "a:1"})
    assert_error(r, 400, 3, field="aliases")
    r = http.post(f"/registry/v2/repos/{org}", json={"name": "x", "aliases": [1]})
    assert_error(r, 400, 3)


@pytest.mark.parametrize("raw", [b'{"name":', b"{name: 'x'}", b"not json", b'{"name": "a"} trailing', b"\xff\xfe"])
def test_malformed_json(http: httpx.Client, org: str, raw: bytes) -> None:
    r = http.post(f"/iam/v2/groups/{org}", content=raw, headers={"content-type": "application/json"})
    assert_error(r, 400, 3)


@pytest.mark.parametrize("raw", [b"[]", b'[{"name": "x"}]', b'"x"', b"5", b"null", b"true"])
def test_body_must_be_an_object(http: httpx.Client, org: str, raw: bytes) -> None:
    r = http.post(f"/iam/v2/groups/{org}", content=raw, headers={"content-type": "application/json"})
    assert_error(r, 400, 3)
    listed = http.get("/iam/v2/groups", params={"uidp.children_of": org}).json()
    assert listed["totalCount"] == "0"


def test_body_over_1_mib(http: httpx.Client, org: str) -> None:
    big = b'{"name": "x", "description": "' + b"a" * (1 << 20) + b'"}'
    # The server may close a connection whose body it did not read: such a connection is not reused.
    close = {"connection": "close"}
    body = assert_error(http.post(f"/registry/v2/repos/{org}", content=big, headers=close), 413, 8)
    assert detail(body, "ErrorInfo")["reason"] == "RESOURCE_EXHAUSTED"

    def chunks() -> Any:  # no content-length: the limit holds on the bytes read
        for _ in range(9):
            yield b" " * (128 * 1024)
        yield b'{"name": "x"}'

    assert_error(http.post(f"/registry/v2/repos/{org}", content=chunks(), headers=close), 413, 8)
    assert list_repos(http, org)["totalCount"] == "0"
    # Just under the limit is parsed (and here rejected for the description's length, not the size).
    near = b'{"name": "x", "description": "' + b"a" * ((1 << 20) - 100) + b'"}'
    assert_error(http.post(f"/registry/v2/repos/{org}", content=near), 400, 3, field="description")


@pytest.mark.parametrize(
    "path", ["/", "/nothing", "/registry/v2/nothing", "/registry/v3/repos", "/iam/v2/groupz", "/ping/v2/pong"]
)
def test_unknown_route(http: httpx.Client, path: str) -> None:
    for method in ["GET", "POST", "DELETE"]:
        body = assert_error(http.request(method, path), 404, 5)
        assert body["message"] == "Not Found"


@pytest.mark.parametrize(("method", "path"), [("PUT", "/registry/v2/repos/{repo}"), ("POST", "/registry/v2/repos"),
                                              ("DELETE", "/registry/v2/repos"), ("PATCH", "/iam/v2/groups"),
                                              ("PUT", "/iam/v2/groups/{org}"), ("POST", "/ping/v2/ping"),
                                              ("PATCH", "/registry/v2/tags/{repo}/" + "0" * 16)])  # fmt: skip
def test_wrong_method_on_known_path(http: httpx.Client, org: str, method: str, path: str) -> None:
    repo = mk_repo(http, org, "nginx")["uid"]
    r = http.request(method, path.format(repo=repo, org=org), json={"name": "x"})
    assert_error(r, 501, 12)
    assert http.get(f"/registry/v2/repos/{repo}").json()["name"] == "nginx"


@pytest.mark.parametrize(("method", "path"), [("GET", "/.well-known/nothing"), ("POST", "/healthz")])
def test_non_api_paths_answer_structured_errors(http: httpx.Client, method: str, path: str) -> None:
    r = http.request(method, path)
    assert r.status_code >= 400
    assert r.headers["content-type"].startswith("application/json"), (r.status_code, r.headers, r.text)
    assert isinstance(r.json()["code"], int)


def test_non_empty_group_delete(http: httpx.Client, org: str) -> None:
    mk_repo(http, org, "nginx")
    body = assert_error(http.delete(f"/iam/v2/groups/{org}"), 400, 9)
    assert body["message"].startswith("Precondition failed")
    assert detail(body, "PreconditionFailure")["violations"][0]["type"] == "RESOURCE_NOT_EMPTY"
    assert detail(body, "ErrorInfo")["domain"].startswith("iam.")


def test_not_found_details(http: httpx.Client, org: str) -> None:
    missing = f"{org}/{'0' * 16}"
    for path in [
        f"/registry/v2/repos/{missing}",
        f"/registry/v2/tags/{missing}/{'1' * 16}",
        f"/iam/v2/groups/{missing}",
    ]:
        body = assert_error(http.get(path), 404, 5)
        info = detail(body, "ResourceInfo")
        assert info["resourceName"] == path.split("/", 4)[4] and info["resourceType"]


def test_invalid_uid_in_path(http: httpx.Client) -> None:
    for path in ["/registry/v2/repos/xyz", "/registry/v2/tags/xyz", "/iam/v2/groups/xyz"]:
        assert_error(http.get(path), 400, 3, field="uid")


# ----------------------------------------------------------------------------------------------- lists


def test_page_size_default_is_50(http: httpx.Client, org: str) -> None:
    for i in range(55):
        mk_repo(http, org, f"r{i:02d}")
    body = list_repos(http, org, order_by="name")
    assert len(body["repos"]) == 50 and body["totalCount"] == "55" and body["nextPageToken"]
    zero = list_repos(http, org, order_by="name", page_size=0)
    assert len(zero["repos"]) == 50
    rest = list_repos(http, org, order_by="name", page_token=body["nextPageToken"])
    assert names(rest) == [f"r{i:02d}" for i in range(50, 55)] and "nextPageToken" not in rest


def test_page_size_above_200_is_clamped(http: httpx.Client, org: str) -> None:
    for i in range(203):
        mk_repo(http, org, f"r{i:03d}")
    for size in [201, 500, 2**31 - 1]:
        body = list_repos(http, org, page_size=size, order_by="name")
        assert len(body["repos"]) == 200 and body["totalCount"] == "203" and body["nextPageToken"], size
    body = list_repos(http, org, page_size=500, order_by="name")
    rest = list_repos(http, org, page_size=500, order_by="name", page_token=body["nextPageToken"])
    assert names(rest) == ["r200", "r201", "r202"]
    exact = list_repos(http, org, page_size=200, order_by="name")
    assert len(exact["repos"]) == 200


@pytest.mark.parametrize(
    ("param", "value"),
    [
        ("page_size", "-1"),
        ("pageSize", "-5"),
        ("page_size", "abc"),
        ("page_size", "1.5"),
        ("page_size", str(2**31)),
        ("skip", "-1"),
        ("skip", "x"),
        ("uidp.in_root", "maybe"),
    ],
)
def test_bad_paging_parameters(http: httpx.Client, org: str, param: str, value: str) -> None:
    r = http.get("/registry/v2/repos", params={"uidp.descendants_of": org, param: value})
    body = assert_error(r, 400, 3)
    assert detail(body, "BadRequest")["fieldViolations"][0]["field"] in (
        param,
        re.sub(r"(?<!^)([A-Z])", r"_\1", param).lower(),
    )


@pytest.mark.parametrize("order_by", ["createTime", "colour", "name sideways", "name desc extra", "name,name", ",",
                                      "created_at desc,", "description", "updateTime desc"])  # fmt: skip
def test_unknown_order_by(http: httpx.Client, org: str, order_by: str) -> None:
    mk_repo(http, org, "nginx")
    r = http.get("/registry/v2/repos", params={"uidp.descendants_of": org, "order_by": order_by})
    assert_error(r, 400, 3, field="order_by")


def test_order_by_keys_case_and_direction(http: httpx.Client, org: str) -> None:
    for n in ["b", "a", "c"]:
        mk_repo(http, org, n)
    assert names(list_repos(http, org, order_by="name asc")) == ["a", "b", "c"]
    assert names(list_repos(http, org, order_by="name DESC")) == ["c", "b", "a"]
    assert names(list_repos(http, org, order_by="  name   desc ")) == ["c", "b", "a"]
    uids = [r["uid"] for r in list_repos(http, org, order_by="uid desc")["repos"]]
    assert uids == sorted(uids, reverse=True)


def test_order_by_name_is_bytewise(http: httpx.Client, org: str) -> None:
    """The same order on both backends: code-point order, punctuation included."""
    given = ["ab", "a-b", "a.b", "a_b", "a b", "a0", "b", "a"]
    for n in given:
        mk_repo(http, org, n)
    assert names(list_repos(http, org, order_by="name")) == sorted(given)
    assert names(list_repos(http, org, order_by="name desc")) == sorted(given, reverse=True)


def test_order_by_updated_at_desc(http: httpx.Client, org: str) -> None:
    repos = {}
    for n in ["a", "b", "c", "d"]:
        repos[n] = mk_repo(http, org, n)
        time.sleep(0.003)
    http.patch(f"/registry/v2/repos/{repos['b']['uid']}", json={"description": "touched"})
    time.sleep(0.003)
    http.patch(f"/registry/v2/repos/{repos['a']['uid']}", json={"description": "touched"})
    assert names(list_repos(http, org, order_by="updated_at desc")) == ["a", "b", "d", "c"]
    assert names(list_repos(http, org, order_by="updated_at")) == ["c", "d", "b", "a"]


def test_multi_key_order_by(http: httpx.Client, org: str) -> None:
    made = []
    for g in ("g1", "g2"):
        parent = mk_group(http, org, g)["uid"]
        for n in ("x", "y"):
            made.append(mk_repo(http, parent, n))
            time.sleep(0.003)
    body = list_repos(http, org, order_by="name desc, created_at")
    expected = sorted(sorted(made, key=lambda r: r["createTime"]), key=lambda r: r["name"], reverse=True)
    assert [r["uid"] for r in body["repos"]] == [r["uid"] for r in expected]
    body = list_repos(http, org, order_by="name,created_at desc")
    expected = sorted(sorted(made, key=lambda r: r["createTime"], reverse=True), key=lambda r: r["name"])
    assert [r["uid"] for r in body["repos"]] == [r["uid"] for r in expected]


def test_ties_are_broken_by_uid_across_pages(http: httpx.Client, org: str) -> None:
    """Same name in several groups, same millisecond: paging by name or created_at still visits each once."""
    made = []
    for g in range(4):
        group = mk_group(http, org, f"g{g}")["uid"]
        made += [mk_repo(http, group, n) for n in ("same", "other")]
    for order in ["name", "name desc", "created_at", "created_at desc"]:
        got = all_pages(http, org, page_size=1, order_by=order)
        assert sorted(r["uid"] for r in got) == sorted(r["uid"] for r in made), order
        desc = order.endswith("desc")
        key = "name" if order.startswith("name") else "createTime"
        assert got == sorted(made, key=lambda r: (r[key], r["uid"]), reverse=desc), order


def test_skip_beyond_the_end(http: httpx.Client, org: str) -> None:
    for n in ["a", "b", "c"]:
        mk_repo(http, org, n)
    body = list_repos(http, org, skip=10)
    assert body["skipped"] == 10 and body["totalCount"] == "3" and not body.get("repos")
    assert "nextPageToken" not in body
    assert names(list_repos(http, org, skip=2, order_by="name")) == ["c"]


def test_skip_combines_with_page_token(http: httpx.Client, org: str) -> None:
    for i in range(10):
        mk_repo(http, org, f"r{i}")
    first = list_repos(http, org, page_size=3, order_by="name")
    after = list_repos(http, org, page_size=3, order_by="name", page_token=first["nextPageToken"], skip=2)
    assert names(after) == ["r5", "r6", "r7"] and after["skipped"] == 2
    skipped = list_repos(http, org, page_size=3, order_by="name", skip=4)
    assert names(skipped) == ["r4", "r5", "r6"] and skipped["nextPageToken"]
    nxt = list_repos(http, org, page_size=3, order_by="name", page_token=skipped["nextPageToken"])
    assert names(nxt) == ["r7", "r8", "r9"]


def _forge(token: str) -> list[str]:
    """Variants of a token with one character changed, and truncations."""
    out = []
    for i in (0, len(token) // 3, len(token) // 2, len(token) - 5):
        c = token[i]
        repl = next(x for x in "AbQz09-_" if x != c)
        out.append(token[:i] + repl + token[i + 1 :])
    out += [token[:-4], token[4:], token + "AAAA", "garbage!", "AAAA", "a" * len(token)]
    return out


def test_forged_page_token(http: httpx.Client, org: str) -> None:
    for i in range(4):
        mk_repo(http, org, f"r{i}")
    token = list_repos(http, org, page_size=2)["nextPageToken"]
    assert all(c in string.ascii_letters + string.digits + "-_=" for c in token)
    for bad in _forge(token):
        r = http.get("/registry/v2/repos", params={"uidp.descendants_of": org, "page_size": 2, "page_token": bad})
        assert_error(r, 400, 3, field="page_token")


def test_page_token_bound_to_query_and_order(http: httpx.Client, org: str) -> None:
    other = mk_group(http, org, "other")["uid"]
    for i in range(4):
        mk_repo(http, org, f"r{i}")
    token = list_repos(http, org, page_size=2, order_by="name")["nextPageToken"]
    for changed in [
        {"uidp.descendants_of": org, "order_by": "name desc"},
        {"uidp.descendants_of": org, "order_by": "created_at"},
        {"uidp.descendants_of": org},
        {"uidp.descendants_of": other, "order_by": "name"},
        {"uidp.descendants_of": org, "order_by": "name", "name": "r3"},
        {"uidp.children_of": org, "order_by": "name"},
    ]:
        r = http.get("/registry/v2/repos", params={**changed, "page_size": 2, "page_token": token})
        assert_error(r, 400, 3, field="page_token")
    # A token of one collection does not page another.
    r = http.get("/iam/v2/groups", params={"uidp.descendants_of": org, "order_by": "name", "page_token": token})
    assert_error(r, 400, 3, field="page_token")


def test_page_token_survives_page_size_and_spelling_changes(http: httpx.Client, org: str) -> None:
    for i in range(8):
        mk_repo(http, org, f"r{i}")
    token = list_repos(http, org, page_size=2, order_by="name")["nextPageToken"]
    assert names(list_repos(http, org, page_size=5, order_by="name", page_token=token)) == [
        f"r{i}" for i in range(2, 7)
    ]
    camel = http.get("/registry/v2/repos", params={"uidp.descendantsOf": org, "pageSize": 1, "orderBy": "name",
                                                   "pageToken": token})  # fmt: skip
    assert names(camel.json()) == ["r2"]
    # The same token can be replayed.
    assert names(list_repos(http, org, page_size=2, order_by="name", page_token=token)) == ["r2", "r3"]


def test_pages_are_stable_under_inserts_and_deletes(http: httpx.Client, org: str) -> None:
    made = {n: mk_repo(http, org, n) for n in ["b", "d", "f", "h", "j", "l", "n"]}
    first = list_repos(http, org, page_size=3, order_by="name")
    assert names(first) == ["b", "d", "f"]
    # Insert a row sorting before the cursor, one after it; delete a row not yet seen.
    mk_repo(http, org, "a")
    mk_repo(http, org, "k")
    assert http.delete(f"/registry/v2/repos/{made['h']['uid']}").status_code == 200
    seen = names(first)
    token = first["nextPageToken"]
    while token:
        page = list_repos(http, org, page_size=3, order_by="name", page_token=token)
        seen += names(page)
        token = page.get("nextPageToken")
    assert seen == ["b", "d", "f", "j", "k", "l", "n"]


def test_pages_are_stable_when_the_cursor_row_is_deleted(http: httpx.Client, org: str) -> None:
    made = {n: mk_repo(http, org, n) for n in ["a", "b", "c", "d", "e"]}
    first = list_repos(http, org, page_size=2, order_by="name desc")
    assert names(first) == ["e", "d"]
    http.delete(f"/registry/v2/repos/{made['d']['uid']}")
    http.delete(f"/registry/v2/repos/{made['e']['uid']}")
    rest = list_repos(http, org, page_size=2, order_by="name desc", page_token=first["nextPageToken"])
    assert names(rest) == ["c", "b"] and rest["totalCount"] == "3"


def test_total_count_follows_filters(http: httpx.Client, org: str) -> None:
    team = mk_group(http, org, "team")["uid"]
    for n in ["a", "b"]:
        mk_repo(http, org, n)
    mk_repo(http, team, "a")
    assert list_repos(http, org)["totalCount"] == "3"
    assert list_repos(http, org, name="a")["totalCount"] == "2"
    children = http.get("/registry/v2/repos", params={"uidp.children_of": team}).json()
    assert children["totalCount"] == "1" and names(children) == ["a"]
    in_root = http.get("/registry/v2/repos", params={"uidp.in_root": "true", "uidp.descendants_of": org}).json()
    assert in_root["totalCount"] == "0"
    both = list_repos(http, org, **{"uidp.children_of": org})
    assert both["totalCount"] == "2"
    by_ids = http.get("/registry/v2/repos", params={"uidp.ids": [r["uid"] for r in list_repos(http, org)["repos"][:2]]})
    assert by_ids.json()["totalCount"] == "2"
