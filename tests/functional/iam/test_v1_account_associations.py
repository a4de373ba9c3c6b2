"""v1 GroupAccountAssociations (`/iam/v1/account_associations/{group}`, chainguard.platform.iam.
GroupAccountAssociations) over the v2 implementation: keyed by the group, the AWS/Google/Azure/GitHub blocks
the same both ways, Chainguard service bindings refused (v2 does not keep them), PUT replaces, the same
authorization, `Check` unserved like its v2 twin; over HTTP and over gRPC."""

from __future__ import annotations

from typing import Any

import grpc
import httpx
import pytest

from platform_api.gen.chainguard.platform.iam.v1 import account_associations_pb2 as pb
from platform_api.gen.chainguard.platform.iam.v1 import account_associations_pb2_grpc as pb_grpc
from tests.helpers import Server, assert_error, mk_group, ok, unique

PATH = "/iam/v1/account_associations"
V2 = "/iam/v2/accountAssociations"
GITHUB = {"appInstallations": {"123456": {"installations": [{"installationId": "987654321", "name": "acme"}]}}}
BLOCKS = {"amazon": {"account": "123456789012"}, "google": {"projectId": "acme-prod", "projectNumber": "1234567890"},
          "azure": {"tenantId": "8f1b-tenant", "clientIds": {"registry": "client-a"}}, "github": GITHUB}  # fmt: skip


def v1_list(http: httpx.Client, **params: Any) -> list[dict[str, Any]]:
    body = ok(http.get(PATH, params=params))
    assert set(body) <= {"items"}
    return list(body.get("items", []))


def test_created_over_v1_is_the_v2_association_and_back(http: httpx.Client, org: str) -> None:
    made = ok(http.post(f"{PATH}/{org}", json={"name": "cloud", "description": "d", **BLOCKS}))
    assert made == {"group": org, "name": "cloud", "description": "d", **BLOCKS}
    seen = ok(http.get(f"{V2}/{org}"))
    assert seen["uid"] == org and seen["createTime"]
    assert {k: v for k, v in seen.items() if k not in ("uid", "createTime", "updateTime")} == {
        k: v for k, v in made.items() if k != "group"
    }
    sub = mk_group(http, org, unique("sub"))["uid"]
    ok(http.post(f"{V2}/{sub}", json={"name": "other", "amazon": {"account": "210987654321"}}))
    assert v1_list(http, group=sub) == [{"group": sub, "name": "other", "amazon": {"account": "210987654321"}}]
    assert v1_list(http, group=org) == [made]
    assert [a["group"] for a in v1_list(http, name="other", group=sub)] == [sub]
    assert v1_list(http, name="cloud", group=sub) == []
    assert ok(http.get(PATH, params={"group": org + "/" + "0" * 16})) == {}
    assert_error(http.post(f"{PATH}/{org}", json={"name": "again"}), 409, 6)


def test_put_replaces_and_delete(http: httpx.Client, org: str) -> None:
    ok(http.post(f"{PATH}/{org}", json={"name": "cloud", "description": "was", **BLOCKS}))
    done = ok(http.put(f"{PATH}/{org}", json={"name": "renamed", "google": BLOCKS["google"]}))
    assert done == {"group": org, "name": "renamed", "google": BLOCKS["google"]}  # the rest is cleared
    v2 = ok(http.get(f"{V2}/{org}"))
    assert not {"description", "amazon", "azure", "github"} & set(v2) and v2["google"] == BLOCKS["google"]
    assert ok(http.delete(f"{PATH}/{org}")) == {}
    assert http.get(f"{V2}/{org}").status_code == 404
    assert ok(http.delete(f"{PATH}/{org}")) == {}  # idempotent, as v2
    assert_error(http.put(f"{PATH}/{org}", json={"name": "x"}), 404, 5)


def test_service_bindings_are_refused_not_dropped(http: httpx.Client, org: str) -> None:
    bindings = {"chainguard": {"serviceBindings": {"INGESTER": org + "/" + "1" * 16}}}
    assert_error(http.post(f"{PATH}/{org}", json={"name": "cloud", **bindings}), 400, 3, "chainguard")
    assert http.get(f"{V2}/{org}").status_code == 404
    ok(http.post(f"{PATH}/{org}", json={"name": "cloud"}))
    assert_error(http.put(f"{PATH}/{org}", json={"name": "cloud", **bindings}), 400, 3, "chainguard")


def test_authorization_is_the_v2_one(server: Server, http: httpx.Client, org: str) -> None:
    sub, other = mk_group(http, org, unique("sub"))["uid"], mk_group(http, org, unique("other"))["uid"]
    for g in (sub, other):
        ok(http.post(f"{PATH}/{g}", json={"name": "cloud"}))
    _, token = server.identity_with_role(sub, "viewer", home=org)
    with server.client(token) as viewer:
        assert [a["group"] for a in v1_list(viewer)] == [sub]
        assert v1_list(viewer, group=other) == []
        assert viewer.put(f"{PATH}/{sub}", json={"name": "x"}).status_code == 403
        assert viewer.delete(f"{PATH}/{sub}").status_code == 403
        assert viewer.post(f"{PATH}/{sub}", json={"name": "x"}).status_code == 403
        # Out of reach: what v2 answers for the same association.
        assert viewer.delete(f"{PATH}/{other}").status_code == viewer.delete(f"{V2}/{other}").status_code
    assert ok(http.get(f"{V2}/{sub}"))["name"] == "cloud"


def test_over_grpc_with_the_contract_messages(server: Server, org: str) -> None:
    stub = pb_grpc.GroupAccountAssociationsStub(server.grpc_channel(server.token))
    github = pb.AccountAssociations.GitHub()
    github.app_installations[42].installations.add(installation_id=7, name="acme")
    made = stub.Create(
        pb.AccountAssociations(group=org, name="cloud", amazon=pb.AccountAssociations.Amazon(account="123456789012"),
                               github=github)
    )  # fmt: skip
    assert (made.group, made.amazon.account) == (org, "123456789012")
    assert made.github.app_installations[42].installations[0].installation_id == 7
    done = stub.Update(pb.AccountAssociations(group=org, name="after", description="d"))
    assert (done.group, done.name, done.description, done.HasField("amazon")) == (org, "after", "d", False)
    assert [(a.group, a.name) for a in stub.List(pb.AccountAssociationsFilter(group=org)).items] == [(org, "after")]
    with pytest.raises(grpc.RpcError) as e:
        stub.Update(
            pb.AccountAssociations(
                group=org, name="x", chainguard=pb.AccountAssociations.Chainguard(service_bindings={"A": "b"})
            )
        )
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    stub.Delete(pb.DeleteAccountAssociationsRequest(group=org))
    assert list(stub.List(pb.AccountAssociationsFilter(group=org)).items) == []
