"""v1 IdentityProviders (`/iam/v1/identityProviders`, chainguard.platform.iam.IdentityProviders) over the v2
implementation: the same providers both ways, the client secret never answered and kept by a PUT that does
not restate it, SCIM tokens answered once, the same authorization; over HTTP and over gRPC."""

from __future__ import annotations

from typing import Any

import grpc
import httpx
import pytest

from platform_api.gen.chainguard.platform.common import uidp_pb2
from platform_api.gen.chainguard.platform.iam.v1 import identity_providers_pb2 as pb
from platform_api.gen.chainguard.platform.iam.v1 import identity_providers_pb2_grpc as pb_grpc
from tests.helpers import EDITOR, VIEWER, Server, assert_error, mk_group, mk_idp, never_shows, ok, stored_secret, unique

PATH = "/iam/v1/identityProviders"
V2 = "/iam/v2/identityProviders"
OIDC = {"issuer": "https://idp.example.com", "clientId": "c1", "groupsClaim": "groups"}


def v1_list(http: httpx.Client, **params: Any) -> list[dict[str, Any]]:
    body = ok(http.get(PATH, params=params))
    assert set(body) <= {"items"}
    return list(body.get("items", []))


def test_created_over_v1_is_the_v2_provider_and_back(server: Server, http: httpx.Client, org: str) -> None:
    secret = unique("s3cret")
    body = {"name": unique("sso"), "description": "d", "defaultRole": VIEWER, "oidc": {**OIDC, "clientSecret": secret}}
    r = http.post(f"{PATH}/{org}", json=body)
    made = ok(r)
    assert made["id"].startswith(org + "/") and not {"uid", "createTime", "updateTime"} & set(made)
    assert made["oidc"] == OIDC and made["scim"]["credentialState"] == "CREDENTIAL_STATE_NOT_ISSUED"
    seen = ok(http.get(f"{V2}/{made['id']}"))
    assert (seen["uid"], seen["name"], seen["description"], seen["defaultRole"]) == (
        made["id"], made["name"], "d", VIEWER,
    )  # fmt: skip
    assert seen["oidc"] == made["oidc"] and seen["scim"]["endpointUrl"] == made["scim"]["endpointUrl"]
    two = mk_idp(http, org)
    listed = v1_list(http, **{"uidp.childrenOf": org})
    assert sorted(i["id"] for i in listed) == sorted([made["id"], two["uid"]])
    assert {i["id"]: i["oidc"] for i in listed}[two["uid"]] == two["oidc"]
    assert [i["id"] for i in v1_list(http, id=two["uid"])] == [two["uid"]]
    assert [i["id"] for i in v1_list(http, name=made["name"], **{"uidp.childrenOf": org})] == [made["id"]]
    assert ok(http.get(PATH, params={"id": org + "/" + "0" * 16})) == {}
    # The secret is stored and never answered.
    assert stored_secret(server, made["id"]) == secret
    never_shows([r, http.get(PATH, params={"id": made["id"]}), http.get(f"{V2}/{made['id']}")], secret)


def test_put_replaces_keeps_the_secret_and_delete(server: Server, http: httpx.Client, org: str) -> None:
    idp = mk_idp(http, org, description="was", oidc={**OIDC, "clientSecret": "keep-me"})
    put = {"id": idp["uid"], "name": "renamed", "defaultRole": EDITOR,
           "oidc": {"issuer": "https://idp.example.com", "clientId": "c2"}}  # fmt: skip
    r = http.put(f"{PATH}/{idp['uid']}", json=put)
    done = ok(r)
    assert (done["name"], done["defaultRole"], done["oidc"]) == ("renamed", EDITOR, put["oidc"])
    assert "description" not in done  # not sent: cleared
    v2 = ok(http.get(f"{V2}/{idp['uid']}"))
    assert "description" not in v2 and v2["oidc"] == put["oidc"] and v2["defaultRole"] == EDITOR
    assert stored_secret(server, idp["uid"]) == "keep-me"  # the v1 client never read it: not cleared
    never_shows([r], "keep-me")
    assert ok(http.delete(f"{PATH}/{idp['uid']}")) == {}
    assert http.get(f"{V2}/{idp['uid']}").status_code == 404
    assert_error(http.delete(f"{PATH}/{idp['uid']}"), 404, 5)
    assert_error(http.put(f"{PATH}/{idp['uid']}", json=put), 404, 5)


def test_scim_tokens_answered_once(http: httpx.Client, org: str) -> None:
    idp = mk_idp(http, org)["uid"]
    gen = ok(http.post(f"{PATH}/{idp}:generateScimToken", json={}))
    assert gen["identityProviderId"] == idp and gen["token"] and gen["etag"] and gen["endpointUrl"].endswith(idp)
    assert "identityProviderUid" not in gen
    scim = ok(http.get(f"{V2}/{idp}"))["scim"]
    assert (scim["etag"], scim["credentialState"]) == (gen["etag"], "CREDENTIAL_STATE_LIVE")
    again = ok(http.post(f"{PATH}/{idp}:regenerateScimToken", json={"etag": gen["etag"], "overlap": "60s"}))
    assert again["identityProviderId"] == idp and again["token"] not in ("", gen["token"])
    assert again["requestedOverlap"] == "60s" and again["previousTokenExpireTime"]
    assert_error(http.post(f"{PATH}/{idp}:regenerateScimToken", json={"etag": gen["etag"]}), 409, 10)
    off = ok(http.post(f"{PATH}/{idp}:setScimEnabled", json={"enabled": False, "etag": again["etag"]}))
    assert off == {"identityProviderId": idp, "etag": again["etag"]}
    revoked = ok(http.post(f"{PATH}/{idp}:revokeScimToken", json={}))
    assert revoked["identityProviderId"] == idp and revoked["revokeTime"] and revoked["etag"] != again["etag"]
    assert ok(http.get(f"{V2}/{idp}"))["scim"]["credentialState"] == "CREDENTIAL_STATE_REVOKED"
    reads = [http.get(PATH, params={"id": idp}), http.get(f"{V2}/{idp}"), http.get(V2, params={"uidp.childrenOf": org})]
    never_shows(reads, gen["token"], again["token"])
    assert_error(http.post(f"{PATH}/{org}/{'0' * 16}:revokeScimToken", json={}), 404, 5)


def test_authorization_is_the_v2_one(server: Server, http: httpx.Client, org: str) -> None:
    sub = mk_group(http, org, unique("sub"))["uid"]
    mine, other = mk_idp(http, sub)["uid"], mk_idp(http, org)["uid"]
    _, token = server.identity_with_role(sub, "viewer", home=org)
    with server.client(token) as viewer:
        assert [i["id"] for i in v1_list(viewer, **{"uidp.descendantsOf": org})] == [mine]
        assert v1_list(viewer, id=other) == []
        assert viewer.post(f"{PATH}/{sub}", json={"name": "x", "defaultRole": VIEWER, "oidc": OIDC}).status_code == 403
        assert viewer.put(f"{PATH}/{mine}", json={"name": "x"}).status_code == 403
        assert viewer.delete(f"{PATH}/{mine}").status_code == 403
        assert viewer.post(f"{PATH}/{mine}:generateScimToken", json={}).status_code == 403
        assert viewer.delete(f"{PATH}/{other}").status_code == viewer.delete(f"{V2}/{other}").status_code
    assert ok(http.get(f"{V2}/{mine}"))["name"]


def test_over_grpc_with_the_contract_messages(server: Server, org: str) -> None:
    stub = pb_grpc.IdentityProvidersStub(server.grpc_channel(server.token))
    oidc = pb.IdentityProvider.OIDC(issuer="https://idp.example.com", client_id="c", client_secret="grpc-secret")
    made = stub.Create(
        pb.CreateIdentityProviderRequest(
            parent_id=org, identity_provider=pb.IdentityProvider(name=unique("sso"), default_role=VIEWER, oidc=oidc)
        )
    )
    assert made.id.startswith(org + "/") and made.oidc.client_id == "c" and made.oidc.client_secret == ""
    done = stub.Update(pb.IdentityProvider(id=made.id, name="after", default_role=VIEWER, oidc=made.oidc))
    assert (done.id, done.name, done.oidc.client_secret) == (made.id, "after", "")
    found = stub.List(pb.IdentityProviderFilter(uidp=uidp_pb2.UIDPFilter(children_of=org)))
    assert [(i.id, i.name) for i in found.items] == [(made.id, "after")]
    gen = stub.GenerateScimToken(pb.GenerateScimTokenRequest(identity_provider_id=made.id))
    assert gen.identity_provider_id == made.id and gen.token
    stub.Delete(pb.DeleteIdentityProviderRequest(id=made.id))
    assert list(stub.List(pb.IdentityProviderFilter(id=made.id)).items) == []
    with pytest.raises(grpc.RpcError) as e:
        stub.Delete(pb.DeleteIdentityProviderRequest(id=made.id))
    assert e.value.code() == grpc.StatusCode.NOT_FOUND
