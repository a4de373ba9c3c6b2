"""Repeated request fields are capped (issue 16, item 2), over HTTP and gRPC, on both backends: one value
past a field's declared cap is INVALID_ARGUMENT naming the field, at the cap the call answers. 100,000
values in one gRPC message (~100 KB) are refused at once (before: answered after ~30 s of SQL on SQLite
while every other request waited, and a 500 on PostgreSQL past its 32,767 bind parameters)."""

from __future__ import annotations

from http.client import HTTPConnection
from typing import Any

import grpc
import httpx
import pytest
from google.rpc import error_details_pb2

from platform_api.gen.chainguard.platform.advisory.v2 import advisory_pb2, advisory_pb2_grpc
from platform_api.gen.chainguard.platform.iam.v2 import roles_pb2, roles_pb2_grpc
from platform_api.gen.chainguard.platform.oidc import oidc_pb2, oidc_pb2_grpc
from platform_api.gen.chainguard.platform.registry.v2 import repos_pb2, repos_pb2_grpc
from platform_api.gen.chainguard.platform.vulnerabilities.v2 import advisories_pb2, advisories_pb2_grpc
from tests.helpers import TIMEOUT, Server, assert_error, ok, rpc_error, unpack

# Bind-parameter and statement limits differ by dialect (SQLite's expression depth, PostgreSQL's 32,767 binds).
pytestmark = pytest.mark.both_backends

FIXED = "EVENT_TYPE_FILTER_FIXED"


def _grpc_refused(call: Any, request: Any, field: str) -> str:
    err, st = rpc_error(call, request)
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT, st
    assert [v.field for v in unpack(st, error_details_pb2.BadRequest).field_violations] == [field]
    return str(st.message)


def _uids(n: int) -> list[str]:
    """Root-level uids (40 hex): 1,000 of them fit a query string under the 64 KiB URL limit."""
    return [f"{i:040x}" for i in range(n)]


def test_list_advisories_event_types(http: httpx.Client, server: Server) -> None:
    ok(http.get("/vulnerabilities/v2/advisories", params={"event_types": [FIXED] * 9}))
    body = assert_error(
        http.get("/vulnerabilities/v2/advisories", params={"event_types": [FIXED] * 10}), 400, 3, "event_types"
    )
    assert body["message"] == "Invalid argument: event_types: event_types takes at most 9 values, got 10"
    stub = advisories_pb2_grpc.AdvisoriesServiceStub(server.channel)
    fixed = advisories_pb2.EventTypeFilter.Value(FIXED)
    stub.ListAdvisories(advisories_pb2.ListAdvisoriesRequest(event_types=[fixed] * 9), timeout=TIMEOUT)
    _grpc_refused(stub.ListAdvisories, advisories_pb2.ListAdvisoriesRequest(event_types=[fixed] * 10), "event_types")
    # The message: 100,000 one-byte values.
    message = _grpc_refused(
        stub.ListAdvisories, advisories_pb2.ListAdvisoriesRequest(event_types=[fixed] * 100_000), "event_types"
    )
    assert message.endswith("got 100000")
    for field in ("advisory_ids", "event_authors", "exclude_event_authors", "aliases"):
        ok(http.get("/vulnerabilities/v2/advisories", params={field: [f"v{i}" for i in range(1000)]}))
        r = http.get("/vulnerabilities/v2/advisories", params={field: [f"v{i}" for i in range(1001)]})
        assert_error(r, 400, 3, field)


def test_uidp_ids_on_a_list(http: httpx.Client, server: Server, org: str) -> None:
    page = ok(http.get("/registry/v2/repos", params={"uidp.ids": [org, *_uids(999)]}))
    assert page["totalCount"] == "0"  # an organization is no repo; the 999 others do not exist
    assert_error(http.get("/registry/v2/repos", params={"uidp.ids": _uids(1001)}), 400, 3, "uidp.ids")
    stub = repos_pb2_grpc.ReposServiceStub(server.channel)
    stub.ListRepos(repos_pb2.ListReposRequest(uidp={"ids": _uids(1000)}), timeout=TIMEOUT)
    _grpc_refused(stub.ListRepos, repos_pb2.ListReposRequest(uidp={"ids": _uids(1001)}), "uidp.ids")


def test_list_vulnerability_metadata_ids(anon: httpx.Client, server: Server) -> None:
    ids = [f"CVE-2024-{i}" for i in range(1001)]
    assert ok(anon.get("/advisory/v2/metadata", params={"ids": ids[:1000]}))["totalCount"] == "0"
    assert_error(anon.get("/advisory/v2/metadata", params={"ids": ids}), 400, 3, "ids")
    with grpc.insecure_channel(server.grpc_target) as channel:
        stub = advisory_pb2_grpc.SecurityAdvisoryServiceStub(channel)
        stub.ListVulnerabilityMetadata(advisory_pb2.ListVulnerabilityMetadataRequest(ids=ids[:1000]), timeout=TIMEOUT)
        request = advisory_pb2.ListVulnerabilityMetadataRequest(ids=ids)
        _grpc_refused(stub.ListVulnerabilityMetadata, request, "ids")


def test_nested_and_body_fields(http: httpx.Client, server: Server, org: str) -> None:
    stub = advisory_pb2_grpc.SecurityAdvisoryServiceStub(server.channel)
    request = advisory_pb2.ListResolvedVulnsReportsRequest(
        image_refs=[{"repo": "a", "tags": ["latest"]}, {"repo": "b", "tags": [f"t{i}" for i in range(101)]}]
    )
    _grpc_refused(stub.ListResolvedVulnsReports, request, "image_refs[1].tags")
    caps = ["CAP_REPO_LIST"] * 218
    r = http.post(f"/iam/v2/roles/{org}", json={"name": "too-many", "capabilities": caps})
    assert_error(r, 400, 3, "role.capabilities")
    roles = roles_pb2_grpc.RolesServiceStub(server.channel)
    request_role = roles_pb2.CreateRoleRequest(parent=org, role={"name": "too-many", "capabilities": [1] * 218})
    _grpc_refused(roles.CreateRole, request_role, "role.capabilities")


def test_token_exchange_fields(anon: httpx.Client, server: Server) -> None:
    """Checked before the upstream token is looked at (the answer at the cap is the missing token's 401)."""
    assert_error(anon.get("/sts/exchange", params={"aud": ["x"] * 16}), 401, 16)
    assert_error(anon.get("/sts/exchange", params={"aud": ["x"] * 17}), 400, 3, "aud")
    assert_error(anon.post("/sts/exchange_refresh_token", data={"cap": ["x"] * 218}), 400, 3, "cap")
    with grpc.insecure_channel(server.grpc_target) as channel:
        stub = oidc_pb2_grpc.SecurityTokenServiceStub(channel)
        _grpc_refused(stub.Exchange, oidc_pb2.ExchangeRequest(scopes=_uids(101)), "scopes")


def test_a_query_string_over_the_url_limit_is_the_documented_414(anon: httpx.Client, server: Server) -> None:
    """Long values reach the HTTP server's 64 KiB URL limit before their field's cap: /openapi.json says so
    (schemathesis generates such requests once it sees `maxItems`)."""
    doc = ok(anon.get("/openapi.json"))
    assert doc["paths"]["/advisory/v2/metadata"]["get"]["responses"]["414"] == {
        "$ref": "#/components/responses/UriTooLong"
    }
    host, port = server.base_url.removeprefix("http://").split(":")
    conn = HTTPConnection(host, int(port), timeout=TIMEOUT)  # httpx refuses such URLs itself
    try:
        conn.request("GET", "/advisory/v2/metadata?" + "&".join(["ids=" + "x" * 100] * 700))
        r = conn.getresponse()
        assert (r.status, r.read()) == (414, b"")
    finally:
        conn.close()
