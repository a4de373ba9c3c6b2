"""OCI content written by the registry tests: blobs with real sha256 digests, manifests with their config and
layers, and image indexes nested as deep and wide as a test needs."""

from __future__ import annotations

import hashlib
import json
import secrets
from pathlib import Path
from typing import Any

OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json"
OCI_INDEX = "application/vnd.oci.image.index.v1+json"
DOCKER_MANIFEST = "application/vnd.docker.distribution.manifest.v2+json"
LAYER = "application/vnd.oci.image.layer.v1.tar+gzip"
CONFIG = "application/vnd.oci.image.config.v1+json"
REF_NAME = "org.opencontainers.image.ref.name"


def put_blob(root: Path, data: bytes, media: str) -> dict[str, Any]:
    hexd = hashlib.sha256(data).hexdigest()
    path = root / "blobs" / "sha256" / hexd
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return {"mediaType": media, "digest": "sha256:" + hexd, "size": len(data)}


def put_json(root: Path, doc: dict[str, Any], media: str) -> dict[str, Any]:
    return put_blob(root, json.dumps(doc).encode(), media)


def manifest(root: Path, os_: str, arch: str, variant: str = "", layers: tuple[int, ...] = (100, 50)) -> dict[str, Any]:
    """A manifest blob with its config and layer blobs; its descriptor, plus `expected_size` (config + layers)."""
    config = {"os": os_, "architecture": arch, "rootfs": {"type": "layers", "diff_ids": []}}
    if variant:
        config["variant"] = variant
    config_desc = put_json(root, config, CONFIG)
    layer_descs = [put_blob(root, secrets.token_bytes(n), LAYER) for n in layers]
    doc = {"schemaVersion": 2, "mediaType": OCI_MANIFEST, "config": config_desc, "layers": layer_descs}
    desc = put_json(root, doc, OCI_MANIFEST)
    desc["expected_size"] = config_desc["size"] + sum(layers)
    return desc


def descriptor(d: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """`d` as an entry of an index (without the test's own keys), with `extra` fields (platform, annotations)."""
    return {k: v for k, v in d.items() if k != "expected_size"} | extra


def index(root: Path, entries: list[dict[str, Any]]) -> dict[str, Any]:
    return put_json(root, {"schemaVersion": 2, "mediaType": OCI_INDEX, "manifests": entries}, OCI_INDEX)


def write_layout(root: Path, tagged: dict[str, dict[str, Any]]) -> None:
    """The layout's oci-layout marker and index.json naming each descriptor with its tag."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "oci-layout").write_text(json.dumps({"imageLayoutVersion": "1.0.0"}))
    top = [descriptor(d, annotations={REF_NAME: tag}) for tag, d in tagged.items()]
    (root / "index.json").write_text(json.dumps({"schemaVersion": 2, "mediaType": OCI_INDEX, "manifests": top}))


def nested_layout(root: Path, width: int = 150, depth: int = 3) -> dict[str, Any]:
    """The issue's fan-out: an amd64 and an arm64 manifest; the innermost index lists the amd64 one `width`
    times, then the arm64 one; each of the `depth` - 1 indexes around it lists the one inside `width` times.
    Tagged `latest` (the outermost). Returns {"amd64", "arm64", "indexes": outermost first}."""
    amd64, arm64 = manifest(root, "linux", "amd64"), manifest(root, "linux", "arm64")
    inner = index(root, [descriptor(amd64, platform={"os": "linux", "architecture": "amd64"})] * width
                  + [descriptor(arm64, platform={"os": "linux", "architecture": "arm64"})])  # fmt: skip
    indexes = [inner]
    for _ in range(depth - 1):
        indexes.insert(0, index(root, [indexes[0]] * width))
    write_layout(root, {"latest": indexes[0]})
    return {"amd64": amd64, "arm64": arm64, "indexes": indexes}
