"""`platform-api import vulnreport` (Grype JSON) and the v1 calls with no v2 counterpart, over both
transports, on the v1 contract's messages (a client generated from the vendor's v1 protos decodes them):
Registry.GetVulnReport, Vulnerabilities.ListVulnCountReports, bad reports change nothing; authorization as
the v1 contract says."""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
from collections.abc import Callable
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
from tests.helpers import error_info, rpc_error, run_db, run_import
from tests.helpers.registry import GRYPE_REPORT, counts, image

REPORT = GRYPE_REPORT


def report_with(tmp_path: Path, timestamp: str, drop_critical: bool = False) -> Path:
    doc = json.loads(REPORT.read_text())
    doc["descriptor"]["timestamp"] = timestamp
    if drop_critical:
        doc["matches"] = doc["matches"][1:]
    path = tmp_path / f"report-{secrets.token_hex(4)}.json"
    path.write_text(json.dumps(doc))
    return path


def test_vulnreport_get_and_counts(server: Any, http: httpx.Client, org: str, tmp_path: Path) -> None:
    repo, name, digest = image(server, http, org, tmp_path, ("latest", "1.0"))
    summary = json.loads(server.cli("import", "vulnreport", repo, digest, str(REPORT)))
    assert summary["reports"] == {"created": 1, "updated": 0, "unchanged": 0}
    again = json.loads(server.cli("import", "vulnreport", repo, digest, str(REPORT)))
    assert again["reports"] == {"created": 0, "updated": 0, "unchanged": 1}

    r = http.get(f"/registry/v1/repos/{repo}/digests/{digest}/vulnreport")
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["id"] == hashlib.sha256(REPORT.read_bytes()).hexdigest()
    assert body["scanner"] == {"name": "grype", "version": "0.74.0"}
    assert body["reportGeneration"] == "2026-01-02T03:04:05.123Z"
    assert body["vulnerabilityDbLastBuildTime"] == "2026-01-01T06:07:08Z"
    assert base64.b64decode(body["rawVulnReport"]) == REPORT.read_bytes()
    assert body["lastSeen"]
    first, second, third = body["vulnerabilityMatches"]
    assert first["vulnerability"] == {
        "id": "CVE-2024-0001", "description": "A buffer overflow in the example parser.", "severity": "CRITICAL",
        "source": "wolfi:distro:wolfi:rolling", "cvss": [{"score": "9.8", "version": "3.1"}],
        "relatedUrls": ["https://nvd.nist.gov/vuln/detail/CVE-2024-0001"], "displayId": "CVE-2024-0001",
    }  # fmt: skip
    assert first["pkg"] == {"id": "6f3e2a1b9c8d7e6f", "name": "openssl", "version": "3.3.2-r0",
                            "license": "Apache-2.0", "purl": "pkg:apk/wolfi/openssl@3.3.2-r0?arch=x86_64"}  # fmt: skip
    assert first["fix"] == {"versions": ["3.3.3-r0"], "state": "FIXED"}
    assert second["vulnerability"]["displayId"] == "CVE-2024-0002"
    assert second["vulnerability"]["relatedVulnerabilities"] == [{"id": "CVE-2024-0002", "source": "nvd:cpe"}]
    assert second["fix"] == {"state": "NOT_FIXED"} and second["pkg"]["license"] == "Apache-2.0"
    assert third["vulnerability"]["severity"] == "LOW" and "fix" not in third

    items = counts(http, repo=name)
    assert [(i["repo"], i["tag"], i["date"]) for i in items] == [
        (name, "1.0", "2026-01-02T00:00:00Z"), (name, "latest", "2026-01-02T00:00:00Z")]  # fmt: skip
    one = items[0]
    # The contract's VulnCount.count is an int32: a JSON number.
    assert one["vulnCounts"] == [{"severity": "MEDIUM", "count": 1}, {"severity": "CRITICAL", "count": 1},
                                 {"severity": "NEGLIGIBLE", "count": 1}]  # fmt: skip
    assert one["cveIds"] == ["CVE-2024-0001", "CVE-2024-0002", "CVE-2024-0003"]
    assert (one["critCveIds"], one["medCveIds"], one["negligibleCveIds"]) == (
        ["CVE-2024-0001"],
        ["CVE-2024-0002"],
        ["CVE-2024-0003"],
    )
    assert int(one["sizeBytes"]) > 1000
    assert [i["tag"] for i in counts(http, repo=name, tag="latest")] == ["latest"]
    assert counts(http, repo=name, **{"from": "2026-01-03T00:00:00Z"}) == []
    assert len(counts(http, repo=name, to="2026-01-02T23:00:00Z")) == 2

    # A later scan the same day replaces that day's counts; another day adds a row; the latest is served.
    server.cli("import", "vulnreport", repo, digest, str(report_with(tmp_path, "2026-01-02T09:00:00Z", True)))
    server.cli("import", "vulnreport", repo, digest, str(report_with(tmp_path, "2026-01-05T09:00:00Z")))
    items = counts(http, repo=name, tag="latest")
    assert [(i["date"][:10], len(i["cveIds"])) for i in items] == [("2026-01-02", 2), ("2026-01-05", 3)]
    latest = http.get(f"/registry/v1/repos/{repo}/digests/{digest}/vulnreport").json()
    assert latest["reportGeneration"] == "2026-01-05T09:00:00Z"

    with server.grpc_channel(server.token) as ch:
        stub = registry_pb2_grpc.RegistryStub(ch)
        got = stub.GetVulnReport(registry_pb2.VulnReportRequest(repo_id=repo, digest=digest))
        assert got.scanner.name == "grype" and len(got.vulnerability_matches) == 3
        assert got.raw_vuln_report.startswith(b"{")
        assert [(c.score, c.version) for c in got.vulnerability_matches[0].vulnerability.cvss] == [("9.8", "3.1")]
        # ListVulnCountReports is the Vulnerabilities service's, as in the contract.
        vulns = vulnerabilities_pb2_grpc.VulnerabilitiesStub(ch)
        listed = vulns.ListVulnCountReports(vulnerabilities_pb2.VulnCountReportFilter(repo=name, tag="1.0"))
        assert [i.tag for i in listed.items] == ["1.0", "1.0"]
        # The day's later scan (no critical) is the one counted.
        severity = vulnerabilities_pb2.Vulnerability
        assert [(c.severity, c.count) for c in listed.items[0].vuln_counts] == [
            (severity.MEDIUM, 1), (severity.NEGLIGIBLE, 1)]  # fmt: skip
        err, st = rpc_error(vulns.ListCumulativeVulnCountReports, vulnerabilities_pb2.VulnCountReportFilter(repo=name))
        assert err.code() == grpc.StatusCode.UNIMPLEMENTED and error_info(st).reason == "UNIMPLEMENTED"
        with pytest.raises(grpc.RpcError) as e:
            stub.GetVulnReport(registry_pb2.VulnReportRequest(repo_id=repo, digest="sha256:" + "0" * 64))
        assert e.value.code() == grpc.StatusCode.NOT_FOUND


def test_not_found(server: Any, http: httpx.Client, org: str, tmp_path: Path) -> None:
    repo, _, digest = image(server, http, org, tmp_path, ("latest",))
    r = http.get(f"/registry/v1/repos/{repo}/digests/{digest}/vulnreport")
    assert r.status_code == 404 and r.json()["code"] == 5, r.text
    assert http.get(f"/registry/v1/repos/{repo}/digests/nope/vulnreport").status_code == 400


def _vulnerability(key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    """A change to the first match's vulnerability of the good report."""

    def change(doc: dict[str, Any]) -> None:
        doc["matches"][0]["vulnerability"][key] = value

    return change


def _score(value: Any) -> Callable[[dict[str, Any]], None]:
    return _vulnerability("cvss", [{"version": "3.1", "metrics": {"baseScore": value}}])


BAD: dict[str, tuple[dict[str, Any] | Callable[[dict[str, Any]], None], str]] = {
    "trivy": ({"SchemaVersion": 2, "Results": []}, "a Trivy report"),
    "other": ({"hello": 1}, "not a Grype JSON report"),
    "scanner": ({"matches": [], "descriptor": {"name": "syft", "timestamp": "2026-01-01T00:00:00Z"}}, "is not grype"),
    "time": ({"matches": [], "descriptor": {"name": "grype", "timestamp": "yesterday"}}, "$.descriptor.timestamp"),
    "severity": (_vulnerability("severity", "Dire"), "$.matches[0].vulnerability.severity: unknown severity 'dire'"),
    "fix": (_vulnerability("fix", {"state": "maybe"}), "$.matches[0].vulnerability.fix.state: unknown fix state"),
    "matches": (
        {"matches": {}, "descriptor": {"name": "grype", "timestamp": "2026-01-01T00:00:00Z"}},
        "$.matches: must be a list",
    ),
    # Scores msgspec would store as null (GetVulnReport could not read them back), or that are no CVSS score.
    "nan": (_score(float("nan")), ": NaN is not a finite number"),
    "infinity": (_score(float("inf")), ": Infinity is not a finite number"),
    "1e400": (lambda doc: None, ": 1e400 is not a finite number"),
    "huge": (_score(10**400), "$.matches[0].vulnerability.cvss[0].metrics.baseScore: must be a number from 0 to 10"),
    "negative": (_score(-1), "$.matches[0].vulnerability.cvss[0].metrics.baseScore: must be a number from 0 to 10"),
    # What neither database stores nor the API accepts.
    "nul": (_vulnerability("description", "a\x00b"), "$.matches[0].vulnerability.description: contains a NUL"),
    "surrogate": (_vulnerability("id", "CVE-\udc00"), "$.matches[0].vulnerability.id: contains a lone UTF-16"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_reports_change_nothing(case: str, server: Any, http: httpx.Client, org: str, tmp_path: Path) -> None:
    repo, name, digest = image(server, http, org, tmp_path, ("latest",))
    doc, want = BAD[case]
    if callable(doc):
        change, doc = doc, json.loads(REPORT.read_text())
        change(doc)
    text = json.dumps(doc)
    if case == "1e400":
        text = text.replace('"baseScore": 9.8', '"baseScore": 1e400')
    path = tmp_path / "bad.json"
    path.write_text(text)
    r = run_import(server, "vulnreport", repo, digest, str(path))
    assert r.returncode == exit_codes.INVALID and want in r.stderr and str(path) in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert http.get(f"/registry/v1/repos/{repo}/digests/{digest}/vulnreport").status_code == 404
    assert counts(http, repo=name) == []


def test_a_report_too_large_to_answer_is_refused(server: Any, http: httpx.Client, org: str, tmp_path: Path) -> None:
    """GetVulnReport answers the raw report whole (base64): a report over 16 MiB would make answers beyond
    the server's backstop, so it is refused at import (a sparse file: refused from its size, unread)."""
    repo, _, digest = image(server, http, org, tmp_path, ("latest",))
    path = tmp_path / "big.json"
    with path.open("wb") as f:
        f.truncate((16 << 20) + 1)
    r = run_import(server, "vulnreport", repo, digest, str(path))
    assert r.returncode == exit_codes.INVALID and "over the limit of 16777216 bytes" in r.stderr, r.stderr


def test_a_stored_non_finite_score_is_read_as_none(server: Any, http: httpx.Client, org: str, tmp_path: Path) -> None:
    """Reports imported before NaN was refused hold the null msgspec wrote for it: GetVulnReport reads it as
    no score (it answered 500 on every call) over both transports."""
    repo, _, digest = image(server, http, org, tmp_path, ("latest",))
    server.cli("import", "vulnreport", repo, digest, str(REPORT))

    async def as_stored_before(database: Any) -> None:
        body = await database.fetchval("SELECT body FROM vuln_reports WHERE repo = $1", repo)
        assert '"score":"9.8"' in body
        await database.execute("UPDATE vuln_reports SET body = $2 WHERE repo = $1", repo,
                               body.replace('"score":"9.8"', '"score":null'))  # fmt: skip

    run_db(server, as_stored_before)
    r = http.get(f"/registry/v1/repos/{repo}/digests/{digest}/vulnreport")
    assert r.status_code == 200, r.text
    assert r.json()["vulnerabilityMatches"][0]["vulnerability"]["cvss"] == [{"version": "3.1"}]
    with server.grpc_channel(server.token) as ch:
        got = registry_pb2_grpc.RegistryStub(ch).GetVulnReport(registry_pb2.VulnReportRequest(repo_id=repo,
                                                                                            digest=digest))  # fmt: skip
        assert got.vulnerability_matches[0].vulnerability.cvss[0].score == ""


def test_a_score_stored_as_a_number_is_read_as_the_contracts_string(
    server: Any, http: httpx.Client, org: str, tmp_path: Path
) -> None:
    """Reports imported before the v1 contract's messages hold CVSS scores as numbers: GetVulnReport answers
    them as the contract's strings, over both transports."""
    repo, _, digest = image(server, http, org, tmp_path, ("latest",))
    server.cli("import", "vulnreport", repo, digest, str(REPORT))

    async def as_stored_before(database: Any) -> None:
        body = await database.fetchval("SELECT body FROM vuln_reports WHERE repo = $1", repo)
        await database.execute("UPDATE vuln_reports SET body = $2 WHERE repo = $1", repo,
                               body.replace('"score":"9.8"', '"score":9.8'))  # fmt: skip

    run_db(server, as_stored_before)
    r = http.get(f"/registry/v1/repos/{repo}/digests/{digest}/vulnreport")
    assert r.status_code == 200, r.text
    assert r.json()["vulnerabilityMatches"][0]["vulnerability"]["cvss"] == [{"score": "9.8", "version": "3.1"}]
    with server.grpc_channel(server.token) as ch:
        got = registry_pb2_grpc.RegistryStub(ch).GetVulnReport(registry_pb2.VulnReportRequest(repo_id=repo,
                                                                                            digest=digest))  # fmt: skip
        assert got.vulnerability_matches[0].vulnerability.cvss[0].score == "9.8"


def test_unknown_image(server: Any, http: httpx.Client, org: str, tmp_path: Path) -> None:
    repo, _, _ = image(server, http, org, tmp_path, ("latest",))
    r = run_import(server, "vulnreport", repo, "sha256:" + "2" * 64, str(REPORT))
    assert r.returncode == exit_codes.INVALID and "not known in repo" in r.stderr, r.stderr
    (tmp_path / "trunc.json").write_text(REPORT.read_text()[:300])
    r = run_import(server, "vulnreport", repo, "sha256:" + "2" * 64, str(tmp_path / "trunc.json"))
    assert r.returncode == exit_codes.INVALID and "malformed JSON" in r.stderr, r.stderr


def test_authorization(server: Any, http: httpx.Client, anon: httpx.Client, org: str, tmp_path: Path) -> None:
    repo, name, digest = image(server, http, org, tmp_path, ("latest",))
    server.cli("import", "vulnreport", repo, digest, str(REPORT))
    path = f"/registry/v1/repos/{repo}/digests/{digest}/vulnreport"
    assert anon.get(path).status_code == 401
    assert anon.get("/registry/v1/vuln_reports/counts").status_code == 401
    role = http.post(
        f"/iam/v2/roles/{org}", json={"name": "r-" + secrets.token_hex(4), "capabilities": ["CAP_REPO_LIST"]}
    )
    assert role.status_code == 200, role.text
    _, token = server.identity_with_role(org, role.json()["uid"])
    with server.client(token) as c:
        assert c.get(path).status_code == 403
        assert counts(c, repo=name) == []  # unscoped: filtered to what the caller may list, not refused
    _, token = server.identity_with_role(org, "registry.pull")  # vuln_reports.list (tenant), no vuln_report.list
    with server.client(token) as c:
        assert c.get(path).status_code == 200
        assert counts(c, repo=name) == []
    _, token = server.identity_with_role(org, "viewer")
    with server.client(token) as c:
        assert [i["repo"] for i in counts(c, repo=name)] == [name]
    # Someone else's organization sees none of this one's counts.
    other = http.post("/iam/v2/groups/", json={"name": "o-" + secrets.token_hex(4)}).json()["uid"]
    _, token = server.identity_with_role(other, "viewer")
    with server.client(token) as c:
        assert counts(c, repo=name) == []
        assert c.get(path).status_code == 404  # a repo the caller cannot see is not revealed
