"""The v1 calls over imported SBOMs and Grype reports, over HTTP and gRPC on the v1 contract's messages:
Vulnerabilities.ListVulnReports and GetRawVulnReport, Registry.GetSbom and GetRawSbom; what another
organization and a caller without the capabilities see."""

from __future__ import annotations

import json
import secrets
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest

from platform_api.gen.chainguard.platform.registry.v1 import vulnerabilities_pb2, vulnerabilities_pb2_grpc
from tests.helpers.registry import GRYPE_REPORT, image


def report_at(tmp_path: Path, timestamp: str) -> Path:
    doc = json.loads(GRYPE_REPORT.read_text())
    doc["descriptor"]["timestamp"] = timestamp
    path = tmp_path / f"report-{secrets.token_hex(4)}.json"
    path.write_text(json.dumps(doc))
    return path


def listed(client: httpx.Client, **params: Any) -> list[dict[str, Any]]:
    r = client.get("/registry/v1/vuln_reports", params=params)
    assert r.status_code == 200, r.text
    return list(r.json().get("items", []))


def test_vuln_reports(server: Any, http: httpx.Client, org: str, tmp_path: Path) -> None:
    repo, _, digest = image(server, http, org, tmp_path, ("latest", "1.0"))
    repo2, _, digest2 = image(server, http, org, tmp_path, ("2.0",))
    later = report_at(tmp_path, "2026-01-05T09:00:00Z")
    server.cli("import", "vulnreport", repo, digest, str(GRYPE_REPORT))  # 2026-01-02T03:04:05.123Z
    server.cli("import", "vulnreport", repo, digest, str(later))
    server.cli("import", "vulnreport", repo2, digest2, str(GRYPE_REPORT))

    items = listed(http, repoId=repo)
    assert [(i["digest"], i["createdAt"]) for i in items] == [
        (digest, "2026-01-02T03:04:05.123Z"), (digest, "2026-01-05T09:00:00Z")]  # fmt: skip
    first = items[0]
    assert first["scanner"] == {"name": "GRYPE", "version": "0.74.0", "dbBuildTime": "2026-01-01T06:07:08Z"}
    v = first["vulnerabilities"]
    assert [x["id"] for x in v] == ["CVE-2024-0001", "GHSA-aaaa-bbbb-cccc", "CVE-2024-0003"]
    assert v[0]["severity"] == "CRITICAL" and v[0]["cvss"] == [{"score": "9.8", "version": "3.1"}]
    assert v[0]["purls"] == ["pkg:apk/wolfi/openssl@3.3.2-r0?arch=x86_64"]
    assert v[0]["fix"] == {"versions": ["3.3.3-r0"], "state": "FIXED"}
    assert v[0]["relatedUrls"] == ["https://nvd.nist.gov/vuln/detail/CVE-2024-0001"]
    assert v[1]["aliases"] == ["CVE-2024-0002"] and "aliases" not in v[0]

    # Filters: digest, tag, createdSince (to the second), scanner name; both repos without repoId.
    assert len(listed(http, digest=digest)) == 2
    assert [i["digest"] for i in listed(http, repoId=repo, tag="1.0")] == [digest, digest]
    assert listed(http, repoId=repo, tag="2.0") == []
    assert [i["digest"] for i in listed(http, tag="2.0")] == [digest2]
    assert [i["createdAt"] for i in listed(http, repoId=repo, createdSince="2026-01-03T00:00:00Z")] == [
        "2026-01-05T09:00:00Z"
    ]
    assert len(listed(http, repoId=repo, createdSince="2026-01-02T03:04:05.500Z")) == 2  # the same second
    assert len(listed(http, **{"scanner.name": "GRYPE"})) == 3
    assert listed(http, **{"scanner.name": "TRIVY"}) == []
    r = http.get("/registry/v1/vuln_reports", params={"scanner.version": "0.74.0"})
    assert r.status_code == 400 and "scanner.version" in r.text, r.text
    assert http.get("/registry/v1/vuln_reports", params={"repoId": "nope"}).status_code == 400
    assert listed(http, repoId=org + "/" + "0" * 16) == []

    # GetRawVulnReport: the file as imported; the latest without createdAt, the one asked for with it.
    r = http.get("/registry/v1/vuln_reports/raw", params={"digest": digest})
    assert r.status_code == 200, r.text
    assert r.json()["rawReport"] == later.read_text() and r.json()["createdAt"] == "2026-01-05T09:00:00Z"
    assert r.json()["scanner"]["name"] == "GRYPE" and "rawReportUrl" not in r.json()
    r = http.get("/registry/v1/vuln_reports/raw", params={"digest": digest, "createdAt": "2026-01-02T03:04:05.123Z"})
    assert r.status_code == 200 and r.json()["rawReport"] == GRYPE_REPORT.read_text(), r.text
    r = http.get("/registry/v1/vuln_reports/raw", params={"digest": digest, "createdAt": "2026-01-05T09:00:00.000Z"})
    assert r.status_code == 200 and r.json()["createdAt"] == "2026-01-05T09:00:00Z", r.text
    r = http.get("/registry/v1/vuln_reports/raw", params={"digest": digest, "createdAt": "2026-01-06T00:00:00Z"})
    assert r.status_code == 404 and r.json()["code"] == 5, r.text
    assert http.get("/registry/v1/vuln_reports/raw", params={"digest": "sha256:" + "0" * 64}).status_code == 404
    assert http.get("/registry/v1/vuln_reports/raw", params={"digest": "x"}).status_code == 400

    with server.grpc_channel(server.token) as ch:
        stub = vulnerabilities_pb2_grpc.VulnerabilitiesStub(ch)
        got = stub.ListVulnReports(vulnerabilities_pb2.VulnReportFilter(repo_id=repo))
        assert [i.digest for i in got.items] == [digest, digest]
        assert got.items[0].scanner.name == vulnerabilities_pb2.Scanner.GRYPE
        assert got.items[0].vulnerabilities[0].fix.state == vulnerabilities_pb2.Vulnerability.Fix.FIXED
        raw = stub.GetRawVulnReport(vulnerabilities_pb2.GetRawVulnReportRequest(digest=digest2))
        assert raw.raw_report == GRYPE_REPORT.read_text()
        with pytest.raises(grpc.RpcError) as e:
            stub.GetRawVulnReport(vulnerabilities_pb2.GetRawVulnReportRequest(digest="sha256:" + "0" * 64))
        assert e.value.code() == grpc.StatusCode.NOT_FOUND

    # Another organization's viewer sees none of it; a caller without CAP_VULN_REPORT_LIST neither.
    other = http.post("/iam/v2/groups/", json={"name": "o-" + secrets.token_hex(4)}).json()["uid"]
    _, token = server.identity_with_role(other, "viewer")
    with server.client(token) as c:
        assert listed(c, digest=digest) == []
        assert c.get("/registry/v1/vuln_reports/raw", params={"digest": digest}).status_code == 404
    _, token = server.identity_with_role(org, "registry.pull")  # no vuln_report.list
    with server.client(token) as c:
        assert listed(c, repoId=repo) == []
        assert c.get("/registry/v1/vuln_reports/raw", params={"digest": digest}).status_code == 404
    _, token = server.identity_with_role(org, "viewer")
    with server.client(token) as c:
        assert len(listed(c, repoId=repo)) == 2
