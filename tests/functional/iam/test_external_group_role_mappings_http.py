"""IAM external group -> role mappings over HTTP/JSON (reference 6.8): under an identity provider, scoped to
its group or below, unique, no escalation, batch delete, gone with their provider; and the grants the
token exchange reads from them.
"""

from __future__ import annotations

from typing import Any

import httpx

from platform_api.iam import external_group_role_mappings as mappings
from tests.helpers import (
    EDITOR,
    OWNER,
    VIEWER,
    Server,
    all_items,
    assert_denied,
    assert_error,
    assert_not_found,
    mk_group,
    mk_idp,
    mk_org,
    mk_role,
    ok,
    run_db,
)

PATH = "/iam/v2/externalGroupRoleMappings"


def mapping(group: str, role: str = VIEWER, scope: str = "") -> dict[str, Any]:
    return {"externalGroupId": group, "roleUid": role, "scope": scope}


def mk_mapping(http: httpx.Client, idp: str, group: str, role: str = VIEWER, scope: str = "") -> dict[str, Any]:
    return ok(http.post(f"{PATH}/{idp}", json=mapping(group, role, scope or idp.rsplit("/", 1)[0])))


def test_create_get_list_delete(http: httpx.Client, org: str) -> None:
    idp = mk_idp(http, org)["uid"]
    m = mk_mapping(http, idp, "Engineering", EDITOR)
    assert m["uid"].startswith(idp + "/") and len(m["uid"]) == len(idp) + 17
    assert (m["identityProviderUid"], m["externalGroupId"], m["roleUid"], m["scope"]) == (
        idp,
        "Engineering",
        EDITOR,
        org,
    )
    assert m["createTime"] == m["updateTime"]
    assert ok(http.get(f"{PATH}/{m['uid']}")) == m
    listed = ok(http.get(PATH, params={"uidp.descendants_of": org}))
    assert listed["externalGroupRoleMappings"] == [m] and listed["totalCount"] == "1"
    assert ok(http.delete(f"{PATH}/{m['uid']}")) == {}
    assert_not_found(http.get(f"{PATH}/{m['uid']}"), m["uid"], "ExternalGroupRoleMapping")
    assert_not_found(http.delete(f"{PATH}/{m['uid']}"), m["uid"], "ExternalGroupRoleMapping")


def test_scope_is_the_provider_group_or_below(http: httpx.Client, org: str) -> None:
    team = mk_group(http, org)["uid"]
    sub = mk_group(http, team)["uid"]
    idp = mk_idp(http, team)["uid"]
    assert mk_mapping(http, idp, "g", scope=team)["scope"] == team
    assert mk_mapping(http, idp, "g", scope=sub)["scope"] == sub
    assert_error(http.post(f"{PATH}/{idp}", json=mapping("g", scope=org)), 400, 3, field="scope")
    assert_error(http.post(f"{PATH}/{idp}", json=mapping("g", scope=mk_group(http, org)["uid"])), 400, 3, field="scope")
    missing = f"{team}/{'0' * 16}"
    assert_not_found(http.post(f"{PATH}/{idp}", json=mapping("g", scope=missing)), missing, "Group")
    # A custom role must be usable at the scope.
    sub_role = mk_role(http, sub, "CAP_REPO_LIST")
    assert_not_found(http.post(f"{PATH}/{idp}", json=mapping("g", sub_role, team)), sub_role, "Role")
    assert mk_mapping(http, idp, "g", sub_role, sub)["roleUid"] == sub_role


def test_unique_and_validation(http: httpx.Client, org: str) -> None:
    idp = mk_idp(http, org)["uid"]
    mk_mapping(http, idp, "Admins", OWNER)
    assert_error(http.post(f"{PATH}/{idp}", json=mapping("Admins", OWNER, org)), 409, 6)
    mk_mapping(http, idp, "Admins", EDITOR)  # another role: a different mapping
    mk_mapping(http, idp, "admins", OWNER)  # external ids are exact
    for body, field in [
        (mapping("", OWNER, org), "external_group_id"),
        (mapping("a\nb", OWNER, org), "external_group_id"),
        (mapping("g", "", org), "role_uid"),
        (mapping("g", "nope", org), "role_uid"),
        (mapping("g", OWNER, ""), "scope"),
        (mapping("g", OWNER, "nope"), "scope"),
    ]:
        assert_error(http.post(f"{PATH}/{idp}", json=body), 400, 3, field=field)
    assert_not_found(http.post(f"{PATH}/{idp}", json=mapping("g", "0" * 40, org)), "0" * 40, "Role")
    missing = f"{org}/{'0' * 16}"
    assert_not_found(http.post(f"{PATH}/{missing}", json=mapping("g", OWNER, org)), missing, "IdentityProvider")


def test_list_filters_and_paging(http: httpx.Client, org: str) -> None:
    a, b = mk_idp(http, org)["uid"], mk_idp(http, mk_group(http, org)["uid"])["uid"]
    made_a = [mk_mapping(http, a, f"group-{i}") for i in range(3)]
    made_b = [mk_mapping(http, b, "group-x")]
    items, total = all_items(http, PATH, "externalGroupRoleMappings", identity_provider_uid=a, page_size=2)
    assert total == 3 and sorted(i["uid"] for i in items) == sorted(m["uid"] for m in made_a)
    page = ok(http.get(PATH, params={"identityProviderUid": a, "page_size": 2, "order_by": "external_group_id desc"}))
    assert [i["externalGroupId"] for i in page["externalGroupRoleMappings"]] == ["group-2", "group-1"]
    assert page["nextPageToken"] and page["totalCount"] == "3"
    children = ok(http.get(PATH, params={"uidp.children_of": b}))
    assert children["externalGroupRoleMappings"] == made_b
    assert ok(http.get(PATH, params={"uidp.descendants_of": org}))["totalCount"] == "4"


def test_batch_delete(http: httpx.Client, org: str) -> None:
    idp, other = mk_idp(http, org)["uid"], mk_idp(http, org)["uid"]
    ms = [mk_mapping(http, idp, f"g{i}") for i in range(3)]
    foreign = mk_mapping(http, other, "g")
    gone = f"{idp}/{'0' * 16}"
    url = f"{PATH}:batchDelete"
    assert_error(http.post(url, json={"parent": idp, "names": [ms[0]["uid"], foreign["uid"]]}), 400, 3,
                 field="names[1]")  # fmt: skip
    assert_error(http.post(url, json={"parent": idp, "names": []}), 400, 3, field="names")
    assert_error(http.post(url, json={"parent": idp, "names": ["bad"]}), 400, 3, field="names[0]")
    assert len(all_items(http, PATH, "externalGroupRoleMappings", identity_provider_uid=idp)[0]) == 3
    out = ok(http.post(url, json={"parent": idp, "names": [ms[1]["uid"], gone, ms[0]["uid"]]}))
    assert out == {"parent": idp, "externalGroupRoleMappings": [ms[1], ms[0]]}
    assert [i["uid"] for i in all_items(http, PATH, "externalGroupRoleMappings", identity_provider_uid=idp)[0]] == [
        ms[2]["uid"]
    ]
    assert ok(http.post(url, json={"parent": idp, "names": [ms[1]["uid"]]})) == {"parent": idp}
    assert ok(http.get(f"{PATH}/{foreign['uid']}")) == foreign


def test_deleted_with_provider_and_protect_roles(server: Server, http: httpx.Client, org: str) -> None:
    idp = mk_idp(http, org)["uid"]
    role = mk_role(http, org, "CAP_REPO_LIST")
    m = mk_mapping(http, idp, "g", role)
    assert_error(http.delete(f"/iam/v2/roles/{role}"), 400, 9)
    ok(http.delete(f"/iam/v2/identityProviders/{idp}"))
    assert_not_found(http.get(f"{PATH}/{m['uid']}"), m["uid"])
    ok(http.delete(f"/iam/v2/roles/{role}"))


def test_deleted_with_their_scope_group(http: httpx.Client, org: str) -> None:
    idp = mk_idp(http, org)["uid"]
    team = mk_group(http, org)["uid"]
    m = mk_mapping(http, idp, "g", scope=team)
    ok(http.delete(f"/iam/v2/groups/{team}"))
    assert_not_found(http.get(f"{PATH}/{m['uid']}"), m["uid"])


def test_grants_for_login(server: Server, http: httpx.Client, org: str) -> None:
    idp = mk_idp(http, org)["uid"]
    team = mk_group(http, org)["uid"]
    mk_mapping(http, idp, "Admins", OWNER)
    mk_mapping(http, idp, "Devs", EDITOR, team)
    mk_mapping(http, idp, "Devs", VIEWER)
    mk_mapping(http, mk_idp(http, org)["uid"], "Devs", OWNER)  # another provider's mapping

    async def go(database: Any) -> tuple[Any, ...]:
        return (
            await mappings.grants_for(database, idp, ["Devs", "Unknown"]),
            await mappings.grants_for(database, idp, ["Admins", "Devs"]),
            await mappings.grants_for(database, idp, []),
        )

    devs, both, none = run_db(server, go)
    assert devs == sorted([(team, EDITOR), (org, VIEWER)])
    assert both == sorted([(org, OWNER), (team, EDITOR), (org, VIEWER)])
    assert none == []


# -------------------------------------------------------------------------------------------- authorization


def test_viewer_reads_but_cannot_write(server: Server, http: httpx.Client, org: str) -> None:
    idp = mk_idp(http, org)["uid"]
    m = mk_mapping(http, idp, "g")
    _, token = server.identity_with_role(org, "viewer")
    with server.client(token) as c:
        assert ok(c.get(f"{PATH}/{m['uid']}")) == m
        assert ok(c.get(PATH))["externalGroupRoleMappings"] == [m]
        assert_denied(c.post(f"{PATH}/{idp}", json=mapping("h", VIEWER, org)))
        assert_denied(c.delete(f"{PATH}/{m['uid']}"))
        assert_denied(c.post(f"{PATH}:batchDelete", json={"parent": idp, "names": [m["uid"]]}))


def test_other_organization_sees_nothing(server: Server, http: httpx.Client, org: str) -> None:
    idp = mk_idp(http, org)["uid"]
    m = mk_mapping(http, idp, "g")
    _, token = server.identity_with_role(mk_org(http), "owner")
    with server.client(token) as c:
        assert_not_found(c.get(f"{PATH}/{m['uid']}"), m["uid"], "ExternalGroupRoleMapping")
        assert ok(c.get(PATH)) == {"totalCount": "0", "skipped": 0}
        assert ok(c.get(PATH, params={"identityProviderUid": idp})) == {"totalCount": "0", "skipped": 0}
        assert_not_found(c.post(f"{PATH}/{idp}", json=mapping("h", VIEWER, org)), idp, "IdentityProvider")
        assert_not_found(c.post(f"{PATH}:batchDelete", json={"parent": idp, "names": [m["uid"]]}), idp)


def test_no_escalation(server: Server, http: httpx.Client, org: str) -> None:
    team = mk_group(http, org)["uid"]
    idp = mk_idp(http, org)["uid"]
    limited = mk_role(http, org, "CAP_IAM_IDENTITY_PROVIDERS_CREATE", "CAP_IAM_IDENTITY_PROVIDERS_LIST",
                      "CAP_IAM_ROLE_BINDINGS_CREATE", "CAP_REPO_LIST")  # fmt: skip
    small = mk_role(http, org, "CAP_REPO_LIST")
    _, token = server.identity_with_role(org, limited)
    with server.client(token) as c:
        for role in (OWNER, EDITOR, VIEWER):
            assert_denied(c.post(f"{PATH}/{idp}", json=mapping("g", role, org)))
        assert ok(c.post(f"{PATH}/{idp}", json=mapping("g", small, org)))["roleUid"] == small
    # Holding owner only on a sub-group allows mapping there, not at the provider's group.
    _, team_owner = server.identity_with_role(team, "owner", home=org)
    with server.client(team_owner) as c:
        assert_not_found(c.post(f"{PATH}/{idp}", json=mapping("g", OWNER, team)), idp)
    _, editor = server.identity_with_role(org, "editor")
    with server.client(editor) as c:
        assert_denied(c.post(f"{PATH}/{idp}", json=mapping("g", VIEWER, org)))
