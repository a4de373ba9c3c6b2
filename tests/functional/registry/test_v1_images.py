"""v1 image facts (chainguard.platform.registry.Registry GetArchs, GetSize, GetRepoTagsSummary) over the v2
implementations: the same answers as ImagesService / TagsService for one imported image, NOT_FOUND alike,
the same authorization; over HTTP and gRPC."""

from __future__ import annotations

from pathlib import Path

import grpc
import httpx
import pytest

from platform_api.gen.chainguard.platform.registry.v1 import registry_pb2, registry_pb2_grpc
from tests.helpers import Server, assert_error, image_architectures, image_size, imported, mk_group, mk_repo, ok, unique
from tests.helpers.registry import image

SBOM = Path(__file__).resolve().parents[2] / "data" / "sbom" / "spdx-2.3.json"

UNKNOWN = "sha256:" + "0" * 64


def test_archs_and_size_are_the_v2_ones(server: Server, http: httpx.Client, org: str, tmp_path: Path) -> None:
    repo, _, digest = image(server, http, org, tmp_path, ("latest",))
    base = f"/registry/v1/repos/{repo}/digests/{digest}"
    assert ok(http.get(base + "/architectures")) == {
        "archs": ok(image_architectures(http, repo, digest))["architectures"]
    }
    v2 = ok(image_size(http, repo, digest))
    assert ok(http.get(base + "/size")) == {"size": v2["size"], "arch": v2["architecture"]} == {
        "size": v2["size"], "arch": "amd64",
    }  # fmt: skip
    assert ok(http.get(base + "/size", params={"arch": "amd64"}))["size"] == v2["size"]
    assert_error(http.get(base + "/size", params={"arch": "arm64"}), 404, 5)
    assert_error(http.get(f"/registry/v1/repos/{repo}/digests/{UNKNOWN}/architectures"), 404, 5)
    stub = registry_pb2_grpc.RegistryStub(server.grpc_channel(server.token))
    assert list(stub.GetArchs(registry_pb2.ArchRequest(repo_id=repo, digest=digest)).archs) == ["amd64"]
    assert stub.GetSize(registry_pb2.SizeRequest(repo_id=repo, digest=digest)).size == int(v2["size"])
    with pytest.raises(grpc.RpcError) as e:
        stub.GetSize(registry_pb2.SizeRequest(repo_id=repo, digest=UNKNOWN))
    assert e.value.code() == grpc.StatusCode.NOT_FOUND


def test_tags_summary(server: Server, http: httpx.Client, org: str) -> None:
    repo = mk_repo(http, org, unique("r"))["uid"]
    assert ok(http.get(f"/registry/v1/repotagssummary/{repo}")) == {"id": repo}
    d = "sha256:" + "1" * 64
    for name in ("1.0", "1.0-r1", "latest"):
        last = ok(http.post(f"/registry/v2/tags/{repo}", json={"name": name, "digest": d}))
    got = ok(http.get(f"/registry/v1/repotagssummary/{repo}"))
    assert (got["id"], got["tagCount"], got["lastUpdated"]) == (repo, "3", last["updateTime"])
    assert got["latestTag"] == {"id": last["uid"], "name": "latest", "digest": d, "lastUpdated": last["updateTime"]}
    assert ok(http.get(f"/registry/v1/repotagssummary/{repo}", params={"excludeEpochs": True}))["tagCount"] == "2"
    assert_error(http.get(f"/registry/v1/repotagssummary/{org}/{'0' * 16}"), 404, 5)
    stub = registry_pb2_grpc.RegistryStub(server.grpc_channel(server.token))
    found = stub.GetRepoTagsSummary(registry_pb2.GetRepoTagsSummaryRequest(repo_id=repo))
    assert (found.tag_count, found.latest_tag.name) == (3, "latest")


def test_authorization_is_the_v2_one(server: Server, http: httpx.Client, org: str, tmp_path: Path) -> None:
    sub = mk_group(http, org, unique("sub"))["uid"]
    mine, _, digest = image(server, http, sub, tmp_path, ("latest",))
    other = mk_repo(http, org, unique("r"))["uid"]
    _, token = server.identity_with_role(sub, "viewer", home=org)
    with server.client(token) as viewer:
        assert ok(viewer.get(f"/registry/v1/repos/{mine}/digests/{digest}/size")) == {
            "size": ok(image_size(viewer, mine, digest))["size"], "arch": "amd64",
        }  # fmt: skip
        assert ok(viewer.get(f"/registry/v1/repotagssummary/{mine}"))["tagCount"] == "1"
        for path in (f"/registry/v1/repos/{other}/digests/{digest}/size", f"/registry/v1/repotagssummary/{other}"):
            assert viewer.get(path).status_code == image_size(viewer, other, digest).status_code  # 404: hidden


def test_manifest_metadata_is_the_sbom_purls(server: Server, http: httpx.Client, org: str, tmp_path: Path) -> None:
    repo, _, digest = image(server, http, org, tmp_path, ("latest",))
    bare, _, other = image(server, http, org, tmp_path, ("latest",))
    imported(server, "sbom", repo, digest, str(SBOM))
    stub = registry_pb2_grpc.RegistryStub(server.grpc_channel(server.token))
    entry = registry_pb2.ManifestMetadataFilterEntry
    ask = registry_pb2.ManifestMetadataFilter(
        repo_id=repo,
        items=[
            entry(image_digest=digest),
            entry(index_filter=registry_pb2.ManifestMetadataIndexFilter(digest=digest, arch="amd64")),
        ],
    )
    got = stub.ListManifestMetadata(ask)
    want = ["pkg:apk/wolfi/glibc@2.40-r1?arch=x86_64", "pkg:apk/wolfi/openssl@3.3.2-r0?arch=x86_64"]
    assert [(m.digest, [p.purl for p in m.pkg_metadata]) for m in got.items] == [(digest, want), (digest, want)]
    none = stub.ListManifestMetadata(
        registry_pb2.ManifestMetadataFilter(repo_id=bare, items=[entry(image_digest=other)])
    )
    assert [(m.digest, list(m.pkg_metadata)) for m in none.items] == [(other, [])]
    for wrong in (
        entry(image_digest=UNKNOWN),
        entry(index_filter=registry_pb2.ManifestMetadataIndexFilter(digest=digest, arch="arm64")),
    ):
        with pytest.raises(grpc.RpcError) as e:
            stub.ListManifestMetadata(registry_pb2.ManifestMetadataFilter(repo_id=repo, items=[wrong]))
        assert e.value.code() == grpc.StatusCode.NOT_FOUND
    # Over HTTP (a GET) the entries, repeated messages, cannot travel as query parameters: nothing is asked.
    assert ok(http.get(f"/registry/v1/repos/{repo}/manifestmetdata", params={"items.imageDigest": digest})) == {}
