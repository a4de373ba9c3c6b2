"""v1 Artifacts (`/libraries/v1/artifacts`, chainguard.platform.libraries.Artifacts) over the v2
implementation: the same artifacts and versions seen both ways (ids, names, times, sizes), List paging as its
contract does with the v2 twin's tokens, ListVersions the full set (> one v2 page) and `{}` for an unknown id,
the ecosystems v2 lacks matching nothing, the same authorization; over HTTP and over gRPC with the contract's
messages. Artifacts are global: each test makes its own uniquely named ones."""

from __future__ import annotations

import json
import secrets
import shutil
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest

from platform_api.gen.chainguard.platform.libraries.v1 import artifacts_pb2, artifacts_pb2_grpc, entitlements_pb2
from tests.helpers import Server, all_items, assert_error, imported, ok

DATA = Path(__file__).resolve().parents[2] / "data" / "libraries"
V1 = "/libraries/v1/artifacts"
V2 = "/libraries/v2/artifacts"


def python_project(folder: Path, name: str, versions: int) -> None:
    """A PEP 691 project page with `versions` releases (1.0, 1.1, ...), one wheel each."""
    files = [{"filename": f"{name.replace('-', '_')}-1.{i}-py3-none-any.whl", "url": f"https://files.example/{i}",
              "hashes": {"sha256": secrets.token_hex(32)}, "size": 100 + i,
              "upload-time": f"2024-01-01T00:{i // 60 % 60:02d}:{i % 60:02d}Z"} for i in range(versions)]  # fmt: skip
    folder.mkdir(parents=True, exist_ok=True)
    page = {"meta": {"api-version": "1.1"}, "name": name, "files": files}
    (folder / f"{name}.json").write_text(json.dumps(page))


def v1_of(a: dict[str, Any]) -> dict[str, Any]:
    """What v1 answers for a v2 artifact or version: `id`, `createdAt`/`updatedAt`, unprefixed ecosystem."""
    renames = {"uid": "id", "createTime": "createdAt", "updateTime": "updatedAt"}
    out = {renames.get(k, k): v for k, v in a.items()}
    if "ecosystem" in out:
        out["ecosystem"] = out["ecosystem"].removeprefix("ECOSYSTEM_")
    return out


@pytest.fixture(scope="module")
def project(server: Server, tmp_path_factory: pytest.TempPathFactory) -> str:
    """A python artifact with 205 versions (more than one v2 page), two more, and the fixture files' python
    artifact, in one import."""
    name = f"v1a-{secrets.token_hex(4)}"
    folder = tmp_path_factory.mktemp("v1-artifacts")
    python_project(folder, name, 205)
    python_project(folder, name + "-b", 2)
    python_project(folder, name + "-c", 2)
    for page in (DATA / "python").iterdir():
        shutil.copy(page, folder / page.name)
    imported(server, "libraries", "python", str(folder))
    return name


def test_list_is_the_v2_list_and_pages_with_its_tokens(http: httpx.Client, project: str) -> None:
    params: dict[str, Any] = {"ecosystems": ["PYTHON", "JAVA"], "query": project}
    v2_params = {**params, "ecosystems": ["ECOSYSTEM_PYTHON", "ECOSYSTEM_JAVA"]}
    v2, total = all_items(http, V2, "artifacts", **v2_params)
    whole = ok(http.get(V1, params=params))
    assert whole["items"] == [v1_of(a) for a in v2] and whole["totalArtifacts"] == total == 3
    assert [a["name"] for a in whole["items"]] == [project, project + "-b", project + "-c"]
    first = ok(http.get(V1, params={**params, "pageSize": 2}))
    assert first["items"] == whole["items"][:2] and first["totalArtifacts"] == 3 and first["nextPageToken"]
    rest = ok(http.get(V1, params={**params, "pageSize": 2, "pageToken": first["nextPageToken"]}))
    assert rest["items"] == whole["items"][2:] and "nextPageToken" not in rest
    # The token is the v2 twin's: it reads the same page there.
    there = ok(http.get(V2, params={**v2_params, "pageSize": 2, "pageToken": first["nextPageToken"]}))
    assert [v1_of(a) for a in there["artifacts"]] == rest["items"]
    skipped = ok(http.get(V1, params={**params, "skip": 1}))
    assert skipped["items"] == whole["items"][1:] and skipped["skipped"] == 1
    sample = ok(http.get(V1, params={"ecosystems": "PYTHON", "query": "SampleProject"}))["items"]
    assert sample == [{"id": "python:sampleproject", "name": "sampleproject", "description": "A sample Python project",
                       "ecosystem": "PYTHON", "latestVersion": "3.0.0", "versionCount": 5,
                       "createdAt": "2015-06-14T14:38:05.093Z", "updatedAt": "2024-01-02T03:04:05.000Z"}]  # fmt: skip


def test_versions_full_set_and_unknown_id(http: httpx.Client, project: str) -> None:
    uid = f"python:{project}"
    v2, total = all_items(http, f"{V2}/{uid}/versions", "artifactVersions")
    assert total == 205
    got = ok(http.get(f"{V1}/{uid}/versions"))
    assert set(got) == {"items"} and got["items"] == [v1_of(v) for v in v2]
    assert got["items"][0] == {"id": f"{uid}@1.204", "name": project, "version": "1.204",
                               "createdAt": "2024-01-01T00:03:24.000Z", "updatedAt": "2024-01-01T00:03:24.000Z",
                               "sizeBytes": "304"}  # fmt: skip
    assert ok(http.get(f"{V1}/python:no-such-{project}/versions")) == {}
    assert http.get(f"{V2}/python:no-such-{project}/versions").status_code == 404


def test_count_and_the_ecosystems_v2_lacks(http: httpx.Client, project: str) -> None:
    v2 = ok(http.get(f"{V2}/count", params={"ecosystems": ["ECOSYSTEM_PYTHON", "ECOSYSTEM_JAVA"]}))["counts"]
    got = ok(http.get(f"{V1}/count", params={"ecosystems": ["PYTHON", "JAVASCRIPT", "JAVA", "PYTHON"]}))["counts"]
    n = {c["ecosystem"].removeprefix("ECOSYSTEM_"): int(c.get("totalCount", 0)) for c in v2}
    assert [(c["ecosystem"], c.get("totalArtifacts", 0)) for c in got] == [
        ("PYTHON", n["PYTHON"]), ("JAVASCRIPT", 0), ("JAVA", n["JAVA"]),
    ]  # fmt: skip
    assert n["PYTHON"] >= 4
    assert ok(http.get(f"{V1}/count", params={"ecosystems": "GO"})) == {"counts": [{"ecosystem": "GO"}]}
    # Held nowhere: nothing matches; with a held one, that one's artifacts.
    assert ok(http.get(V1, params={"ecosystems": ["JAVASCRIPT", "GO_ATHENA"], "query": project})) == {}
    assert len(ok(http.get(V1, params={"ecosystems": ["GO", "PYTHON"], "query": project}))["items"]) == 3
    for path in (V1, f"{V1}/count"):
        assert_error(http.get(path), 400, 3, "ecosystems")
        assert_error(http.get(path, params={"ecosystems": "UNKNOWN"}), 400, 3, "ecosystems")


def test_authorization_is_the_v2_one(server: Server, anon: httpx.Client, org: str, project: str) -> None:
    params = {"ecosystems": "PYTHON", "query": project}
    paths = [V1, f"{V1}/count", f"{V1}/python:{project}/versions"]
    for path in paths:
        assert anon.get(path, params=params).status_code == 401
    _, viewer = server.identity_with_role(org, "viewer")
    with server.client(viewer) as c:
        assert len(ok(c.get(paths[0], params=params))["items"]) == 3
        assert len(ok(c.get(paths[2]))["items"]) == 205
    _, puller = server.identity_with_role(org, "registry.pull")
    with server.client(puller) as c:
        for path in [*paths, f"{V1}/count?ecosystems=GO", f"{V1}?ecosystems=GO"]:
            assert_error(c.get(path, params=params if "?" not in path else None), 403, 7)


def test_over_grpc_with_the_contract_messages(server: Server, project: str) -> None:
    stub = artifacts_pb2_grpc.ArtifactsStub(server.grpc_channel(server.token))
    found = stub.List(artifacts_pb2.ArtifactFilter(ecosystems=[entitlements_pb2.PYTHON], query=project, page_size=2))
    assert [a.name for a in found.items] == [project, project + "-b"] and found.total_artifacts == 3
    assert found.items[0].ecosystem == entitlements_pb2.PYTHON and found.items[0].version_count == 205
    versions = stub.ListVersions(artifacts_pb2.ArtifactVersionFilter(id=f"python:{project}"))
    assert len(versions.items) == 205 and versions.items[-1].version == "1.0" and versions.items[-1].size_bytes == 100
    counts = stub.GetArtifactCount(artifacts_pb2.GetArtifactCountRequest(ecosystems=[entitlements_pb2.DOTNET]))
    assert [(c.ecosystem, c.total_artifacts) for c in counts.counts] == [(entitlements_pb2.DOTNET, 0)]
    with pytest.raises(grpc.RpcError) as e:
        stub.List(artifacts_pb2.ArtifactFilter())
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
