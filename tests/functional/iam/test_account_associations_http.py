"""IAM account associations over HTTP/JSON (reference 6.6): one per group (uid = the group's uid), provider
blocks and their validation, masks, idempotent delete, lists and authorization, on both backends.
"""

from __future__ import annotations

from typing import Any

import httpx

from tests.helpers import Server, all_items, assert_denied, assert_error, assert_not_found, mk_group, mk_org, ok

PATH = "/iam/v2/accountAssociations"
GITHUB = {"appInstallations": {"123456": {"installations": [{"installationId": "987654321", "name": "acme"}]}}}


def assoc(**over: Any) -> dict[str, Any]:
    return {"name": "cloud", "description": "Cloud accounts", "amazon": {"account": "123456789012"},
            "google": {"projectId": "acme-prod", "projectNumber": "1234567890"},
            "azure": {"tenantId": "8f1b-tenant", "clientIds": {"registry": "client-a"}}, **over}  # fmt: skip


def test_create_get_list_delete(http: httpx.Client, org: str) -> None:
    a = ok(http.post(f"{PATH}/{org}", json=assoc(github=GITHUB)))
    assert a["uid"] == org
    assert (a["name"], a["description"]) == ("cloud", "Cloud accounts")
    assert a["amazon"] == {"account": "123456789012"}
    assert a["google"] == {"projectId": "acme-prod", "projectNumber": "1234567890"}
    assert a["azure"] == {"tenantId": "8f1b-tenant", "clientIds": {"registry": "client-a"}}
    assert a["github"] == GITHUB
    assert a["createTime"] == a["updateTime"]
    assert ok(http.get(f"{PATH}/{org}")) == a
    listed = ok(http.get(PATH, params={"uidp.ids": org}))
    assert listed["accountAssociations"] == [a] and listed["totalCount"] == "1"
    # One per group.
    assert_error(http.post(f"{PATH}/{org}", json=assoc()), 409, 6)
    assert ok(http.delete(f"{PATH}/{org}")) == {}
    assert_not_found(http.get(f"{PATH}/{org}"), org, "AccountAssociation")
    # Idempotent delete.
    assert ok(http.delete(f"{PATH}/{org}")) == {}
    again = ok(http.post(f"{PATH}/{org}", json={"name": "minimal"}))
    assert sorted(again) == ["createTime", "name", "uid", "updateTime"] and again["uid"] == org


def test_validation(http: httpx.Client, org: str) -> None:
    for over, field in [
        ({"name": ""}, "name"),
        ({"name": "Cloud"}, "name"),
        ({"description": "a\nb"}, "description"),
        ({"amazon": {"account": "12345"}}, "amazon.account"),
        ({"amazon": {"account": "12345678901a"}}, "amazon.account"),
        ({"amazon": {}}, "amazon.account"),
        ({"google": {"projectNumber": "1"}}, "google.project_id"),
        ({"google": {"projectId": "p"}}, "google.project_number"),
        ({"azure": {"clientIds": {"a": "b"}}}, "azure.tenant_id"),
        ({"azure": {"tenantId": "t"}}, "azure.client_ids"),
        ({"azure": {"tenantId": "t", "clientIds": {"a": ""}}}, "azure.client_ids[a]"),
        ({"github": {"appInstallations": {"abc": {}}}}, "github.app_installations"),
        ({"github": {"appInstallations": {"99999999999999999999": {}}}}, "github.app_installations"),
    ]:
        assert_error(http.post(f"{PATH}/{org}", json=assoc(**over)), 400, 3, field=field)
    assert_error(http.post(f"{PATH}/{org}", json=assoc(github={"appInstallations": {"1": {"installations": [
        {"installationId": "x"}]}}})), 400, 3)  # fmt: skip
    missing = f"{org}/{'0' * 16}"
    assert_not_found(http.post(f"{PATH}/{missing}", json=assoc()), missing, "Group")
    assert_error(http.get(f"{PATH}/nope"), 400, 3, field="uid")
    assert_error(http.post(f"{PATH}/{org}:checkAccountAssociation", json={}), 400, 3, field="provider_type")


def test_update_masks(http: httpx.Client, org: str) -> None:
    a = ok(http.post(f"{PATH}/{org}", json=assoc()))
    out = ok(http.patch(f"{PATH}/{org}", json={"description": "new", "amazon": {"account": "210987654321"}}))
    assert (out["description"], out["amazon"], out["google"]) == ("new", {"account": "210987654321"}, a["google"])
    assert out["updateTime"] > a["updateTime"] and out["createTime"] == a["createTime"]
    out = ok(http.patch(f"{PATH}/{org}", params={"updateMask": "description"}, json={"description": "d", "name": "x"}))
    assert (out["name"], out["description"]) == ("cloud", "d")
    # Clearing a provider block through the mask.
    out = ok(http.patch(f"{PATH}/{org}", params={"updateMask": "azure"}, json={}))
    assert "azure" not in out and out["google"] == a["google"]
    out = ok(http.patch(f"{PATH}/{org}", json={"github": GITHUB}))
    assert out["github"] == GITHUB and ok(http.get(f"{PATH}/{org}")) == out
    assert_error(http.patch(f"{PATH}/{org}", json={"amazon": {"account": "1"}}), 400, 3, field="amazon.account")
    assert_error(http.patch(f"{PATH}/{org}", params={"updateMask": "nope"}, json={}), 400, 3, field="update_mask")
    team = mk_group(http, org)["uid"]
    assert_not_found(http.patch(f"{PATH}/{team}", json={"description": "x"}), team, "AccountAssociation")


def test_list_paging_order_and_filters(http: httpx.Client, org: str) -> None:
    team = mk_group(http, org)["uid"]
    sub = mk_group(http, team)["uid"]
    for g, name in ((org, "c"), (team, "a"), (sub, "b")):
        ok(http.post(f"{PATH}/{g}", json=assoc(name=name)))
    items, total = all_items(http, PATH, "accountAssociations", **{"uidp.descendants_of": org, "page_size": 1})
    # Strict descendants of the organization: the sub-groups' associations, in group (uid) order.
    assert total == 2 and [i["uid"] for i in items] == sorted([team, sub])
    page = ok(http.get(PATH, params={"uidp.descendants_of": org, "order_by": "name desc"}))
    assert [i["name"] for i in page["accountAssociations"]] == ["b", "a"]
    assert ok(http.get(PATH, params={"uidp.children_of": team}))["accountAssociations"][0]["uid"] == sub
    assert ok(http.get(PATH, params={"name": "c"}))["accountAssociations"][0]["uid"] == org
    assert ok(http.get(PATH, params={"order_by": "group desc", "uidp.descendants_of": org}))["accountAssociations"][0][
        "uid"
    ] == max(team, sub)


def test_deleted_with_their_group(http: httpx.Client, org: str) -> None:
    team = mk_group(http, org)["uid"]
    ok(http.post(f"{PATH}/{team}", json=assoc()))
    ok(http.delete(f"/iam/v2/groups/{team}"))
    assert ok(http.get(PATH, params={"uidp.descendants_of": org})) == {"totalCount": "0", "skipped": 0}


def test_viewer_reads_but_cannot_write(server: Server, http: httpx.Client, org: str) -> None:
    a = ok(http.post(f"{PATH}/{org}", json=assoc()))
    _, token = server.identity_with_role(org, "viewer")
    with server.client(token) as c:
        assert ok(c.get(f"{PATH}/{org}")) == a
        assert ok(c.get(PATH))["accountAssociations"] == [a]
        assert_denied(c.patch(f"{PATH}/{org}", json={"description": "x"}))
        assert_denied(c.delete(f"{PATH}/{org}"))
        assert_denied(c.post(f"{PATH}/{mk_group(http, org)['uid']}", json=assoc()))


def test_other_organization_sees_nothing(server: Server, http: httpx.Client, org: str) -> None:
    ok(http.post(f"{PATH}/{org}", json=assoc()))
    other = mk_org(http)
    ok(http.post(f"{PATH}/{other}", json=assoc()))
    _, token = server.identity_with_role(other, "owner")
    with server.client(token) as c:
        assert_not_found(c.get(f"{PATH}/{org}"), org, "AccountAssociation")
        assert_not_found(c.delete(f"{PATH}/{org}"), org, "AccountAssociation")
        listed = ok(c.get(PATH))
        assert [i["uid"] for i in listed["accountAssociations"]] == [other] and listed["totalCount"] == "1"
        assert ok(c.get(PATH, params={"uidp.ids": org})) == {"totalCount": "0", "skipped": 0}
