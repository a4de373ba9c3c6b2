"""v1 Identities (`/iam/v1/identities`, chainguard.platform.iam.Identities) over the v2 implementation: the
same identities seen both ways (ids, times, relationships), PUT replaces (but keeps the v2-only company),
the v1-only relationships refused, Lookup is v2's lookupIdentity, the same authorization; over HTTP and gRPC."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import grpc
import httpx
import pytest

from platform_api.gen.chainguard.platform.iam.v1 import identity_pb2, identity_pb2_grpc
from tests.helpers import Server, assert_error, mk_group, new_key, ok, unique

ISSUER = "https://issuer.example"


def v1_list(http: httpx.Client, **params: Any) -> list[dict[str, Any]]:
    body = ok(http.get("/iam/v1/identities", params=params))
    assert set(body) <= {"items"}
    return list(body.get("items", []))


def instant(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def claim(subject: str) -> dict[str, Any]:
    return {"issuer": ISSUER, "subject": subject}


def test_created_over_v1_is_the_v2_identity_and_back(http: httpx.Client, org: str) -> None:
    made = ok(
        http.post(f"/iam/v1/identities/{org}", json={"name": "bot", "description": "d", "claimMatch": claim("a")})
    )
    assert made["id"].startswith(org + "/") and made["claimMatch"] == claim("a")
    assert set(made) == {"id", "name", "description", "createdAt", "updatedAt", "lastSeen", "claimMatch"}
    seen = ok(http.get(f"/iam/v2/identities/{made['id']}"))
    assert (seen["uid"], seen["name"], seen["description"], seen["claimMatch"]) == (made["id"], "bot", "d", claim("a"))
    for one, two in (("createdAt", "createTime"), ("updatedAt", "updateTime"), ("lastSeen", "lastSeenTime")):
        assert instant(made[one]) == instant(seen[two])
    body = {"name": "v2", "claimMatch": {"issuer": ISSUER, "subjectPattern": "b-.*", "claims": {"x": "y"}}}
    other = ok(http.post(f"/iam/v2/identities/{org}", json=body))
    listed = {i["id"]: i for i in v1_list(http, **{"uidp.childrenOf": org})}
    assert sorted(listed) == sorted([made["id"], other["uid"]])
    assert listed[other["uid"]]["claimMatch"] == body["claimMatch"]
    assert instant(listed[other["uid"]]["createdAt"]) == instant(other["createTime"])
    assert [i["id"] for i in v1_list(http, id=other["uid"])] == [other["uid"]]
    assert ok(http.get("/iam/v1/identities", params={"id": org + "/" + "0" * 16})) == {}


def test_static_keys_as_v1_static(http: httpx.Client, org: str) -> None:
    _, jwk = new_key()
    keys = json.dumps({"keys": [jwk]})
    static = {"issuer": "https://static.example", "subject": "robot", "issuerKeys": keys, "audiences": ["mine"]}
    made = ok(http.post(f"/iam/v1/identities/{org}", json={"name": "s", "static": static}))
    seen = ok(http.get(f"/iam/v2/identities/{made['id']}"))["staticKeys"]
    assert instant(made["static"]["expiration"]) == instant(seen["expirationTime"])
    assert {k: made["static"][k] for k in static} == static == {k: seen[k] for k in static}


def test_put_replaces_keeps_company_and_delete(http: httpx.Client, org: str) -> None:
    made = ok(
        http.post(f"/iam/v2/identities/{org}", json={"name": "n", "description": "was", "claimMatch": claim("c")})
    )
    uid = made["uid"]
    ok(http.patch(f"/iam/v2/identities/{uid}", params={"updateMask": "company"}, json={"company": "ACME"}))
    done = ok(http.put(f"/iam/v1/identities/{uid}", json={"name": "renamed", "claimMatch": claim("d")}))
    assert (done["id"], done["name"], done["claimMatch"], "description" in done) == (uid, "renamed", claim("d"), False)
    v2 = ok(http.get(f"/iam/v2/identities/{uid}"))
    assert (v2["name"], v2.get("description"), v2["claimMatch"], v2["company"]) == ("renamed", None, claim("d"), "ACME")
    assert_error(http.put(f"/iam/v1/identities/{uid}", json={"name": "x"}), 400, 3)  # a relationship is required
    assert ok(http.delete(f"/iam/v1/identities/{uid}")) == {}
    assert http.get(f"/iam/v2/identities/{uid}").status_code == 404
    assert_error(http.delete(f"/iam/v1/identities/{uid}"), 404, 5)


def test_v1_only_relationships_are_refused(http: httpx.Client, org: str) -> None:
    r = http.post(f"/iam/v1/identities/{org}", json={"name": "sp", "servicePrincipal": "COSIGNED"})
    assert_error(r, 400, 3, "identity.service_principal")
    r = http.post(f"/iam/v1/identities/{org}", json={"name": "aws", "awsIdentity": {"awsAccount": "123", "arn": "a"}})
    assert_error(r, 400, 3, "identity.aws_identity")
    assert v1_list(http, **{"uidp.childrenOf": org}) == []


def test_lookup_is_v2_lookup(http: httpx.Client) -> None:
    params = {"issuer": "https://accounts.example", "subject": unique("user")}
    v2 = ok(http.get("/iam/v2/identities:lookupIdentity", params=params))
    assert ok(http.get("/iam/v1/identities/lookup", params=params)) == {"id": v2["uid"]}
    assert_error(http.get("/iam/v1/identities/lookup", params={"issuer": params["issuer"]}), 400, 3, "subject")


def test_authorization_is_the_v2_one(server: Server, http: httpx.Client, org: str) -> None:
    sub = mk_group(http, org, unique("sub"))["uid"]
    other = mk_group(http, org, unique("other"))["uid"]
    mine = ok(http.post(f"/iam/v1/identities/{sub}", json={"name": "m", "claimMatch": claim("m")}))["id"]
    theirs = ok(http.post(f"/iam/v1/identities/{other}", json={"name": "t", "claimMatch": claim("t")}))["id"]
    _, token = server.identity_with_role(sub, "viewer", home=org)
    with server.client(token) as viewer:
        v2_seen = {
            i["uid"] for i in ok(viewer.get("/iam/v2/identities", params={"uidp.descendantsOf": org}))["identities"]
        }
        seen = {i["id"] for i in v1_list(viewer, **{"uidp.descendantsOf": org})}
        assert seen == v2_seen and mine in seen and theirs not in seen
        assert v1_list(viewer, id=theirs) == []
        assert viewer.post(f"/iam/v1/identities/{sub}", json={"name": "x", "claimMatch": claim("x")}).status_code == 403
        assert viewer.put(f"/iam/v1/identities/{mine}", json={"name": "x", "claimMatch": claim("m")}).status_code == 403
        assert viewer.delete(f"/iam/v1/identities/{mine}").status_code == 403


def test_over_grpc_with_the_contract_messages(server: Server, org: str) -> None:
    stub = identity_pb2_grpc.IdentitiesStub(server.grpc_channel(server.token))
    cm = identity_pb2.Identity.ClaimMatch(issuer=ISSUER, subject="g")
    made = stub.Create(
        identity_pb2.CreateIdentityRequest(parent_id=org, identity=identity_pb2.Identity(name="g", claim_match=cm))
    )
    assert made.id.startswith(org + "/") and made.claim_match.subject == "g" and made.created_at.seconds > 0
    done = stub.Update(identity_pb2.Identity(id=made.id, name="after", claim_match=cm))
    assert (done.id, done.name) == (made.id, "after")
    assert [i.id for i in stub.List(identity_pb2.IdentityFilter(id=made.id)).items] == [made.id]
    found = stub.Lookup(identity_pb2.LookupRequest(issuer=ISSUER, subject="someone"))
    assert found.id and not found.name
    stub.Delete(identity_pb2.DeleteIdentityRequest(id=made.id))
    with pytest.raises(grpc.RpcError) as e:
        stub.Delete(identity_pb2.DeleteIdentityRequest(id=made.id))
    assert e.value.code() == grpc.StatusCode.NOT_FOUND
    with pytest.raises(grpc.RpcError) as e:
        stub.Create(identity_pb2.CreateIdentityRequest(parent_id=org, identity=identity_pb2.Identity(
            name="sp", service_principal=identity_pb2.COSIGNED)))  # fmt: skip
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
