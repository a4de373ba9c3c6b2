"""IAM identity providers over HTTP/JSON (reference 6.5): OIDC settings with a write-only client secret, the
default role (usable at the group, no escalation), immutable correlation rule, masks, lists and
authorization, against both storage backends.
"""

from __future__ import annotations

import secrets
from typing import Any

import httpx

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
    never_shows,
    ok,
    stored_secret,
    unique,
)

PATH = "/iam/v2/identityProviders"


def oidc(**over: Any) -> dict[str, Any]:
    secret = "s3cr3t-" + secrets.token_hex(8)
    return {"issuer": "https://idp.example.com", "clientId": "client-1", "clientSecret": secret,
            "additionalScopes": ["email", "profile"], "groupsClaim": "groups", **over}  # fmt: skip


def idp_body(role: str = VIEWER, **over: Any) -> dict[str, Any]:
    return {"name": unique("sso"), "description": "Okta", "defaultRole": role, "oidc": oidc(), **over}


# ------------------------------------------------------------------------------------------------- CRUD


def test_create_get_list_delete(server: Server, http: httpx.Client, org: str) -> None:
    body = idp_body(name="okta")
    secret = body["oidc"]["clientSecret"]
    r_create = http.post(f"{PATH}/{org}", json=body)
    idp = ok(r_create)
    assert idp["uid"].startswith(org + "/") and len(idp["uid"]) == 57
    assert (idp["name"], idp["description"], idp["defaultRole"]) == ("okta", "Okta", VIEWER)
    assert idp["oidc"] == {"issuer": "https://idp.example.com", "clientId": "client-1",
                           "additionalScopes": ["email", "profile"], "groupsClaim": "groups"}  # fmt: skip
    assert idp["createTime"] == idp["updateTime"]
    # Output only: the SCIM status (none issued yet).
    assert idp["scim"] == {"endpointUrl": idp["scim"]["endpointUrl"], "credentialState": "CREDENTIAL_STATE_NOT_ISSUED"}
    assert idp["scim"]["endpointUrl"].endswith(f"/scim/v2/{idp['uid']}")
    r_get = http.get(f"{PATH}/{idp['uid']}")
    assert ok(r_get) == idp
    r_list = http.get(PATH, params={"uidp.descendants_of": org})
    listed = ok(r_list)
    # Lists omit the SCIM status.
    assert listed["identityProviders"] == [{k: v for k, v in idp.items() if k != "scim"}]
    assert listed["totalCount"] == "1"
    never_shows([r_create, r_get, r_list], secret)
    # Stored, and given to the token exchange.
    assert stored_secret(server, idp["uid"]) == secret
    assert ok(http.delete(f"{PATH}/{idp['uid']}")) == {}
    assert_not_found(http.get(f"{PATH}/{idp['uid']}"), idp["uid"], "IdentityProvider")
    assert_not_found(http.delete(f"{PATH}/{idp['uid']}"), idp["uid"], "IdentityProvider")


def test_pkce_without_secret_and_google_issuer(http: httpx.Client, org: str) -> None:
    body = idp_body(oidc={"issuer": "accounts.google.com", "clientId": "c", "pkceEnabled": True,
                          "correlationRule": "CORRELATION_RULE_OID_EQUALS_EXTERNAL_ID"})  # fmt: skip
    idp = ok(http.post(f"{PATH}/{org}", json=body))
    assert idp["oidc"] == {"issuer": "https://accounts.google.com", "clientId": "c", "pkceEnabled": True,
                           "correlationRule": "CORRELATION_RULE_OID_EQUALS_EXTERNAL_ID"}  # fmt: skip


def test_sub_group_and_custom_default_role(http: httpx.Client, org: str) -> None:
    team = mk_group(http, org)["uid"]
    org_role = mk_role(http, org, "CAP_REPO_LIST")
    team_role = mk_role(http, team, "CAP_REPO_LIST")
    assert mk_idp(http, team, **idp_body(role=org_role))["defaultRole"] == org_role  # an ancestor's custom role
    assert mk_idp(http, team, **idp_body(role=team_role))["defaultRole"] == team_role
    # A custom role of a sub-group is not usable at its parent, nor one of another organization.
    assert_not_found(http.post(f"{PATH}/{org}", json=idp_body(role=team_role)), team_role, "Role")
    other = mk_role(http, mk_org(http), "CAP_REPO_LIST")
    assert_not_found(http.post(f"{PATH}/{org}", json=idp_body(role=other)), other, "Role")
    # The roles are in use now.
    assert_error(http.delete(f"/iam/v2/roles/{org_role}"), 400, 9)


def test_duplicate_name_and_missing_parent(http: httpx.Client, org: str) -> None:
    mk_idp(http, org, **idp_body(name="okta"))
    assert_error(http.post(f"{PATH}/{org}", json=idp_body(name="okta")), 409, 6)
    mk_idp(http, mk_group(http, org)["uid"], **idp_body(name="okta"))  # another group: fine
    missing = f"{org}/{'0' * 16}"
    assert_not_found(http.post(f"{PATH}/{missing}", json=idp_body()), missing, "Group")
    assert_not_found(http.post(f"{PATH}/{'0' * 40}", json=idp_body()), "0" * 40)
    assert_error(http.post(f"{PATH}/not-a-uid", json=idp_body()), 400, 3, field="parent")


def test_validation(http: httpx.Client, org: str) -> None:
    cases: list[tuple[dict[str, Any], str]] = [
        ({"name": ""}, "name"),
        ({"name": "Okta"}, "name"),
        ({"name": "ok\nta"}, "name"),
        ({"description": "a\tb"}, "description"),
        ({"oidc": None}, "oidc"),
        ({"oidc": oidc(issuer="")}, "oidc.issuer"),
        ({"oidc": oidc(issuer="http://idp.example.com")}, "oidc.issuer"),
        ({"oidc": oidc(issuer="not a url")}, "oidc.issuer"),
        ({"oidc": oidc(clientId="")}, "oidc.client_id"),
        ({"oidc": oidc(clientSecret="")}, "oidc.client_secret"),
        ({"oidc": oidc(additionalScopes=["a b"])}, "oidc.additional_scopes[0]"),
        ({"defaultRole": ""}, "default_role"),
        ({"defaultRole": "nope"}, "default_role"),
    ]
    for over, field in cases:
        body = {k: v for k, v in idp_body(**over).items() if v is not None}
        assert_error(http.post(f"{PATH}/{org}", json=body), 400, 3, field=field)
    assert_error(http.post(f"{PATH}/{org}", json=idp_body(oidc=oidc(correlationRule="NOPE"))), 400, 3)
    assert_not_found(http.post(f"{PATH}/{org}", json=idp_body(role="0" * 40)), "0" * 40, "Role")
    assert all_items(http, PATH, "identityProviders", **{"uidp.descendants_of": org}) == ([], 0)


# ----------------------------------------------------------------------------------------------- update


def test_update_masks(http: httpx.Client, org: str) -> None:
    idp = mk_idp(http, org, **idp_body(name="okta"))
    out = ok(http.patch(f"{PATH}/{idp['uid']}", json={"description": "new"}))
    assert (out["name"], out["description"], out["oidc"]) == ("okta", "new", idp["oidc"])
    assert out["updateTime"] > idp["updateTime"] and out["createTime"] == idp["createTime"]
    out = ok(http.patch(f"{PATH}/{idp['uid']}", params={"updateMask": "description"},
                        json={"description": "only", "name": "ignored"}))  # fmt: skip
    assert (out["name"], out["description"]) == ("okta", "only")
    # Nested: only the named OIDC field changes.
    out = ok(http.patch(f"{PATH}/{idp['uid']}", json={"oidc": {"clientId": "client-2"}}))
    assert out["oidc"] == {**idp["oidc"], "clientId": "client-2"}
    out = ok(http.patch(f"{PATH}/{idp['uid']}", params={"updateMask": "oidc.groups_claim"}, json={}))
    assert "groupsClaim" not in out["oidc"]
    assert ok(http.get(f"{PATH}/{idp['uid']}")) == out
    # Output-only and unknown fields.
    same = ok(http.patch(f"{PATH}/{idp['uid']}", json={"uid": "x", "createTime": "2020-01-01T00:00:00Z"}))
    assert same == out
    assert_error(http.patch(f"{PATH}/{idp['uid']}", params={"updateMask": "colour"}, json={}), 400, 3,
                 field="update_mask")  # fmt: skip
    assert_error(http.patch(f"{PATH}/{idp['uid']}", json={"name": "Bad"}), 400, 3, field="name")
    assert_not_found(http.patch(f"{PATH}/{org}/{'0' * 16}", json={"description": "x"}), f"{org}/{'0' * 16}")


def test_client_secret_is_write_only(server: Server, http: httpx.Client, org: str) -> None:
    body = idp_body()
    first = body["oidc"]["clientSecret"]
    idp = ok(http.post(f"{PATH}/{org}", json=body))
    uid = idp["uid"]
    responses = []
    # An empty or absent secret keeps the stored one, whatever else changes (mask inferred from the body).
    for patch in ({"oidc": {"clientSecret": ""}}, {"oidc": {"clientId": "c2"}}, {"description": "d"}):
        responses.append(http.patch(f"{PATH}/{uid}", json=patch))
        ok(responses[-1])
        assert stored_secret(server, uid) == first, patch
    # Replacing the whole configuration without a secret keeps it too.
    responses.append(http.patch(f"{PATH}/{uid}", params={"updateMask": "oidc"},
                                json={"oidc": {"issuer": "https://idp.example.com", "clientId": "c3"}}))  # fmt: skip
    assert ok(responses[-1])["oidc"] == {"issuer": "https://idp.example.com", "clientId": "c3"}
    assert stored_secret(server, uid) == first
    responses.append(http.patch(f"{PATH}/{uid}", params={"updateMask": "*"}, json=idp_body(name=idp["name"])))
    ok(responses[-1])
    second = "rotated-" + secrets.token_hex(8)
    responses.append(http.patch(f"{PATH}/{uid}", json={"oidc": {"clientSecret": second}}))
    ok(responses[-1])
    assert stored_secret(server, uid) == second
    # Only an explicit mask naming the secret clears it, and then PKCE must be on.
    r = http.patch(f"{PATH}/{uid}", params={"updateMask": "oidc.client_secret"}, json={})
    assert_error(r, 400, 3, field="oidc.client_secret")
    assert stored_secret(server, uid) == second
    responses.append(http.patch(f"{PATH}/{uid}", json={"oidc": {"pkceEnabled": True}}))
    ok(responses[-1])
    responses.append(http.patch(f"{PATH}/{uid}", params={"updateMask": "oidc.clientSecret"}, json={}))
    assert ok(responses[-1])["oidc"]["pkceEnabled"] is True
    assert stored_secret(server, uid) == ""
    responses += [http.get(f"{PATH}/{uid}"), http.get(PATH, params={"uidp.children_of": org})]
    never_shows(responses, first, second)


def test_correlation_rule_is_immutable(http: httpx.Client, org: str) -> None:
    rule = "CORRELATION_RULE_OID_EQUALS_EXTERNAL_ID"
    idp = mk_idp(http, org, **idp_body(oidc=oidc(correlationRule=rule)))
    uid = idp["uid"]
    # Restating it is a no-op; leaving it out of a replaced configuration keeps it.
    assert ok(http.patch(f"{PATH}/{uid}", json={"oidc": {"correlationRule": rule}})) == idp
    replaced = {"oidc": {"issuer": "https://idp.example.com", "clientId": "c", "pkceEnabled": True}}
    out = ok(http.patch(f"{PATH}/{uid}", params={"updateMask": "oidc"}, json=replaced))
    assert out["oidc"]["correlationRule"] == rule
    for other in ("CORRELATION_RULE_SUB_EQUALS_EXTERNAL_ID", "CORRELATION_RULE_UNSPECIFIED"):
        r = http.patch(f"{PATH}/{uid}", json={"oidc": {"correlationRule": other}})
        if other.endswith("UNSPECIFIED"):
            assert ok(r)["oidc"]["correlationRule"] == rule
        else:
            assert_error(r, 400, 3, field="oidc.correlation_rule")
    # Unspecified is the same rule as SUB_EQUALS_EXTERNAL_ID.
    plain = mk_idp(http, org, **idp_body())
    out = ok(http.patch(f"{PATH}/{plain['uid']}",
                        json={"oidc": {"correlationRule": "CORRELATION_RULE_SUB_EQUALS_EXTERNAL_ID"}}))  # fmt: skip
    assert "correlationRule" not in out["oidc"]


def test_update_default_role(server: Server, http: httpx.Client, org: str) -> None:
    idp = mk_idp(http, org, **idp_body())
    out = ok(http.patch(f"{PATH}/{idp['uid']}", json={"defaultRole": EDITOR}))
    assert out["defaultRole"] == EDITOR
    assert_not_found(http.patch(f"{PATH}/{idp['uid']}", json={"defaultRole": "0" * 40}), "0" * 40, "Role")
    # A caller allowed to update providers cannot promise more than it holds.
    limited = mk_role(http, org, "CAP_IAM_IDENTITY_PROVIDERS_UPDATE", "CAP_IAM_ROLE_BINDINGS_CREATE",
                      "CAP_IAM_IDENTITY_PROVIDERS_LIST", "CAP_REPO_LIST", "CAP_IAM_GROUPS_LIST")  # fmt: skip
    _, token = server.identity_with_role(org, limited)
    with server.client(token) as c:
        assert ok(c.patch(f"{PATH}/{idp['uid']}", json={"description": "by limited"}))["defaultRole"] == EDITOR
        assert_denied(c.patch(f"{PATH}/{idp['uid']}", json={"defaultRole": OWNER}))
    assert ok(http.get(f"{PATH}/{idp['uid']}"))["defaultRole"] == EDITOR


# ------------------------------------------------------------------------------------------------ lists


def test_list_filters_paging_order(http: httpx.Client, org: str) -> None:
    team = mk_group(http, org)["uid"]
    made = [mk_idp(http, org, **idp_body(name=n)) for n in ("b-idp", "a-idp")]
    made.append(mk_idp(http, team, **idp_body(name="c-idp")))
    scope = {"uidp.descendants_of": org}
    items, total = all_items(http, PATH, "identityProviders", **scope, page_size=2)
    assert total == 3 and sorted(i["uid"] for i in items) == sorted(m["uid"] for m in made)
    first = ok(http.get(PATH, params={**scope, "page_size": 2, "order_by": "name"}))
    assert [i["name"] for i in first["identityProviders"]] == ["a-idp", "b-idp"] and first["nextPageToken"]
    assert first["totalCount"] == "3"
    rest = ok(
        http.get(PATH, params={**scope, "page_size": 2, "order_by": "name", "page_token": first["nextPageToken"]})
    )
    assert [i["name"] for i in rest["identityProviders"]] == ["c-idp"] and "nextPageToken" not in rest
    desc = ok(http.get(PATH, params={**scope, "order_by": "name desc", "skip": 1}))
    assert [i["name"] for i in desc["identityProviders"]] == ["b-idp", "a-idp"] and desc["skipped"] == 1
    named = ok(http.get(PATH, params={**scope, "name": "c-idp"}))
    assert [i["uid"] for i in named["identityProviders"]] == [made[2]["uid"]] and named["totalCount"] == "1"
    children = ok(http.get(PATH, params={"uidp.children_of": team}))
    assert [i["name"] for i in children["identityProviders"]] == ["c-idp"]
    assert_error(http.get(PATH, params={"order_by": "colour"}), 400, 3, field="order_by")


def test_group_with_provider_cannot_be_deleted(http: httpx.Client, org: str) -> None:
    team = mk_group(http, org)["uid"]
    idp = mk_idp(http, team, **idp_body())
    assert_error(http.delete(f"/iam/v2/groups/{team}"), 400, 9)
    ok(http.delete(f"{PATH}/{idp['uid']}"))
    ok(http.delete(f"/iam/v2/groups/{team}"))


# -------------------------------------------------------------------------------------------- authorization


def test_viewer_reads_but_cannot_write(server: Server, http: httpx.Client, org: str) -> None:
    idp = mk_idp(http, org, **idp_body())
    _, token = server.identity_with_role(org, "viewer")
    with server.client(token) as c:
        assert ok(c.get(f"{PATH}/{idp['uid']}")) == idp
        listed = ok(c.get(PATH))
        assert [i["uid"] for i in listed["identityProviders"]] == [idp["uid"]] and listed["totalCount"] == "1"
        assert_denied(c.post(f"{PATH}/{org}", json=idp_body()))
        assert_denied(c.patch(f"{PATH}/{idp['uid']}", json={"description": "x"}))
        assert_denied(c.delete(f"{PATH}/{idp['uid']}"))


def test_other_organization_sees_nothing(server: Server, http: httpx.Client, org: str) -> None:
    idp = mk_idp(http, org, **idp_body())
    other = mk_org(http)
    mk_idp(http, other, **idp_body())
    _, token = server.identity_with_role(other, "owner")
    with server.client(token) as c:
        assert_not_found(c.get(f"{PATH}/{idp['uid']}"), idp["uid"], "IdentityProvider")
        assert_not_found(c.delete(f"{PATH}/{idp['uid']}"), idp["uid"], "IdentityProvider")
        assert_not_found(c.patch(f"{PATH}/{idp['uid']}", json={"description": "x"}), idp["uid"])
        assert_not_found(c.post(f"{PATH}/{org}", json=idp_body()), org, "Group")
        assert ok(c.get(PATH, params={"uidp.descendants_of": org})) == {"totalCount": "0", "skipped": 0}
        assert ok(c.get(PATH))["totalCount"] == "1"


def test_no_escalation_through_default_role(server: Server, http: httpx.Client, org: str) -> None:
    # Can manage providers and bind roles, but holds only a few capabilities itself.
    limited = mk_role(http, org, "CAP_IAM_IDENTITY_PROVIDERS_CREATE", "CAP_IAM_IDENTITY_PROVIDERS_LIST",
                      "CAP_IAM_ROLE_BINDINGS_CREATE", "CAP_REPO_LIST")  # fmt: skip
    small = mk_role(http, org, "CAP_REPO_LIST")
    _, token = server.identity_with_role(org, limited)
    with server.client(token) as c:
        for role in (OWNER, EDITOR, VIEWER):
            assert_denied(c.post(f"{PATH}/{org}", json=idp_body(role=role)))
        assert ok(c.post(f"{PATH}/{org}", json=idp_body(role=small)))["defaultRole"] == small
        assert ok(c.post(f"{PATH}/{org}", json=idp_body(role=limited)))["defaultRole"] == limited
    _, editor = server.identity_with_role(org, "editor")
    with server.client(editor) as c:
        assert_denied(c.post(f"{PATH}/{org}", json=idp_body(role=VIEWER)))


def test_unauthenticated(anon: httpx.Client, org: str) -> None:
    assert_error(anon.get(PATH), 401, 16)
    assert_error(anon.post(f"{PATH}/{org}", json=idp_body()), 401, 16)
