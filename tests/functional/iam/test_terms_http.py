"""IAM terms over HTTP/JSON (reference 6.9): accepting configured documents (idempotent) and listing a group's
acceptances including its ancestors', with the list conventions and authorization, on both backends.
"""

from __future__ import annotations

import time

import httpx

from tests.helpers import Server, all_items, assert_denied, assert_error, assert_not_found, mk_group, mk_org, ok

PATH = "/iam/v2/terms"


def test_accept_and_list(server: Server, http: httpx.Client, org: str) -> None:
    out = ok(http.post(f"{PATH}/{org}", json={"documentIds": ["tos.v1", "dpa.v1", "tos.v1"]}))
    assert out == {"group": org, "documentIds": ["tos.v1", "dpa.v1"]}
    listed = ok(http.get(f"{PATH}/{org}"))
    assert listed["totalCount"] == "2" and listed["skipped"] == 0
    accepted = listed["termsAcceptances"]
    assert sorted(a["docId"] for a in accepted) == ["dpa.v1", "tos.v1"]
    for a in accepted:
        assert (a["acceptedBy"], a["orgUid"]) == (server.owner, org)
        assert a["createTime"] == a["updateTime"]
    # Idempotent: accepting again (by anyone) keeps the first acceptance.
    _, token = server.identity_with_role(org, "owner")
    with server.client(token) as c:
        assert ok(c.post(f"{PATH}/{org}", json={"document_ids": ["tos.v1"]})) == {
            "group": org,
            "documentIds": ["tos.v1"],
        }
    assert ok(http.get(f"{PATH}/{org}"))["termsAcceptances"] == accepted


def test_ancestors_acceptances_are_included(server: Server, http: httpx.Client, org: str) -> None:
    team = mk_group(http, org)["uid"]
    sub = mk_group(http, team)["uid"]
    sibling = mk_group(http, org)["uid"]
    ok(http.post(f"{PATH}/{org}", json={"documentIds": ["tos.v1"]}))
    time.sleep(0.002)
    ok(http.post(f"{PATH}/{team}", json={"documentIds": ["dpa.v1", "tos.v1"]}))
    ok(http.post(f"{PATH}/{sibling}", json={"documentIds": ["dpa.v1"]}))
    view = ok(http.get(f"{PATH}/{sub}"))
    assert [(a["orgUid"], a["docId"]) for a in view["termsAcceptances"]] in (
        [(org, "tos.v1"), (team, "dpa.v1"), (team, "tos.v1")],
        [(org, "tos.v1"), (team, "tos.v1"), (team, "dpa.v1")],
    )
    assert view["totalCount"] == "3"
    assert [a["orgUid"] for a in ok(http.get(f"{PATH}/{org}"))["termsAcceptances"]] == [org]
    # Paging, skip and order.
    items, total = all_items(http, f"{PATH}/{sub}", "termsAcceptances", page_size=1)
    assert total == 3 and len(items) == 3 and len({(a["orgUid"], a["docId"]) for a in items}) == 3
    by_doc = ok(http.get(f"{PATH}/{sub}", params={"order_by": "doc_id desc, created_at", "page_size": 2}))
    assert [a["docId"] for a in by_doc["termsAcceptances"]] == ["tos.v1", "tos.v1"] and by_doc["nextPageToken"]
    skipped = ok(http.get(f"{PATH}/{sub}", params={"skip": 2}))
    assert len(skipped["termsAcceptances"]) == 1 and skipped["skipped"] == 2 and skipped["totalCount"] == "3"
    assert_error(http.get(f"{PATH}/{sub}", params={"order_by": "colour"}), 400, 3, field="order_by")
    # Gone with the group.
    ok(http.delete(f"/iam/v2/groups/{sibling}"))


def test_validation(http: httpx.Client, org: str) -> None:
    assert_error(http.post(f"{PATH}/{org}", json={}), 400, 3, field="document_ids")
    assert_error(http.post(f"{PATH}/{org}", json={"documentIds": []}), 400, 3, field="document_ids")
    assert_error(http.post(f"{PATH}/{org}", json={"documentIds": ["tos.v1", "nope.v9"]}), 400, 3, field="document_ids")
    assert ok(http.get(f"{PATH}/{org}")) == {"totalCount": "0", "skipped": 0}
    missing = f"{org}/{'0' * 16}"
    assert_not_found(http.post(f"{PATH}/{missing}", json={"documentIds": ["tos.v1"]}), missing, "Group")
    assert_not_found(http.get(f"{PATH}/{missing}"), missing, "Group")
    assert_error(http.get(f"{PATH}/nope"), 400, 3, field="group")


def test_authorization(server: Server, http: httpx.Client, org: str) -> None:
    ok(http.post(f"{PATH}/{org}", json={"documentIds": ["tos.v1"]}))
    _, viewer = server.identity_with_role(org, "viewer")
    with server.client(viewer) as c:
        assert ok(c.get(f"{PATH}/{org}"))["totalCount"] == "1"
        assert_denied(c.post(f"{PATH}/{org}", json={"documentIds": ["dpa.v1"]}))
    _, outsider = server.identity_with_role(mk_org(http), "owner")
    with server.client(outsider) as c:
        assert_not_found(c.get(f"{PATH}/{org}"), org, "Group")
        assert_not_found(c.post(f"{PATH}/{org}", json={"documentIds": ["dpa.v1"]}), org, "Group")
    # Console viewers hold no terms.list.
    _, console = server.identity_with_role(org, "console_viewer")
    with server.client(console) as c:
        assert_denied(c.get(f"{PATH}/{org}"))
