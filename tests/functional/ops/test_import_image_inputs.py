"""`platform-api import <kind>` into an image (sbom, vulnreport, eol, oci) given what is not a readable input
file (issue 16), as test_import_inputs.py does for the feeds: each refused with exit code 1, one line on stderr,
within a bounded memory; and an OCI layout whose manifest or layer blob is a broken symlink.

One backend: inputs are refused before any SQL (tests/helpers/backends.py)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.functional.ops.import_inputs import IMAGE_IMPORTS, REPO, odd_paths, refused, refused_everywhere

pytestmark = pytest.mark.one_backend


@pytest.fixture
def odd(tmp_path: Path) -> Iterator[dict[str, Path]]:
    yield from odd_paths(tmp_path)


@pytest.mark.parametrize("kind", IMAGE_IMPORTS)
def test_every_image_importer_reads_regular_files_only(server: Any, odd: dict[str, Path], kind: str) -> None:
    refused_everywhere(server, odd, kind)


def _layout(root: Path) -> dict[str, Path]:
    """An OCI layout of one manifest: the paths of its manifest, config and layer blobs."""
    paths = {}

    def blob(name: str, data: bytes, media: str) -> dict[str, Any]:
        digest = hashlib.sha256(data).hexdigest()
        paths[name] = root / "blobs" / "sha256" / digest
        paths[name].parent.mkdir(parents=True, exist_ok=True)
        paths[name].write_bytes(data)
        return {"mediaType": media, "digest": "sha256:" + digest, "size": len(data)}

    config = blob("config", b'{"architecture": "amd64", "os": "linux"}', "application/vnd.oci.image.config.v1+json")
    layer = blob("layer", b"a layer", "application/vnd.oci.image.layer.v1.tar+gzip")
    media = "application/vnd.oci.image.manifest.v1+json"
    doc = {"schemaVersion": 2, "mediaType": media, "config": config, "layers": [layer]}
    manifest = blob("manifest", json.dumps(doc).encode(), media)
    (root / "oci-layout").write_text('{"imageLayoutVersion": "1.0.0"}')
    (root / "index.json").write_text(json.dumps({"schemaVersion": 2, "manifests": [manifest]}))
    return paths


@pytest.mark.parametrize("blob", ["manifest", "layer"])
@pytest.mark.parametrize("link", ["dangling", "loop"])
def test_a_layout_blob_that_is_a_broken_symlink(server: Any, tmp_path: Path, blob: str, link: str) -> None:
    root = tmp_path / "layout"
    path = _layout(root)[blob]
    path.unlink()
    if link == "dangling":
        path.symlink_to(root / "blobs" / "gone")
    else:
        path.symlink_to(root / "blobs" / "other")
        (root / "blobs" / "other").symlink_to(path)
    error, line = refused(server, "oci", REPO, str(root))
    problem = "a dangling symlink" if link == "dangling" else "a symlink loop"
    assert (error["file"], error["problem"]) == (str(path), problem)
    assert line == f"platform-api import oci: {path}: {problem}"
