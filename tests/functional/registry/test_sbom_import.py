"""`platform-api import sbom`: SPDX 2.3 and CycloneDX 1.5 JSON into an image's packages; idempotent,
a changed SBOM writes only the difference, bad input (other SPDX versions, a document or package without what
SPDX requires of it) changes nothing; `sboms.packages` reads them."""

from __future__ import annotations

import asyncio
import hashlib
import json
import secrets
from pathlib import Path
from typing import Any

import httpx
import pytest

from platform_api.registry import sboms
from platform_api.store import db
from tests.helpers import imported, mk_repo, refused

DATA = Path(__file__).resolve().parents[2] / "data" / "sbom"


def make_image(server: Any, http: httpx.Client, org: str, tmp_path: Path) -> tuple[str, str]:
    """A repo holding one imported manifest: (repo uid, digest)."""
    repo = mk_repo(http, org)["uid"]
    layer = {"mediaType": "application/vnd.oci.image.layer.v1.tar+gzip", "digest": "sha256:" + "b" * 64, "size": 7}
    config = {"mediaType": "application/vnd.oci.image.config.v1+json", "digest": "sha256:" + "a" * 64, "size": 3}
    doc = {"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json", "config": config,
           "layers": [layer], "annotations": {"n": secrets.token_hex(8)}}  # fmt: skip
    data = json.dumps(doc).encode()
    path = tmp_path / f"manifest-{secrets.token_hex(4)}.json"
    path.write_bytes(data)
    imported(server, "oci", repo, str(path))
    return repo, "sha256:" + hashlib.sha256(data).hexdigest()


def packages(server: Any, repo: str, digests: list[str]) -> list[tuple[str, str, str]]:
    async def go() -> list[sboms.Package]:
        database = await db.connect(server.database_url)
        try:
            return await sboms.packages(database, repo, digests)
        finally:
            await database.close()

    return [tuple(p) for p in asyncio.run(go())]  # type: ignore[misc]


def test_spdx_and_cyclonedx(server: Any, http: httpx.Client, org: str, tmp_path: Path) -> None:
    repo, digest = make_image(server, http, org, tmp_path)
    summary = imported(server, "sbom", repo, digest, str(DATA / "spdx-2.3.json"))
    assert summary["sbom"]["created"] == 1 and summary["packages"] == {"created": 3, "removed": 0, "unchanged": 0}
    assert packages(server, repo, [digest]) == [
        ("glibc", "2.40-r1", "pkg:apk/wolfi/glibc@2.40-r1?arch=x86_64"),
        ("openssl", "3.3.2-r0", "pkg:apk/wolfi/openssl@3.3.2-r0?arch=x86_64"),
        ("readme-without-version", "", ""),
    ]
    again = imported(server, "sbom", repo, digest, str(DATA / "spdx-2.3.json"))
    assert again["sbom"]["unchanged"] == 1 and (again["created"], again["unchanged"]) == (0, 3)
    # Another SBOM for the same image replaces it, writing the difference only.
    changed = imported(server, "sbom", repo, digest, str(DATA / "cyclonedx-1.5.json"))
    assert changed["sbom"]["updated"] == 1
    assert changed["packages"] == {"created": 3, "removed": 2, "unchanged": 1}
    assert [p[0] for p in packages(server, repo, [digest])] == ["openssl", "python", "requests", "urllib3"]
    assert packages(server, repo, []) == []
    assert packages(server, repo, ["sha256:" + "0" * 64]) == []


def spdx_doc(packages: list[Any] | None = None, drop: str = "", **fields: Any) -> str:
    """An SPDX 2.3 document with every field SPDX requires (less `drop`, a JSON path below `$.`; `fields`
    replacing the document's own) and `packages`."""
    doc: dict[str, Any] = {
        "spdxVersion": "SPDX-2.3", "dataLicense": "CC0-1.0", "SPDXID": "SPDXRef-DOCUMENT", "name": "n",
        "documentNamespace": "https://example.invalid/n",
        "creationInfo": {"created": "2026-01-02T03:04:05Z", "creators": ["Tool: t"]},
        "packages": packages if packages is not None else [dict(PACKAGE)],
    } | fields  # fmt: skip
    if drop:
        *parents, last = drop.split(".")
        holder = doc
        for key in parents:
            holder = holder[key] if not key.isdigit() else holder[int(key)]
        del holder[last]
    return json.dumps(doc)


PACKAGE = {"SPDXID": "SPDXRef-p", "name": "p", "downloadLocation": "NOASSERTION"}

BAD = {
    "truncated": ('{"spdxVersion": "SPDX-2.3", "packages": [', "malformed JSON"),
    "spdx-version": ('{"spdxVersion": "SPDX-3.0", "packages": []}', "$.spdxVersion: unsupported SPDX version"),
    # What the README promises is SPDX 2.3, and a document SPDX would accept (issue 29 item 8).
    "spdx-2.2": (spdx_doc(spdxVersion="SPDX-2.2"), "$.spdxVersion: unsupported SPDX version 'SPDX-2.2'"),
    "spdx-stub": ('{"spdxVersion": "SPDX-2.3", "packages": []}', "$.dataLicense: missing: an SPDX document requires"),
    **{
        f"spdx-no-{field}": (spdx_doc(drop=field), f"$.{field}: missing")
        for field in ("dataLicense", "SPDXID", "name", "documentNamespace", "creationInfo")
    },
    "spdx-no-created": (spdx_doc(drop="creationInfo.created"), "$.creationInfo.created: missing"),
    "spdx-bad-created": (
        spdx_doc(creationInfo={"created": "yesterday", "creators": ["Tool: t"]}),
        "$.creationInfo.created: 'yesterday' is not a time",
    ),
    "spdx-no-creators": (spdx_doc(drop="creationInfo.creators"), "$.creationInfo.creators: missing"),
    "spdx-empty-creators": (
        spdx_doc(creationInfo={"created": "2026-01-02T03:04:05Z", "creators": []}),
        "$.creationInfo.creators: missing",
    ),
    "spdx-empty-name": (spdx_doc(name=""), "$.name: name must be a non-empty string"),
    **{
        f"spdx-package-no-{field}": (spdx_doc(drop=f"packages.0.{field}"), f"$.packages[0].{field}: missing")
        for field in ("SPDXID", "name", "downloadLocation")
    },
    "cdx-version": ('{"bomFormat": "CycloneDX", "specVersion": "1.2"}', "unsupported CycloneDX version '1.2'"),
    "neither": ('{"hello": 1}', "neither SPDX"),
    "not-object": ("[1, 2]", "must be a JSON object"),
    "name-type": (spdx_doc([PACKAGE | {"name": 5}]), "$.packages[0].name: name must be"),
    "packages-type": (spdx_doc(packages={}), "$.packages: must be a list"),  # type: ignore[arg-type]
    "component": (
        '{"bomFormat": "CycloneDX", "specVersion": "1.6",'
        ' "components": [{"name": "a", "components": [{"version": "1"}]}]}',
        "$.components[0].components[0].name",
    ),
    # What neither database stores nor the API accepts, and numbers that are not JSON (issue 16).
    "nul": (
        '{"spdxVersion": "SPDX-2.3", "packages": [{"name": "a\\u0000"}]}',
        "$.packages[0].name: contains a NUL character",
    ),
    "surrogate": (
        '{"bomFormat": "CycloneDX", "specVersion": "1.6", "components": [{"name": "a", "version": "\\udfff"}]}',
        "$.components[0].version: contains a lone UTF-16 surrogate (U+DFFF)",
    ),
    "infinity": ('{"spdxVersion": "SPDX-2.3", "packages": [], "x": -Infinity}', "1:50: -Infinity is not a finite"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_sboms_change_nothing(case: str, server: Any, http: httpx.Client, org: str, tmp_path: Path) -> None:
    repo, digest = make_image(server, http, org, tmp_path)
    imported(server, "sbom", repo, digest, str(DATA / "spdx-2.3.json"))
    before = packages(server, repo, [digest])
    text, want = BAD[case]
    path = tmp_path / f"{case}.json"
    path.write_text(text)
    _, line = refused(server, "sbom", repo, digest, str(path))
    assert want in line and str(path) in line, line
    assert packages(server, repo, [digest]) == before


def test_unknown_image_or_repo(server: Any, http: httpx.Client, org: str, tmp_path: Path) -> None:
    repo, digest = make_image(server, http, org, tmp_path)
    other = "sha256:" + "1" * 64
    _, line = refused(server, "sbom", repo, other, str(DATA / "spdx-2.3.json"))
    assert "not known in repo" in line, line
    _, line = refused(server, "sbom", repo, "sha256:XYZ", str(DATA / "spdx-2.3.json"))
    assert "is not sha256" in line, line
    _, line = refused(server, "sbom", org + "/0123456789abcdef", digest, str(DATA / "spdx-2.3.json"))
    assert "no such repo" in line, line
    assert packages(server, repo, [other, digest]) == []
