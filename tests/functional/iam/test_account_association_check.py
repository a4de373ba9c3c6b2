"""CheckAccountAssociation (`POST /iam/v2/accountAssociations/{uid}:checkAccountAssociation`, reference 6.6) and
its v1 twin (`:check`), over both transports and backends, against loopback fakes of the clouds' token services
(tests/helpers/cloud_sts.py), which verify our token as the real ones do (signature by our JWKS, fetched from
our server through its discovery document; audience; subject; the role, pool provider, tenant and application
named; the request's shape). Also: what is sent where (the token's aud and sub per cloud), NOT_READY with the
service's own words, "not configured" without a call, the outbound address checks (a test server's default
endpoints are a loopback port it may not reach), the per-association rate limit, the timeout, authorization."""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from platform_api.gen.chainguard.platform.iam.v1 import account_associations_pb2 as v1_pb2
from platform_api.gen.chainguard.platform.iam.v1 import account_associations_pb2_grpc as v1_grpc
from platform_api.gen.chainguard.platform.iam.v2 import account_associations_pb2 as v2_pb2
from platform_api.gen.chainguard.platform.iam.v2 import account_associations_pb2_grpc as v2_grpc
from tests.helpers import BACKENDS, TIMEOUT, VIEWER, Server, assert_error, mk_org, mk_role, start_server, stop_server
from tests.helpers.cloud_sts import CloudFakes

PATH = "/iam/v2/accountAssociations"
AMAZON, GOOGLE, AZURE = (f"ACCOUNT_PROVIDER_TYPE_{c}" for c in ("AMAZON", "GOOGLE", "AZURE"))
BURST = 4
TIMEOUT_SECONDS = 3


@pytest.fixture(scope="module")
def clouds() -> Iterator[CloudFakes]:
    fakes = CloudFakes()
    yield fakes
    fakes.close()


@pytest.fixture(scope="module", params=BACKENDS)
def srv(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, clouds: CloudFakes
) -> Iterator[Server]:
    """A server whose token services are the fakes (loopback allowed), its issuer reachable by them."""
    issuer = f"https://{request.param}.issuer.test"
    s = start_server(request.param, tmp_path_factory.mktemp("check"), "--insecure-allow-loopback", *clouds.flags(),
                     "--public-url", issuer, "--association-check-timeout", str(TIMEOUT_SECONDS),
                     "--association-check-rate", "0.001", "--association-check-burst", str(BURST))  # fmt: skip
    clouds.reach[issuer] = s.base_url
    yield s
    stop_server(s)


def issuer_of(srv: Server) -> str:
    return str(httpx.get(srv.base_url + "/.well-known/openid-configuration").json()["issuer"])


def associated(srv: Server, **blocks: Any) -> str:
    """A new organization with an association of these blocks: its uid (the association's)."""
    org = mk_org(srv.http)
    r = srv.http.post(f"{PATH}/{org}", json={"name": "cloud", **blocks})
    assert r.status_code == 200, r.text
    return org


def check(client: httpx.Client, uid: str, provider: str) -> dict[str, Any]:
    r = client.post(f"{PATH}/{uid}:checkAccountAssociation", json={"providerType": provider})
    assert r.status_code == 200, r.text
    return dict(r.json())


def account() -> str:
    return str(secrets.randbelow(9 * 10**11) + 10**11)


def test_amazon(srv: Server, clouds: CloudFakes) -> None:
    issuer = issuer_of(srv)
    acct = account()
    org = associated(srv, amazon={"account": acct})
    clouds.aws_role(acct, "platform-api-canary", issuer, {f"canary:{org}"})
    assert check(srv.http, org, AMAZON) == {
        "status": "CHECK_STATUS_READY",
        "message": f"assumed arn:aws:sts::{acct}:assumed-role/platform-api-canary/association-check",
    }
    # What was sent: STS's query API form, and a token of our issuer for the canary role's trust policy.
    call = [c for c in clouds.calls if c.cloud == "aws" and acct in c.form.get("RoleArn", "")][-1]
    assert call.content_type == "application/x-www-form-urlencoded"
    assert {k: v for k, v in call.form.items() if k != "WebIdentityToken"} == {
        "Action": "AssumeRoleWithWebIdentity", "Version": "2011-06-15", "DurationSeconds": "900",
        "RoleArn": f"arn:aws:iam::{acct}:role/platform-api-canary", "RoleSessionName": "association-check"}  # fmt: skip
    claims = call.claims
    assert (claims["iss"], claims["aud"], claims["sub"], claims["exp"] - claims["iat"]) == (
        issuer, "amazon", f"canary:{org}", 300)  # fmt: skip

    # Refusals, in AWS's words: a role that trusts other groups, an account without our issuer as OIDC provider,
    # an OIDC provider registered for another audience.
    other = associated(srv, amazon={"account": acct})
    assert check(srv.http, other, AMAZON) == {
        "status": "CHECK_STATUS_NOT_READY", "reason": "error exchanging credentials",
        "message": "AccessDenied: Not authorized to perform sts:AssumeRoleWithWebIdentity"}  # fmt: skip
    bare = associated(srv, amazon={"account": account()})
    got = check(srv.http, bare, AMAZON)
    assert got["message"] == f"InvalidIdentityToken: No OpenIDConnect provider found in your account for {issuer}"
    wrong_aud = account()
    clouds.aws_role(wrong_aud, "platform-api-canary", issuer, {"canary:x"}, audience="sts.amazonaws.com")
    got = check(srv.http, associated(srv, amazon={"account": wrong_aud}), AMAZON)
    assert got["message"] == "InvalidIdentityToken: Incorrect token audience"


def test_google(srv: Server, clouds: CloudFakes) -> None:
    issuer, number = issuer_of(srv), str(secrets.randbelow(10**11))
    org = associated(srv, google={"projectId": "demo", "projectNumber": number})
    name = clouds.gcp_provider(number, "platform-api-pool", "platform-api-provider", issuer, ["google"],
                               subjects={f"canary:{org}"})  # fmt: skip
    assert check(srv.http, org, GOOGLE) == {"status": "CHECK_STATUS_READY", "message": "GCP STS issued an access token"}
    call = [c for c in clouds.calls if c.cloud == "gcp" and c.form.get("audience") == name][-1]
    assert call.content_type == "application/x-www-form-urlencoded"
    assert {k: v for k, v in call.form.items() if k != "subject_token"} == {
        "grant_type": "urn:ietf:params:oauth:grant-type:token-exchange", "audience": name,
        "scope": "https://www.googleapis.com/auth/cloud-platform",
        "requested_token_type": "urn:ietf:params:oauth:token-type:access_token",
        "subject_token_type": "urn:ietf:params:oauth:token-type:jwt"}  # fmt: skip
    assert (call.claims["iss"], call.claims["aud"], call.claims["sub"]) == (issuer, "google", f"canary:{org}")

    # Refusals: the pool provider's attribute condition (another group), an unknown provider, another audience.
    other = associated(srv, google={"projectId": "demo", "projectNumber": number})
    assert check(srv.http, other, GOOGLE) == {
        "status": "CHECK_STATUS_NOT_READY", "reason": "error exchanging credentials",
        "message": "invalid_grant: The given credential is rejected by the attribute condition."}  # fmt: skip
    unknown = associated(srv, google={"projectId": "demo", "projectNumber": "1"})
    assert check(srv.http, unknown, GOOGLE)["message"].startswith("invalid_target: The target service indicated by")
    number2 = str(secrets.randbelow(10**11))
    clouds.gcp_provider(number2, "platform-api-pool", "platform-api-provider", issuer, ["https://elsewhere"])
    got = check(srv.http, associated(srv, google={"projectId": "demo", "projectNumber": number2}), GOOGLE)
    assert got["message"] == "invalid_grant: The audience in ID Token [google] does not match the expected audience."
    # A project number that is not one is not sent anywhere.
    calls = len(clouds.calls)
    got = check(srv.http, associated(srv, google={"projectId": "demo", "projectNumber": "x/y"}), GOOGLE)
    assert (got["status"], got["reason"], len(clouds.calls)) == ("CHECK_STATUS_NOT_READY", "not configured", calls)


def test_azure(srv: Server, clouds: CloudFakes) -> None:
    issuer, tenant = issuer_of(srv), str(uuid.uuid4())
    apps = {"canary": str(uuid.uuid4()), "ingester": str(uuid.uuid4())}
    org = associated(srv, azure={"tenantId": tenant, "clientIds": apps})
    for component, client in apps.items():
        clouds.azure_app(tenant, client, issuer, f"{component}:{org}")
    assert check(srv.http, org, AZURE) == {"status": "CHECK_STATUS_READY",
                                           "message": "Azure AD issued access tokens for canary, ingester"}  # fmt: skip
    calls = {c.form["client_id"]: c for c in clouds.calls if c.cloud == "azure" and tenant in c.path}
    assert set(calls) == set(apps.values())
    for component, client in apps.items():
        call = calls[client]
        assert (call.path, call.content_type) == (f"/azure/{tenant}/oauth2/v2.0/token",
                                                  "application/x-www-form-urlencoded")  # fmt: skip
        assert {k: v for k, v in call.form.items() if k != "client_assertion"} == {
            "grant_type": "client_credentials", "client_id": client, "scope": "https://management.azure.com/.default",
            "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"}  # fmt: skip
        assert (call.claims["iss"], call.claims["aud"], call.claims["sub"]) == (
            issuer, "api://AzureADTokenExchange", f"{component}:{org}")  # fmt: skip

    # One application without a federated credential for this group: the first refusal, by component, answers.
    other = associated(srv, azure={"tenantId": tenant, "clientIds": apps})
    clouds.azure_app(tenant, apps["canary"], issuer, f"canary:{other}")
    got = check(srv.http, other, AZURE)
    assert (got["status"], got["reason"]) == ("CHECK_STATUS_NOT_READY", "error exchanging credentials")
    assert got["message"] == (f"ingester: invalid_client: AADSTS70021: No matching federated identity record found "
                              f"for presented assertion. Assertion Issuer: '{issuer}'. Assertion Subject: "
                              f"'ingester:{other}'. Assertion Audience: 'api://AzureADTokenExchange'.")  # fmt: skip
    unknown = associated(srv, azure={"tenantId": str(uuid.uuid4()), "clientIds": {"canary": apps["canary"]}})
    assert check(srv.http, unknown, AZURE)["message"].startswith("canary: invalid_request: AADSTS90002: Tenant '")
    # A tenant that is neither a GUID nor a domain name is no path segment of ours: nothing is sent.
    calls = len(clouds.calls)
    bad = associated(srv, azure={"tenantId": "../common", "clientIds": {"canary": apps["canary"]}})
    got = check(srv.http, bad, AZURE)
    assert (got["status"], got["reason"], len(clouds.calls)) == ("CHECK_STATUS_NOT_READY", "not configured", calls)


def test_both_transports_and_versions(srv: Server, clouds: CloudFakes) -> None:
    acct = account()
    org = associated(srv, amazon={"account": acct})
    clouds.aws_role(acct, "platform-api-canary", issuer_of(srv), {f"canary:{org}"})
    v2 = v2_grpc.AccountAssociationsServiceStub(srv.channel).CheckAccountAssociation(
        v2_pb2.CheckAccountAssociationRequest(uid=org, provider_type=v2_pb2.ACCOUNT_PROVIDER_TYPE_AMAZON),
        timeout=TIMEOUT,
    )
    assert (v2.status, v2.reason) == (v2_pb2.CHECK_STATUS_READY, "") and acct in v2.message
    v1 = v1_grpc.GroupAccountAssociationsStub(srv.channel).Check(
        v1_pb2.AccountAssociationsCheckRequest(group=org, account_type=v1_pb2.AccountAssociationsCheckRequest.AMAZON),
        timeout=TIMEOUT,
    )
    assert v1.ready == v1_pb2.AccountAssociationsStatus.Ready and acct in v1.message
    r = srv.http.post(f"/iam/v1/account_associations/{org}:check", json={"accountType": "GOOGLE"})
    assert r.status_code == 200, r.text
    assert r.json() == {"ready": "NotReady", "reason": "not configured",
                        "message": "the association has no google project"}  # fmt: skip


def test_refusals_and_authorization(srv: Server, clouds: CloudFakes) -> None:
    org = associated(srv, amazon={"account": account()})
    calls = len(clouds.calls)
    assert check(srv.http, org, AZURE) == {"status": "CHECK_STATUS_NOT_READY", "reason": "not configured",
                                           "message": "the association has no azure tenant"}  # fmt: skip
    assert len(clouds.calls) == calls  # nothing to ask anyone
    url = f"{PATH}/{org}:checkAccountAssociation"
    assert_error(srv.http.post(url, json={}), 400, 3, field="provider_type")
    assert_error(srv.http.post(url, json={"providerType": "ACCOUNT_PROVIDER_TYPE_UNSPECIFIED"}), 400, 3,
                 field="provider_type")  # fmt: skip
    without = mk_org(srv.http)
    assert_error(srv.http.post(f"{PATH}/{without}:checkAccountAssociation", json={"providerType": AMAZON}), 404, 5)
    with srv.client(None) as anon:
        assert_error(anon.post(url, json={"providerType": AMAZON}), 401, 16)
    # The contract's capability: account_associations.list (a viewer's) at the association.
    _, token = srv.identity_with_role(org, VIEWER)
    with srv.client(token) as viewer:
        assert check(viewer, org, GOOGLE)["reason"] == "not configured"
    _, token = srv.identity_with_role(org, mk_role(srv.http, org, "CAP_REPO_LIST"))
    with srv.client(token) as other:
        assert_error(other.post(url, json={"providerType": GOOGLE}), 403, 7)


def test_rate_limit_per_association(srv: Server) -> None:
    org, other = associated(srv), associated(srv)
    for _ in range(BURST):
        check(srv.http, org, GOOGLE)
    r = srv.http.post(f"{PATH}/{org}:checkAccountAssociation", json={"providerType": GOOGLE})
    assert (r.status_code, r.json()["code"], r.json()["details"][0]["reason"]) == (429, 8, "RATE_LIMITED"), r.text
    assert int(r.headers["retry-after"]) >= 1
    assert check(srv.http, other, GOOGLE)["reason"] == "not configured"  # another association: its own bucket


def test_a_service_that_does_not_answer_in_time(srv: Server, clouds: CloudFakes) -> None:
    tenant = f"slow-{secrets.token_hex(4)}.example"
    clouds.hanging_tenants.add(tenant)
    org = associated(srv, azure={"tenantId": tenant, "clientIds": {"canary": str(uuid.uuid4())}})
    got = check(srv.http, org, AZURE)
    assert (got["status"], got["reason"]) == ("CHECK_STATUS_NOT_READY", "token service unreachable")
    assert got["message"] == (f"canary: {clouds.azure_url}/{tenant}/oauth2/v2.0/token: no answer within "
                              f"{TIMEOUT_SECONDS} s")  # fmt: skip


def test_outbound_address_checks(server: Server, http: httpx.Client, org: str) -> None:
    """A server without --insecure-allow-loopback never connects to a loopback token service (the test
    servers' default endpoints are https://127.0.0.1:9...): the check says so and nothing is sent."""
    r = http.post(f"{PATH}/{org}", json={"name": "cloud", "amazon": {"account": account()}})
    assert r.status_code == 200, r.text
    assert check(http, org, AMAZON) == {"status": "CHECK_STATUS_NOT_READY", "reason": "token service unreachable",
                                        "message": "https://127.0.0.1:9/: its address is refused by the outbound "
                                        "checks"}  # fmt: skip
