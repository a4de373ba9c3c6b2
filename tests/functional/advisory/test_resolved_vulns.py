"""ListResolvedVulnsReports: per UTC day, the advisories of the named images' SBOM packages whose fixed
event fell that day (advisories of the image's organization only), with OSV severities; by repo uid or
name, tags defaulting to latest; bounded; unscoped authorization."""

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

from platform_api.gen.chainguard.platform.advisory.v2 import advisory_pb2, advisory_pb2_grpc
from tests.helpers import TIMEOUT, imported, mk_repo
from tests.helpers.oci_layouts import descriptor, index, manifest, write_layout

ALPHABET = "23456789cfghjmpqrvwx"
V31 = "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H"


def _cga() -> str:
    return "CGA-" + "-".join("".join(random.choice(ALPHABET) for _ in range(4)) for _ in range(3))


def _ts(text: str) -> timestamp_pb2.Timestamp:
    t = timestamp_pb2.Timestamp()
    t.FromJsonString(text)
    return t


def _image(server: Any, http: httpx.Client, org: str, tmp: Path, packages: list[str]) -> tuple[str, str]:
    """A repo with one imported manifest tagged `latest` and an SPDX SBOM listing `packages`."""
    name = "rv-" + secrets.token_hex(4)
    repo = mk_repo(http, org, name)["uid"]
    config = {"mediaType": "application/vnd.oci.image.config.v1+json", "digest": "sha256:" + "a" * 64, "size": 3}
    doc = {"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json", "config": config,
           "layers": [], "annotations": {"n": secrets.token_hex(8)}}  # fmt: skip
    data = json.dumps(doc).encode()
    (tmp / "m.json").write_bytes(data)
    imported(server, "oci", repo, str(tmp / "m.json"))
    digest = "sha256:" + hashlib.sha256(data).hexdigest()
    r = http.post(f"/registry/v2/tags/{repo}", json={"name": "latest", "digest": digest})
    assert r.status_code == 200, r.text
    imported(server, "sbom", repo, digest, _sbom(tmp, packages))
    return repo, name


def _sbom(tmp: Path, packages: list[str]) -> str:
    """An SPDX SBOM file listing `packages`."""
    sbom = {"spdxVersion": "SPDX-2.3", "dataLicense": "CC0-1.0", "SPDXID": "SPDXRef-DOCUMENT", "name": "s",
            "documentNamespace": "https://example.invalid/s",
            "creationInfo": {"created": "2031-01-01T00:00:00Z", "creators": ["Tool: test"]},
            "packages": [{"SPDXID": f"SPDXRef-{i}", "name": p, "versionInfo": "1.0-r0", "downloadLocation": "NONE"}
                         for i, p in enumerate(packages)]}  # fmt: skip
    (tmp / "sbom.json").write_text(json.dumps(sbom))
    return str(tmp / "sbom.json")


def _advisories(server: Any, group: str, tmp: Path, package: str, fixes: dict[str, tuple[str, str]]) -> None:
    """`import advisories` of one document: {advisory id: (alias, day of its fixed event)}."""
    docs = tmp / f"docs-{secrets.token_hex(3)}"
    docs.mkdir()
    body = "".join(
        f"  - id: {cga}\n    aliases: [{alias}]\n    events:\n"
        f"      - timestamp: {day}T01:00:00Z\n        type: detection\n        data:\n          type: manual\n"
        f"      - timestamp: {day}T12:30:00Z\n        type: fixed\n        data:\n          fixed-version: 1.0-r0\n"
        for cga, (alias, day) in fixes.items()
    )
    (docs / f"{package}.advisories.yaml").write_text(
        f"schema-version: 2.0.2\npackage:\n  name: {package}\nadvisories:\n{body}"
    )
    imported(server, "advisories", str(docs), "--group", group)


def test_reports_per_day(server: Any, http: httpx.Client, org: str, tmp_path: Path) -> None:
    pkg, other_pkg = "rvpkg-" + secrets.token_hex(3), "rvother-" + secrets.token_hex(3)
    repo, name = _image(server, http, org, tmp_path, [pkg, "zlib"])
    cve = f"CVE-2031-{random.randrange(10**6, 10**7)}"
    a1, a2, a3, elsewhere = _cga(), _cga(), _cga(), _cga()
    _advisories(server, org, tmp_path, pkg, {a1: (cve, "2031-03-01"), a2: (f"{cve}1", "2031-03-03"),
                                              a3: (f"{cve}2", "2031-04-01")})  # fmt: skip
    _advisories(server, org, tmp_path, other_pkg, {_cga(): (f"{cve}3", "2031-03-01")})  # not in the SBOM
    other_org = http.post("/iam/v2/groups/", json={"name": "rv-" + secrets.token_hex(4)}).json()["uid"]
    _advisories(server, other_org, tmp_path, pkg, {elsewhere: (f"{cve}4", "2031-03-02")})  # another org's data
    osv = tmp_path / "osv"
    osv.mkdir()
    ghsa = "GHSA-" + "-".join("".join(random.choice(ALPHABET) for _ in range(4)) for _ in range(3))
    (osv / "g.json").write_text(json.dumps({"id": ghsa, "modified": "2031-01-01T00:00:00Z", "aliases": [cve],
                                            "severity": [{"type": "CVSS_V3", "score": V31}]}))  # fmt: skip
    imported(server, "osv", str(osv))

    stub = advisory_pb2_grpc.SecurityAdvisoryServiceStub(server.channel)
    for ref in (advisory_pb2.ImageRef(repo=repo), advisory_pb2.ImageRef(repo=name, tags=["latest", "nope"])):
        req = advisory_pb2.ListResolvedVulnsReportsRequest(
            image_refs=[ref], start_time=_ts("2031-03-01T18:00:00Z"), end_time=_ts("2031-03-03T00:00:00Z")
        )
        got = stub.ListResolvedVulnsReports(req, timeout=TIMEOUT)
        days = [(r.date.ToJsonString(), [(v.id, list(v.aliases)) for v in r.resolved_vulns])
                for r in got.resolved_vulns_reports]  # fmt: skip
        assert days == [
            ("2031-03-01T00:00:00Z", [(a1, [cve])]),
            ("2031-03-02T00:00:00Z", []),
            ("2031-03-03T00:00:00Z", [(a2, [f"{cve}1"])]),
        ]
        first = got.resolved_vulns_reports[0].resolved_vulns[0]
        assert [(s.type, s.score) for s in first.cvss_severities] == [(advisory_pb2.Severity.TYPE_CVSS_V3, V31)]


def test_bad_requests_and_authorization(server: Any, http: httpx.Client, anon: httpx.Client, org: str) -> None:
    r = http.get("/advisory/v2/images/resolvedVulns", params={"startTime": "2031-01-01T00:00:00Z",
                                                              "endTime": "2031-01-02T00:00:00Z"})  # fmt: skip
    assert r.status_code == 400 and "image_refs" in r.text
    assert anon.get("/advisory/v2/images/resolvedVulns").status_code == 401
    stub = advisory_pb2_grpc.SecurityAdvisoryServiceStub(server.channel)
    repo = mk_repo(http, org, "rvb-" + secrets.token_hex(4))["uid"]

    def call(ref: str, start: str = "2031-01-01T00:00:00Z", end: str = "2031-01-02T00:00:00Z") -> grpc.RpcError:
        req = advisory_pb2.ListResolvedVulnsReportsRequest(
            image_refs=[advisory_pb2.ImageRef(repo=ref)], start_time=_ts(start), end_time=_ts(end)
        )
        with pytest.raises(grpc.RpcError) as e:
            stub.ListResolvedVulnsReports(req, timeout=TIMEOUT)
        return e.value

    assert call(repo, end="2032-06-01T00:00:00Z").code() == grpc.StatusCode.INVALID_ARGUMENT  # > 366 days
    assert call(repo, start="2031-01-03T00:00:00Z").code() == grpc.StatusCode.INVALID_ARGUMENT  # end < start
    assert call(f"{org}/{'0' * 16}").code() == grpc.StatusCode.NOT_FOUND
    assert call("no-such-repo-" + secrets.token_hex(3)).code() == grpc.StatusCode.NOT_FOUND
    # A caller who holds the capabilities only in another organization sees no repo here.
    other = http.post("/iam/v2/groups/", json={"name": "rvx-" + secrets.token_hex(4)}).json()["uid"]
    _, token = server.identity_with_role(other, "viewer")
    with server.grpc_channel(token) as channel:
        stranger = advisory_pb2_grpc.SecurityAdvisoryServiceStub(channel)
        req = advisory_pb2.ListResolvedVulnsReportsRequest(
            image_refs=[advisory_pb2.ImageRef(repo=repo)], start_time=_ts("2031-01-01T00:00:00Z"),
            end_time=_ts("2031-01-01T00:00:00Z"),
        )  # fmt: skip
        with pytest.raises(grpc.RpcError) as e:
            stranger.ListResolvedVulnsReports(req, timeout=TIMEOUT)
        assert e.value.code() == grpc.StatusCode.NOT_FOUND


def _request(refs: list[Any], day: str) -> advisory_pb2.ListResolvedVulnsReportsRequest:
    return advisory_pb2.ListResolvedVulnsReportsRequest(
        image_refs=refs, start_time=_ts(f"{day}T00:00:00Z"), end_time=_ts(f"{day}T00:00:00Z")
    )


def test_many_refs_to_a_wide_index(server: Any, http: httpx.Client, org: str, tmp_path: Path) -> None:
    """10 refs (by uid and by name) to one index of 40 platform manifests: one answer, as for one ref (the
    unit test tests/unit/registry/test_resolved_reads.py counts the reads); past the cap on images per
    request, INVALID_ARGUMENT."""
    name = "rvw-" + secrets.token_hex(4)
    repo = mk_repo(http, org, name)["uid"]
    root = tmp_path / "wide"
    platforms = [manifest(root, "linux", f"arch{n}") for n in range(40)]
    write_layout(root, {"latest": index(root, [descriptor(m) for m in platforms])})
    imported(server, "oci", repo, str(root))
    pkg = "rvwide-" + secrets.token_hex(3)
    imported(server, "sbom", repo, platforms[-1]["digest"], _sbom(tmp_path, [pkg]))
    cga = _cga()
    _advisories(server, org, tmp_path, pkg, {cga: (f"CVE-2031-{random.randrange(10**6, 10**7)}", "2031-05-05")})
    refs = [advisory_pb2.ImageRef(repo=repo)] * 5 + [advisory_pb2.ImageRef(repo=name, tags=["latest"])] * 5
    stub = advisory_pb2_grpc.SecurityAdvisoryServiceStub(server.channel)
    got = stub.ListResolvedVulnsReports(_request(refs, "2031-05-05"), timeout=TIMEOUT)
    assert [[v.id for v in r.resolved_vulns] for r in got.resolved_vulns_reports] == [[cga]]

    # An index of 1,000 entries and the index itself: 1,001 images, one more than a request may read.
    entries = [{"mediaType": "application/vnd.oci.image.manifest.v1+json", "size": 1,
                "digest": "sha256:" + hashlib.sha256(b"%d" % n).hexdigest()} for n in range(1000)]  # fmt: skip
    doc = tmp_path / "thousand.json"
    doc.write_text(json.dumps({"schemaVersion": 2, "mediaType": "application/vnd.oci.image.index.v1+json",
                               "manifests": entries}))  # fmt: skip
    imported(server, "oci", repo, str(doc))
    digest = "sha256:" + hashlib.sha256(doc.read_bytes()).hexdigest()
    assert http.post(f"/registry/v2/tags/{repo}", json={"name": "big", "digest": digest}).status_code == 200
    with pytest.raises(grpc.RpcError) as e:
        stub.ListResolvedVulnsReports(_request([advisory_pb2.ImageRef(repo=repo, tags=["big"])], "2031-05-05"))
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "more than 1000 images" in str(e.value.details())
