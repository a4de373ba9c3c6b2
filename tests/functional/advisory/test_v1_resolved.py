"""v1 ListResolvedVulnsReports (`/advisory/v1/images/resolved_vulns`, chainguard.platform.advisory.
SecurityAdvisory) over the v2 implementation: the same reports for the same image (days, advisories, aliases,
severities), `from`/`to` for v2's start_time/end_time (in errors too), the same authorization; over gRPC with
the contract's messages (its `imageRefs` cannot be sent in a query string) and over HTTP."""

from __future__ import annotations

import hashlib
import json
import random
import secrets
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest
from google.protobuf import timestamp_pb2
from google.rpc import error_details_pb2

from platform_api.gen.chainguard.platform.advisory.v1 import advisory_pb2, advisory_pb2_grpc
from platform_api.gen.chainguard.platform.advisory.v2 import advisory_pb2 as v2_pb2
from platform_api.gen.chainguard.platform.advisory.v2 import advisory_pb2_grpc as v2_pb2_grpc
from tests.helpers import BACKENDS, TIMEOUT, Server, assert_error, imported, mk_repo, rpc_error, unpack

ALPHABET = "23456789cfghjmpqrvwx"


def ts(text: str) -> timestamp_pb2.Timestamp:
    t = timestamp_pb2.Timestamp()
    t.FromJsonString(text)
    return t


def cga() -> str:
    return "CGA-" + "-".join("".join(random.choice(ALPHABET) for _ in range(4)) for _ in range(3))


def image_with(server: Server, http: httpx.Client, org: str, tmp: Path, package: str) -> str:
    """A repo whose `latest` is an imported manifest with an SPDX SBOM listing `package`: the repo's uid."""
    repo = mk_repo(http, org, "rv1-" + secrets.token_hex(4))["uid"]
    config = {"mediaType": "application/vnd.oci.image.config.v1+json", "digest": "sha256:" + "a" * 64, "size": 3}
    manifest = {"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json", "config": config,
                "layers": [], "annotations": {"n": secrets.token_hex(8)}}  # fmt: skip
    data = json.dumps(manifest).encode()
    (tmp / "m.json").write_bytes(data)
    imported(server, "oci", repo, str(tmp / "m.json"))
    digest = "sha256:" + hashlib.sha256(data).hexdigest()
    assert http.post(f"/registry/v2/tags/{repo}", json={"name": "latest", "digest": digest}).status_code == 200
    sbom = {"spdxVersion": "SPDX-2.3", "dataLicense": "CC0-1.0", "SPDXID": "SPDXRef-DOCUMENT", "name": "s",
            "documentNamespace": "https://example.invalid/s",
            "creationInfo": {"created": "2031-01-01T00:00:00Z", "creators": ["Tool: test"]},
            "packages": [{"SPDXID": "SPDXRef-0", "name": package, "versionInfo": "1.0-r0",
                          "downloadLocation": "NONE"}]}  # fmt: skip
    (tmp / "sbom.json").write_text(json.dumps(sbom))
    imported(server, "sbom", repo, digest, str(tmp / "sbom.json"))
    return repo


def fixed_on(server: Server, org: str, tmp: Path, package: str, fixes: dict[str, tuple[str, str]]) -> None:
    """`import advisories` of one document: {advisory id: (alias, day of its fixed event)}."""
    body = "".join(
        f"  - id: {a}\n    aliases: [{alias}]\n    events:\n"
        f"      - timestamp: {day}T12:30:00Z\n        type: fixed\n        data:\n          fixed-version: 1.0-r0\n"
        for a, (alias, day) in fixes.items()
    )
    docs = tmp / "docs"
    docs.mkdir()
    (docs / f"{package}.advisories.yaml").write_text(
        f"schema-version: 2.0.2\npackage:\n  name: {package}\nadvisories:\n{body}"
    )
    imported(server, "advisories", str(docs), "--group", org)


def days_of(reports: Any, prefix: str) -> list[Any]:
    return [(r.date.ToJsonString(), [(v.id, list(v.aliases), [(type(s).Type.Name(s.type).removeprefix(prefix), s.score)
             for s in v.cvss_severities]) for v in r.resolved_vulns]) for r in reports]  # fmt: skip


def test_reports_are_the_v2_reports(server: Server, http: httpx.Client, org: str, tmp_path: Path) -> None:
    """On the first backend selected only: three imports take seconds, and the adapter adds nothing per
    backend (the v2 twin's reports are tested on both: test_resolved_vulns.py)."""
    if server.backend != BACKENDS[0]:
        pytest.skip("the v1 adapter is backend-independent; its v2 twin runs on every backend")
    package = "rv1pkg-" + secrets.token_hex(3)
    repo = image_with(server, http, org, tmp_path, package)
    cve = f"CVE-2031-{random.randrange(10**6, 10**7)}"
    a1, a2 = cga(), cga()
    fixed_on(server, org, tmp_path, package, {a1: (cve, "2031-03-01"), a2: (f"{cve}1", "2031-03-03")})
    # (No OSV import: the severities' v1 names are ListVulnerabilityMetadata's, tested there.)

    v2 = v2_pb2_grpc.SecurityAdvisoryServiceStub(server.channel).ListResolvedVulnsReports(
        v2_pb2.ListResolvedVulnsReportsRequest(image_refs=[v2_pb2.ImageRef(repo=repo)],
            start_time=ts("2031-03-01T18:00:00Z"), end_time=ts("2031-03-03T00:00:00Z")), timeout=TIMEOUT)  # fmt: skip
    stub = advisory_pb2_grpc.SecurityAdvisoryStub(server.channel)
    window = {"from": ts("2031-03-01T18:00:00Z"), "to": ts("2031-03-03T00:00:00Z")}
    got = stub.ListResolvedVulnsReports(
        advisory_pb2.ResolvedVulnsReportFilter(image_refs=[advisory_pb2.ResolvedVulnsReportFilter.ImageRef(
            repo=repo, tags=["latest"])], **window), timeout=TIMEOUT)  # fmt: skip
    assert (
        days_of(got.items, "")
        == days_of(v2.resolved_vulns_reports, "TYPE_")
        == [
            ("2031-03-01T00:00:00Z", [(a1, [cve], [])]),
            ("2031-03-02T00:00:00Z", []),
            ("2031-03-03T00:00:00Z", [(a2, [f"{cve}1"], [])]),
        ]
    )


def test_bad_requests_and_authorization(server: Server, http: httpx.Client, anon: httpx.Client, org: str) -> None:
    window = {"from": "2031-01-01T00:00:00Z", "to": "2031-01-02T00:00:00Z"}
    assert_error(http.get("/advisory/v1/images/resolved_vulns", params=window), 400, 3, "image_refs")
    assert anon.get("/advisory/v1/images/resolved_vulns", params=window).status_code == 401
    repo = mk_repo(http, org, "rv1b-" + secrets.token_hex(4))["uid"]
    stub = advisory_pb2_grpc.SecurityAdvisoryStub(server.channel)
    ref = advisory_pb2.ResolvedVulnsReportFilter.ImageRef(repo=repo)
    backwards = {"from": ts(window["to"]), "to": ts(window["from"])}
    for fields, field, text in (({"to": ts(window["to"])}, "from", "from is required"),
                                (backwards, "to", "to must not be before from")):  # fmt: skip
        err, st = rpc_error(
            stub.ListResolvedVulnsReports, advisory_pb2.ResolvedVulnsReportFilter(image_refs=[ref], **fields)
        )
        assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
        bad = unpack(st, error_details_pb2.BadRequest)
        assert [(v.field, v.description) for v in bad.field_violations] == [(field, text)]
    # A caller who holds the capabilities only in another organization sees no repo here, as in v2.
    other = http.post("/iam/v2/groups/", json={"name": "rv1x-" + secrets.token_hex(4)}).json()["uid"]
    _, token = server.identity_with_role(other, "viewer")
    with server.grpc_channel(token) as channel:
        request = advisory_pb2.ResolvedVulnsReportFilter(
            image_refs=[ref], **{"from": ts(window["from"]), "to": ts(window["from"])}
        )
        err, _ = rpc_error(advisory_pb2_grpc.SecurityAdvisoryStub(channel).ListResolvedVulnsReports, request)
        assert err.code() == grpc.StatusCode.NOT_FOUND
        mine = advisory_pb2_grpc.SecurityAdvisoryStub(server.channel).ListResolvedVulnsReports(request, timeout=TIMEOUT)
        assert [r.date.ToJsonString() for r in mine.items] == ["2031-01-01T00:00:00Z"]
