"""`platform-api import oci` and ImagesService over both transports: layouts written here with real blobs
and real sha256 digests, single manifest / index documents, bad inputs (each leaving the database as it
was), authorization."""

from __future__ import annotations

import hashlib
import json
import os
import secrets
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest

from platform_api.gen.chainguard.platform.registry.v2 import images_pb2, images_pb2_grpc
from tests.helpers import image_architectures, image_size, imported, mk_repo, refused
from tests.helpers.oci_layouts import (
    CONFIG,
    DOCKER_MANIFEST,
    OCI_INDEX,
    OCI_MANIFEST,
    manifest,
    put_json,
)


def layout(
    root: Path, tags: dict[str, str] | None = None, arches: tuple[str, ...] = ("amd64", "arm64")
) -> dict[str, Any]:
    """A layout with one multi-platform index (plus an attestation entry of unknown platform) tagged with
    each name of `tags` ('index'), or with single manifests ('amd64', ...). Returns the descriptors."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "oci-layout").write_text(json.dumps({"imageLayoutVersion": "1.0.0"}))
    platform = {a: manifest(root, "linux", a, "v8" if a == "arm64" else "") for a in arches}
    attestation = put_json(root, {"schemaVersion": 2, "mediaType": OCI_MANIFEST,
                                  "config": put_json(root, {}, CONFIG), "layers": []}, OCI_MANIFEST)  # fmt: skip
    entries = [{k: v for k, v in d.items() if k != "expected_size"} | {"platform": {"os": "linux", "architecture": a}}
               for a, d in platform.items()]  # fmt: skip
    entries.append(attestation | {"platform": {"os": "unknown", "architecture": "unknown"}})
    index = put_json(root, {"schemaVersion": 2, "mediaType": OCI_INDEX, "manifests": entries}, OCI_INDEX)
    top = []
    for name, what in (tags or {"latest": "index"}).items():
        d = index if what == "index" else {k: v for k, v in platform[what].items() if k != "expected_size"}
        top.append(d | {"annotations": {"org.opencontainers.image.ref.name": name}})
    (root / "index.json").write_text(json.dumps({"schemaVersion": 2, "mediaType": OCI_INDEX, "manifests": top}))
    return {"index": index, **platform}


def tags_of(http: httpx.Client, repo: str) -> dict[str, str]:
    r = http.get("/registry/v2/tags", params={"uidp.childrenOf": repo, "pageSize": 100})
    assert r.status_code == 200, r.text
    return {t["name"]: t["digest"] for t in r.json().get("tags", [])}


def test_layout_import_and_queries(server: Any, http: httpx.Client, org: str, tmp_path: Path) -> None:
    repo = mk_repo(http, org)["uid"]
    d = layout(tmp_path / "l1")
    summary = imported(server, "oci", repo, str(tmp_path / "l1"))
    assert summary["manifests"] == {"created": 3, "updated": 0, "unchanged": 0}
    assert summary["indexes"] == {"created": 1, "updated": 0, "unchanged": 0}
    assert summary["tags"] == {"created": 1, "updated": 0, "unchanged": 0}
    assert summary["rejected"] == []
    assert tags_of(http, repo) == {"latest": d["index"]["digest"]}

    idx = d["index"]["digest"]
    r = image_architectures(http, repo, idx)
    assert r.status_code == 200 and r.json() == {"architectures": ["amd64", "arm64"]}, r.text
    r = image_size(http, repo, idx)
    assert r.json() == {"size": str(d["amd64"]["expected_size"]), "architecture": "amd64"}, r.text
    r = image_size(http, repo, idx, "arm64")
    assert r.json() == {"size": str(d["arm64"]["expected_size"]), "architecture": "arm64"}
    # A platform manifest: its one architecture, its own size.
    assert image_architectures(http, repo, d["arm64"]["digest"]).json() == {"architectures": ["arm64"]}
    assert image_size(http, repo, d["arm64"]["digest"]).json()["architecture"] == "arm64"
    assert image_size(http, repo, d["arm64"]["digest"], "amd64").status_code == 404
    assert image_size(http, repo, idx, "s390x").status_code == 404
    missing = "sha256:" + "0" * 64
    r = image_architectures(http, repo, missing)
    assert r.status_code == 404 and r.json()["code"] == 5, r.text
    assert image_architectures(http, repo, "sha256:nothex").status_code == 400
    # Another repo does not see this repo's images.
    assert image_architectures(http, mk_repo(http, org)["uid"], idx).status_code == 404

    # Idempotent: the same layout again changes nothing.
    again = imported(server, "oci", repo, str(tmp_path / "l1"))
    assert (again["created"], again["updated"], again["unchanged"]) == (0, 0, 5)

    # gRPC: the same answers.
    with server.grpc_channel(server.token) as ch:
        stub = images_pb2_grpc.ImagesServiceStub(ch)
        got = stub.GetArchitectures(images_pb2.GetArchitecturesRequest(repo_uid=repo, digest=idx))
        assert list(got.architectures) == ["amd64", "arm64"]
        got_size = stub.GetSize(images_pb2.GetSizeRequest(repo_uid=repo, digest=idx, architecture="arm64"))
        assert (got_size.size, got_size.architecture) == (d["arm64"]["expected_size"], "arm64")
        with pytest.raises(grpc.RpcError) as e:
            stub.GetSize(images_pb2.GetSizeRequest(repo_uid=repo, digest=missing))
        assert e.value.code() == grpc.StatusCode.NOT_FOUND


def test_tags_move_and_platform_tags(server: Any, http: httpx.Client, org: str, tmp_path: Path) -> None:
    repo = mk_repo(http, org)["uid"]
    first = layout(tmp_path / "a", {"latest": "index", "1.0": "index"})
    imported(server, "oci", repo, str(tmp_path / "a"))
    second = layout(tmp_path / "b", {"latest": "index", "1.0": "index", "amd64-only": "amd64"})
    summary = imported(server, "oci", repo, str(tmp_path / "b"))
    assert summary["tags"] == {"created": 1, "updated": 2, "unchanged": 0}
    assert tags_of(http, repo) == {"latest": second["index"]["digest"], "1.0": second["index"]["digest"],
                                   "amd64-only": second["amd64"]["digest"]}  # fmt: skip
    assert image_architectures(http, repo, first["index"]["digest"]).status_code == 200  # the old index is still known


def test_single_documents(server: Any, http: httpx.Client, org: str, tmp_path: Path) -> None:
    repo = mk_repo(http, org)["uid"]
    config = {
        "mediaType": "application/vnd.docker.container.image.v1+json",
        "digest": "sha256:" + "a" * 64,
        "size": 1000,
    }
    layer = {
        "mediaType": "application/vnd.docker.image.rootfs.diff.tar.gzip",
        "digest": "sha256:" + "b" * 64,
        "size": 5000,
    }
    doc = {"schemaVersion": 2, "mediaType": DOCKER_MANIFEST, "config": config, "layers": [layer]}
    data = json.dumps(doc).encode()
    (tmp_path / "m.json").write_bytes(data)
    digest = "sha256:" + hashlib.sha256(data).hexdigest()
    summary = imported(server, "oci", repo, str(tmp_path / "m.json"))
    assert summary["manifests"]["created"] == 1
    assert image_size(http, repo, digest).json() == {"size": "6000"}
    assert image_architectures(http, repo, digest).json() == {}  # platform unknown without the config blob
    # An index alone: its architectures from its descriptors; sizes only for manifests imported.
    riscv = {"os": "linux", "architecture": "riscv64"}
    entries = [
        {"mediaType": DOCKER_MANIFEST, "digest": digest, "size": len(data), "platform": riscv},
        {
            "mediaType": OCI_MANIFEST,
            "digest": "sha256:" + "c" * 64,
            "size": 10,
            "platform": riscv | {"architecture": "amd64"},
        },
    ]
    index = {"schemaVersion": 2, "mediaType": OCI_INDEX, "manifests": entries}
    (tmp_path / "i.json").write_text(json.dumps(index))
    idx = "sha256:" + hashlib.sha256((tmp_path / "i.json").read_bytes()).hexdigest()
    imported(server, "oci", repo, str(tmp_path / "i.json"))
    assert image_architectures(http, repo, idx).json() == {"architectures": ["riscv64", "amd64"]}
    assert image_size(http, repo, idx, "riscv64").json() == {"size": "6000", "architecture": "riscv64"}
    r = image_size(http, repo, idx)
    assert r.status_code == 404 and "amd64 manifest" in r.text


def _corrupt(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[-2] ^= 1
    path.write_bytes(bytes(data))


BAD_CASES = ["digest", "size", "sha512", "media", "symlink", "version", "truncated", "tag", "deep", "traversal"]


@pytest.mark.parametrize("case", BAD_CASES)
def test_bad_layouts_change_nothing(case: str, server: Any, http: httpx.Client, org: str, tmp_path: Path) -> None:
    repo = mk_repo(http, org)["uid"]
    root = tmp_path / "bad"
    d = layout(root, {"latest": "index", "good": "amd64"})
    index_path = root / "index.json"
    top = json.loads(index_path.read_text())
    blob = root / "blobs" / "sha256" / d["index"]["digest"].removeprefix("sha256:")
    if case == "digest":
        _corrupt(blob)
        want = "content does not match its digest"
    elif case == "size":
        top["manifests"][0]["size"] += 1
        want = "but its descriptor says"
    elif case == "sha512":
        top["manifests"][0]["digest"] = "sha512:" + "a" * 128
        want = "digest algorithm 'sha512' is not supported"
    elif case == "media":
        top["manifests"][0]["mediaType"] = "application/vnd.example+json"
        want = "$.manifests[0].mediaType: unsupported media type"
    elif case == "symlink":
        outside = tmp_path / "outside.json"
        outside.write_bytes(blob.read_bytes())
        blob.unlink()
        os.symlink(outside, blob)
        want = "points outside"
    elif case == "version":
        (root / "oci-layout").write_text('{"imageLayoutVersion": "2.0.0"}')
        want = "unsupported layout version '2.0.0'"
    elif case == "truncated":
        index_path.write_text(index_path.read_text()[:40])
        want = "malformed JSON"
    elif case == "tag":
        top["manifests"][1]["annotations"]["org.opencontainers.image.ref.name"] = "bad/tag"
        want = "is not a valid tag name"
    elif case == "deep":
        inner = d["index"]
        for _ in range(5):
            inner = put_json(root, {"schemaVersion": 2, "mediaType": OCI_INDEX, "manifests": [inner]}, OCI_INDEX)
        top["manifests"][0] = inner
        want = "nested deeper than 4"
    elif case == "traversal":
        top["manifests"][0]["digest"] = "sha256:../../../etc/passwd"
        want = "is not a sha256 digest"
    if case not in ("truncated", "version"):
        index_path.write_text(json.dumps(top))
    _, err = refused(server, "oci", repo, str(root))
    assert want in err, err
    assert str(root) in err
    assert tags_of(http, repo) == {}
    assert image_architectures(http, repo, d["amd64"]["digest"]).status_code == 404


def test_bad_repo_and_paths(server: Any, http: httpx.Client, org: str, tmp_path: Path) -> None:
    layout(tmp_path / "l")
    _, line = refused(server, "oci", org + "/0123456789abcdef", str(tmp_path / "l"))
    assert "no such repo" in line
    repo = mk_repo(http, org)["uid"]
    _, line = refused(server, "oci", repo, str(tmp_path / "nope"))
    assert "no such file or directory" in line
    (tmp_path / "big.json").write_bytes(b" " * (5 << 20))
    _, line = refused(server, "oci", repo, str(tmp_path / "big.json"))
    assert "over the limit" in line
    (tmp_path / "other.json").write_text('{"schemaVersion": 2, "mediaType": "text/plain"}')
    _, line = refused(server, "oci", repo, str(tmp_path / "other.json"))
    assert "not an image manifest or index" in line


def test_authorization(server: Any, http: httpx.Client, anon: httpx.Client, org: str, tmp_path: Path) -> None:
    repo = mk_repo(http, org)["uid"]
    d = layout(tmp_path / "l")
    imported(server, "oci", repo, str(tmp_path / "l"))
    idx = d["index"]["digest"]
    assert image_architectures(anon, repo, idx).status_code == 401
    role = http.post(
        f"/iam/v2/roles/{org}", json={"name": "r-" + secrets.token_hex(4), "capabilities": ["CAP_REPO_LIST"]}
    )
    assert role.status_code == 200, role.text
    _, token = server.identity_with_role(org, role.json()["uid"])
    with server.client(token) as c:
        assert image_architectures(c, repo, idx).status_code == 403
        assert image_size(c, repo, idx).status_code == 403
    _, token = server.identity_with_role(org, "registry.pull")
    with server.client(token) as c:
        assert image_architectures(c, repo, idx).json() == {"architectures": ["amd64", "arm64"]}
    with server.grpc_channel(token) as ch:
        got = images_pb2_grpc.ImagesServiceStub(ch).GetSize(images_pb2.GetSizeRequest(repo_uid=repo, digest=idx))
        assert got.architecture == "amd64"
