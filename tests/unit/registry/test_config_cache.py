"""`import oci` reads each blob once per import: a config blob shared by many manifests is read and hashed
once (counted at imports.read_file), and what its later descriptors say is still checked against it."""

from __future__ import annotations

import io
import json
import secrets
from pathlib import Path
from typing import Any

import pytest

from platform_api.registry import oci
from platform_api.service import imports
from tests.helpers.oci_layouts import (
    CONFIG,
    OCI_MANIFEST,
    descriptor,
    index,
    put_blob,
    put_json,
    write_layout,
)


def shared_config_layout(root: Path, manifests: int, config: bytes, media: list[str]) -> dict[str, Any]:
    """`manifests` manifests (distinct layers) sharing one config blob, descriptor media types from `media`
    in turn, in one index tagged `latest`. Returns the config's descriptor."""
    shared = put_blob(root, config, CONFIG)
    entries = []
    for n in range(manifests):
        layer = put_blob(root, secrets.token_bytes(8), "application/vnd.oci.image.layer.v1.tar+gzip")
        doc = {"schemaVersion": 2, "mediaType": OCI_MANIFEST, "config": shared | {"mediaType": media[n % len(media)]},
               "layers": [layer]}  # fmt: skip
        entries.append(descriptor(put_json(root, doc, OCI_MANIFEST)))
    write_layout(root, {"latest": index(root, entries)})
    return shared


def read(root: Path) -> oci.Content:
    return oci.read(root, imports.Progress("test", stream=io.StringIO()))


def count_reads(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    reads: dict[str, int] = {}
    original = imports.read_file

    def counted(path: Path, *args: Any, **kwargs: Any) -> bytes:
        reads[path.name] = reads.get(path.name, 0) + 1
        return original(path, *args, **kwargs)

    monkeypatch.setattr(imports, "read_file", counted)
    return reads


def test_a_shared_config_blob_is_read_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = json.dumps({"os": "linux", "architecture": "arm64", "pad": "x" * 100_000}).encode()
    shared = shared_config_layout(tmp_path, 50, config, [CONFIG])
    reads = count_reads(monkeypatch)
    content = read(tmp_path)
    assert reads[shared["digest"].removeprefix("sha256:")] == 1
    manifests = [i for i in content.images.values() if not i.is_index]
    assert len(manifests) == 50 and {i.architecture for i in manifests} == {"arm64"}


def test_what_later_descriptors_say_is_still_checked(tmp_path: Path) -> None:
    # Malformed JSON under a non-JSON media type is not parsed; the same blob named as JSON is refused.
    shared_config_layout(tmp_path / "a", 3, b"not json", ["application/octet-stream", CONFIG])
    with pytest.raises(imports.BadInput, match="malformed JSON"):
        read(tmp_path / "a")
    # A later descriptor of the same config with another size is refused as the first would be.
    root = tmp_path / "b"
    shared = shared_config_layout(root, 2, b'{"architecture": "amd64"}', [CONFIG])
    first = next(p for p in (root / "blobs" / "sha256").iterdir() if b'"layers"' in p.read_bytes())
    doc = json.loads(first.read_bytes())
    doc["config"]["size"] += 1
    entries = json.loads((root / "index.json").read_text())
    inner = json.loads((root / "blobs" / "sha256" / entries["manifests"][0]["digest"][7:]).read_bytes())
    inner["manifests"].append(descriptor(put_json(root, doc, OCI_MANIFEST)))
    write_layout(root, {"latest": put_json(root, inner, inner.get("mediaType", oci.OCI_INDEX))})
    with pytest.raises(imports.BadInput, match=f"{shared['size']} bytes, but its descriptor says {shared['size'] + 1}"):
        read(root)
