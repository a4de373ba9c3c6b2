"""Registry resources made over HTTP for the tests that need one, an imported image, and the reads by digest."""

from __future__ import annotations

import hashlib
import json
import secrets
from pathlib import Path
from typing import Any

import httpx

from tests.helpers.iam import ok, unique


def mk_repo(http: httpx.Client, parent: str, name: str | None = None, **fields: Any) -> dict[str, Any]:
    """A repo under the group `parent` with `fields`: the repo as created."""
    return ok(http.post(f"/registry/v2/repos/{parent}", json={"name": name or unique("repo"), **fields}))


def image_architectures(http: httpx.Client, repo: str, digest: str) -> httpx.Response:
    """GET the architectures of the image `digest` in `repo` (ImagesService)."""
    return http.get(f"/registry/v2/repos/{repo}/digests/{digest}/architectures")


def image_size(http: httpx.Client, repo: str, digest: str, arch: str = "") -> httpx.Response:
    """GET the size of the image `digest` in `repo`, of one architecture's manifest when `arch` is given."""
    params = {"architecture": arch} if arch else {}
    return http.get(f"/registry/v2/repos/{repo}/digests/{digest}/size", params=params)


GRYPE_REPORT = Path(__file__).resolve().parents[1] / "data" / "grype" / "report.json"
OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json"


def blob(root: Path, data: bytes, media: str) -> dict[str, Any]:
    hexd = hashlib.sha256(data).hexdigest()
    (root / "blobs" / "sha256").mkdir(parents=True, exist_ok=True)
    (root / "blobs" / "sha256" / hexd).write_bytes(data)
    return {"mediaType": media, "digest": "sha256:" + hexd, "size": len(data)}


def image(server: Any, http: httpx.Client, org: str, tmp_path: Path, tags: tuple[str, ...]) -> tuple[str, str, str]:
    """A repo with one amd64 image tagged `tags`: (repo uid, repo name, digest)."""
    name = "vr-" + secrets.token_hex(4)
    r = http.post(f"/registry/v2/repos/{org}", json={"name": name})
    assert r.status_code == 200, r.text
    repo = r.json()["uid"]
    root = tmp_path / name
    config = blob(
        root, json.dumps({"os": "linux", "architecture": "amd64"}).encode(), "application/vnd.oci.image.config.v1+json"
    )
    layer = blob(root, secrets.token_bytes(1000), "application/vnd.oci.image.layer.v1.tar+gzip")
    doc = {"schemaVersion": 2, "mediaType": OCI_MANIFEST, "config": config, "layers": [layer]}
    m = blob(root, json.dumps(doc).encode(), OCI_MANIFEST)
    top = [m | {"annotations": {"org.opencontainers.image.ref.name": t}} for t in tags]
    (root / "oci-layout").write_text('{"imageLayoutVersion": "1.0.0"}')
    (root / "index.json").write_text(json.dumps({"schemaVersion": 2, "manifests": top}))
    server.cli("import", "oci", repo, str(root))
    return repo, name, m["digest"]


OCI_INDEX = "application/vnd.oci.image.index.v1+json"


def multi_arch_image(
    server: Any,
    http: httpx.Client,
    parent: str,
    tmp_path: Path,
    index_tags: tuple[str, ...],
    amd64_tags: tuple[str, ...],
) -> tuple[str, str, dict[str, str]]:
    """A repo with an index of an amd64 and an arm64 image tagged `index_tags`, its amd64 image tagged
    `amd64_tags` too: (repo uid, repo name, {"index" | architecture: digest})."""
    name = "ma-" + secrets.token_hex(4)
    repo = ok(http.post(f"/registry/v2/repos/{parent}", json={"name": name}))["uid"]
    root = tmp_path / name
    found: dict[str, str] = {}
    entries = []
    for arch in ("amd64", "arm64"):
        config = blob(root, json.dumps({"os": "linux", "architecture": arch}).encode(),
                      "application/vnd.oci.image.config.v1+json")  # fmt: skip
        layer = blob(root, secrets.token_bytes(500), "application/vnd.oci.image.layer.v1.tar+gzip")
        doc = {"schemaVersion": 2, "mediaType": OCI_MANIFEST, "config": config, "layers": [layer]}
        m = blob(root, json.dumps(doc).encode(), OCI_MANIFEST)
        found[arch] = m["digest"]
        entries.append(m | {"platform": {"os": "linux", "architecture": arch}})
    index = blob(
        root, json.dumps({"schemaVersion": 2, "mediaType": OCI_INDEX, "manifests": entries}).encode(), OCI_INDEX
    )
    found["index"] = index["digest"]
    amd64 = entries[0]
    top = [index | {"annotations": {"org.opencontainers.image.ref.name": t}} for t in index_tags]
    top += [amd64 | {"annotations": {"org.opencontainers.image.ref.name": t}} for t in amd64_tags]
    (root / "oci-layout").write_text('{"imageLayoutVersion": "1.0.0"}')
    (root / "index.json").write_text(json.dumps({"schemaVersion": 2, "manifests": top}))
    server.cli("import", "oci", repo, str(root))
    return repo, name, found


def counts(client: httpx.Client, **params: Any) -> list[dict[str, Any]]:
    r = client.get("/registry/v1/vuln_reports/counts", params=params)
    assert r.status_code == 200, r.text
    return list(r.json().get("items", []))
