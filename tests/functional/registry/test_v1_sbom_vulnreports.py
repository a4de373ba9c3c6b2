"""The v1 calls over imported SBOMs and Grype reports, over HTTP and gRPC on the v1 contract's messages:
Vulnerabilities.ListVulnReports and GetRawVulnReport, Registry.GetSbom and GetRawSbom; what another
organization and a caller without the capabilities see."""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest

from platform_api.ctl import exit_codes
from platform_api.gen.chainguard.platform.registry.v1 import (
    registry_pb2,
    registry_pb2_grpc,
    vulnerabilities_pb2,
    vulnerabilities_pb2_grpc,
)
from tests.helpers import run_db, run_import
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
    imports = server  # its cli runs in this process (tests/helpers/run_cli.py)
    repo, _, digest = image(imports, http, org, tmp_path, ("latest", "1.0"))
    repo2, _, digest2 = image(imports, http, org, tmp_path, ("2.0",))
    later = report_at(tmp_path, "2026-01-05T09:00:00Z")
    imports.cli("import", "vulnreport", repo, digest, str(GRYPE_REPORT))  # 2026-01-02T03:04:05.123Z
    imports.cli("import", "vulnreport", repo, digest, str(later))
    imports.cli("import", "vulnreport", repo2, digest2, str(GRYPE_REPORT))

    _, viewer = server.identity_with_role(org, "viewer")
    mine = server.client(viewer)
    items = listed(mine, repoId=repo)
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

    # Filters: digest, tag, createdSince (to the second), scanner name; both repos without repoId. Asked by a
    # viewer of this organization: the owner sees every test's reports, and images of the same content share
    # their digest across organizations.
    assert len(listed(mine, digest=digest)) == 2
    assert [i["digest"] for i in listed(mine, repoId=repo, tag="1.0")] == [digest, digest]
    assert listed(mine, repoId=repo, tag="2.0") == []
    assert [i["digest"] for i in listed(mine, tag="2.0")] == [digest2]
    assert [i["createdAt"] for i in listed(mine, repoId=repo, createdSince="2026-01-03T00:00:00Z")] == [
        "2026-01-05T09:00:00Z"
    ]
    assert len(listed(mine, repoId=repo, createdSince="2026-01-02T03:04:05.500Z")) == 2  # the same second
    assert len(listed(mine, **{"scanner.name": "GRYPE"})) == 3
    assert listed(mine, **{"scanner.name": "TRIVY"}) == []
    r = mine.get("/registry/v1/vuln_reports", params={"scanner.version": "0.74.0"})
    assert r.status_code == 400 and "scanner.version" in r.text, r.text
    assert mine.get("/registry/v1/vuln_reports", params={"repoId": "nope"}).status_code == 400
    assert listed(http, repoId=org + "/" + "0" * 16) == []

    # GetRawVulnReport: the file as imported; the latest without createdAt, the one asked for with it.
    r = mine.get("/registry/v1/vuln_reports/raw", params={"digest": digest})
    assert r.status_code == 200, r.text
    assert r.json()["rawReport"] == later.read_text() and r.json()["createdAt"] == "2026-01-05T09:00:00Z"
    assert r.json()["scanner"]["name"] == "GRYPE" and "rawReportUrl" not in r.json()
    r = mine.get("/registry/v1/vuln_reports/raw", params={"digest": digest, "createdAt": "2026-01-02T03:04:05.123Z"})
    assert r.status_code == 200 and r.json()["rawReport"] == GRYPE_REPORT.read_text(), r.text
    r = mine.get("/registry/v1/vuln_reports/raw", params={"digest": digest, "createdAt": "2026-01-05T09:00:00.000Z"})
    assert r.status_code == 200 and r.json()["createdAt"] == "2026-01-05T09:00:00Z", r.text
    r = mine.get("/registry/v1/vuln_reports/raw", params={"digest": digest, "createdAt": "2026-01-06T00:00:00Z"})
    assert r.status_code == 404 and r.json()["code"] == 5, r.text
    assert mine.get("/registry/v1/vuln_reports/raw", params={"digest": "sha256:" + "0" * 64}).status_code == 404
    assert mine.get("/registry/v1/vuln_reports/raw", params={"digest": "x"}).status_code == 400

    with server.grpc_channel(viewer) as ch:
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


SBOMS = Path(__file__).resolve().parents[2] / "data" / "sbom"
SPDX = {"name": "sbom-example", "tool": "hand-written", "generatedAt": "2026-01-02T03:04:05.000Z"}


def test_sboms(server: Any, http: httpx.Client, org: str, tmp_path: Path) -> None:
    imports = server  # its cli runs in this process (tests/helpers/run_cli.py)
    repo, _, digest = image(imports, http, org, tmp_path, ("latest",))
    spdx = SBOMS / "spdx-2.3.json"
    imports.cli("import", "sbom", repo, digest, str(spdx))
    path = f"/registry/v1/repos/{repo}/digests/{digest}/sbom"
    r = http.get(path)
    assert r.status_code == 200, r.text
    got = r.json()
    assert {k: got.get(k) for k in SPDX} == SPDX
    assert (got["format"], got["source"], got["digest"]) == ("spdx", "INGESTED", digest)
    assert got["id"] == hashlib.sha256(spdx.read_bytes()).hexdigest() and got["lastSeen"]
    assert base64.b64decode(got["rawSbom"]) == spdx.read_bytes()
    assert [n["package"] for n in got["graph"]["nodes"]] == [
        {"name": "glibc", "version": "2.40-r1", "purl": "pkg:apk/wolfi/glibc@2.40-r1?arch=x86_64"},
        {"name": "openssl", "version": "3.3.2-r0", "purl": "pkg:apk/wolfi/openssl@3.3.2-r0?arch=x86_64"},
        {"name": "readme-without-version"},
    ]
    assert http.get(path, params={"arch": "amd64"}).status_code == 200
    assert http.get(path, params={"arch": "arm64"}).status_code == 404
    raw = f"/registry/v1/repos/{repo}/digest/{digest}/rawsbom"
    r = http.get(raw)
    assert r.status_code == 200 and r.json() == {"rawSbom": spdx.read_text()}, r.text
    r = http.get(f"/registry/v1/repos/{repo}/digest/{digest}/rawsbom", params={"reference": "latest"})
    assert r.status_code == 200 and r.json() == {"rawSbom": spdx.read_text()}, r.text

    # Another document replaces it: CycloneDX metadata.
    doc = json.loads((SBOMS / "cyclonedx-1.5.json").read_text())
    doc["metadata"] |= {"timestamp": "2026-02-03T04:05:06Z", "authors": [{"name": "Ann"}, {"name": "Bo"}],
                        "tools": {"components": [{"name": "syft", "version": "1.0.0"}]}}  # fmt: skip
    cdx = tmp_path / "cdx.json"
    cdx.write_text(json.dumps(doc))
    imports.cli("import", "sbom", repo, digest, str(cdx))
    got = http.get(path).json()
    assert (got["format"], got["tool"], got["authors"], got["generatedAt"], got["name"]) == (
        "cyclonedx", "syft 1.0.0", "Ann, Bo", "2026-02-03T04:05:06.000Z", "example-image")  # fmt: skip
    assert len(got["graph"]["nodes"]) == 4
    assert http.get(raw).json() == {"rawSbom": cdx.read_text()}

    with server.grpc_channel(server.token) as ch:
        stub = registry_pb2_grpc.RegistryStub(ch)
        sbom = stub.GetSbom(registry_pb2.SbomRequest(repo_id=repo, digest=digest))
        assert sbom.format == "cyclonedx" and sbom.raw_sbom == cdx.read_bytes() and sbom.authors == "Ann, Bo"
        assert sbom.generated_at.seconds > 0 and len(sbom.graph.nodes) == 4
        assert stub.GetRawSbom(registry_pb2.RawSbomRequest(repo_id=repo, digest=digest)).rawSbom == cdx.read_text()
        with pytest.raises(grpc.RpcError) as e:
            stub.GetSbom(registry_pb2.SbomRequest(repo_id=repo, digest="sha256:" + "0" * 64))
        assert e.value.code() == grpc.StatusCode.NOT_FOUND

    # An image without an SBOM, an unknown image, a bad digest.
    repo2, _, digest2 = image(imports, http, org, tmp_path, ("x",))
    assert http.get(f"/registry/v1/repos/{repo2}/digests/{digest2}/sbom").status_code == 404
    assert http.get(f"/registry/v1/repos/{repo2}/digest/{digest2}/rawsbom").status_code == 404
    assert http.get(f"/registry/v1/repos/{repo2}/digests/nope/sbom").status_code == 400

    # Imported before documents were kept (migration 0014): packages answered, the document refused.
    async def as_before(database: Any) -> None:
        await database.execute("UPDATE sboms SET raw = NULL, raw_sha256 = NULL WHERE repo = $1", repo)

    run_db(server, as_before)
    got = http.get(path).json()
    assert len(got["graph"]["nodes"]) == 4 and "rawSbom" not in got and "tool" not in got and "id" not in got
    r = http.get(raw)
    assert r.status_code == 400 and r.json()["code"] == 9, r.text
    assert "SBOM_DOCUMENT_NOT_KEPT" in r.text and "import it again" in r.text
    imports.cli("import", "sbom", repo, digest, str(cdx))  # the same packages: the document is kept again
    assert http.get(raw).json() == {"rawSbom": cdx.read_text()}

    # Authorization: another organization's viewer is not shown the repo; a caller without
    # CAP_TENANT_SBOMS_LIST is refused.
    other = http.post("/iam/v2/groups/", json={"name": "o-" + secrets.token_hex(4)}).json()["uid"]
    _, token = server.identity_with_role(other, "viewer")
    with server.client(token) as c:
        assert c.get(path).status_code == 404 and c.get(raw).status_code == 404
    caps = ["CAP_REPO_LIST", "CAP_MANIFEST_METADATA_LIST"]
    role = http.post(f"/iam/v2/roles/{org}", json={"name": "r-" + secrets.token_hex(4), "capabilities": caps})
    _, token = server.identity_with_role(org, role.json()["uid"])
    with server.client(token) as c:
        assert c.get(path).status_code == 403 and c.get(raw).status_code == 403
    _, token = server.identity_with_role(org, "viewer")
    with server.client(token) as c:
        assert c.get(path).status_code == 200 and c.get(raw).status_code == 200


def test_an_sbom_too_large_to_answer_is_refused(server: Any, http: httpx.Client, org: str, tmp_path: Path) -> None:
    """GetRawSbom answers the kept document whole: one over 16 MiB is refused at import (a sparse file:
    refused from its size, unread)."""
    imports = server  # its cli runs in this process (tests/helpers/run_cli.py)
    repo, _, digest = image(imports, http, org, tmp_path, ("latest",))
    path = tmp_path / "big.json"
    with path.open("wb") as f:
        f.truncate((16 << 20) + 1)
    r = run_import(server, "sbom", repo, digest, str(path))
    assert r.returncode == exit_codes.INVALID and "over the limit of 16777216 bytes" in r.stderr, r.stderr
    assert http.get(f"/registry/v1/repos/{repo}/digest/{digest}/rawsbom").status_code == 404
