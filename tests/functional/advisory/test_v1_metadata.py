"""v1 ListVulnerabilityMetadata (`/advisory/v1/metadata`, chainguard.platform.advisory.SecurityAdvisory) over
the v2 implementation: public, the v2 twin's records under v1 names (`items`, `severity`, enum values without
`TYPE_`); it pages as its contract does, with the v2 twin's pages and tokens (its byte budget ends a page with
a token: never a silent cut); over HTTP and over gRPC with the contract's messages."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest

from platform_api.gen.chainguard.platform.advisory.v1 import advisory_pb2, advisory_pb2_grpc
from tests.helpers import TIMEOUT, Server, assert_error, imported, ok

DATA = Path(__file__).resolve().parents[2] / "data" / "osv"
ASKED = ["CVE-2024-10001", "CVE-2024-10002", "CVE-2024-10003", "GHSA-4xqm-h5vw-9f8j", "CVE-1999-0000"]


def v1_of(m: dict[str, Any]) -> dict[str, Any]:
    """A v2 record as v1 writes it."""
    out = {k: v for k, v in m.items() if k != "severities"}
    out["references"] = [{**r, "type": r["type"].removeprefix("TYPE_")} if "type" in r else r
                         for r in m.get("references", [])]  # fmt: skip
    if m.get("severities"):
        out["severity"] = [{**s, "type": s["type"].removeprefix("TYPE_")} if "type" in s else s
                           for s in m["severities"]]  # fmt: skip
    return {k: v for k, v in out.items() if v}


@pytest.fixture(scope="module", autouse=True)
def osv(server: Server) -> None:
    imported(server, "osv", str(DATA))


def test_records_are_the_v2_records_and_page_alike(anon: httpx.Client) -> None:
    v2 = ok(anon.get("/advisory/v2/metadata", params={"ids": ASKED}))
    got = ok(anon.get("/advisory/v1/metadata", params={"ids": ASKED}))
    assert got["items"] == [v1_of(m) for m in v2["vulnerabilityMetadata"]]
    assert got["totalCount"] == v2["totalCount"] == "3" and "nextPageToken" not in got
    ghsa = got["items"][-1]
    assert ghsa["id"] == "GHSA-4xqm-h5vw-9f8j" and ghsa["severity"][0]["type"] == "CVSS_V3"
    assert [r.get("type") for r in ghsa["references"]] == ["ADVISORY", "FIX", "PACKAGE", None, "WEB"]
    # Pages: the v2 twin's, and its tokens work both ways.
    first = ok(anon.get("/advisory/v1/metadata", params={"ids": ASKED, "pageSize": 2, "orderBy": "id desc"}))
    assert [m["id"] for m in first["items"]] == [m["id"] for m in reversed(got["items"])][:2]
    params = {"ids": ASKED, "pageSize": 2, "orderBy": "id desc", "pageToken": first["nextPageToken"]}
    rest = ok(anon.get("/advisory/v1/metadata", params=params))
    there = ok(anon.get("/advisory/v2/metadata", params=params))
    assert rest["items"] == [v1_of(m) for m in there["vulnerabilityMetadata"]] and len(rest["items"]) == 1
    skipped = ok(anon.get("/advisory/v1/metadata", params={"ids": ASKED, "skip": 2}))
    assert skipped["items"] == got["items"][2:] and skipped["skipped"] == 2
    assert ok(anon.get("/advisory/v1/metadata", params={"id": "CVE-1999-0000"})) == {"totalCount": "0"}
    assert_error(anon.get("/advisory/v1/metadata", params={"id": "not an id"}), 400, 3, "id")


def test_over_grpc_without_token(server: Server) -> None:
    stub = advisory_pb2_grpc.SecurityAdvisoryStub(server.grpc_channel(None))
    found = stub.ListVulnerabilityMetadata(
        advisory_pb2.VulnerabilityMetadataFilter(id="CVE-2024-10001", ids=["CVE-2024-10002"]), timeout=TIMEOUT
    )
    assert [m.id for m in found.items] == ["CVE-2024-10001", "CVE-2024-10002"] and found.total_count == 2
    assert found.items[0].severity[0].type == advisory_pb2.Severity.CVSS_V3
    with pytest.raises(grpc.RpcError) as e:
        stub.ListVulnerabilityMetadata(advisory_pb2.VulnerabilityMetadataFilter(ids=["x y"]), timeout=TIMEOUT)
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
