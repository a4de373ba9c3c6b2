"""`platform-api import sbom`: SPDX 2.3 and CycloneDX 1.5 JSON into an image's packages; idempotent,
a changed SBOM writes only the difference, bad input changes nothing; `sboms.packages` reads them."""

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


BAD = {
    "truncated": ('{"spdxVersion": "SPDX-2.3", "packages": [', "malformed JSON"),
    "spdx-version": ('{"spdxVersion": "SPDX-3.0", "packages": []}', "$.spdxVersion: unsupported SPDX version"),
    "cdx-version": ('{"bomFormat": "CycloneDX", "specVersion": "1.2"}', "unsupported CycloneDX version '1.2'"),
    "neither": ('{"hello": 1}', "neither SPDX"),
    "not-object": ("[1, 2]", "must be a JSON object"),
    "name-type": ('{"spdxVersion": "SPDX-2.3", "packages": [{"name": 5}]}', "$.packages[0].name: name must be"),
    "packages-type": ('{"spdxVersion": "SPDX-2.3", "packages": {}}', "$.packages: must be a list"),
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
