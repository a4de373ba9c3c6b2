"""Libraries over the wire: `platform-api import libraries` (Python PEP 691 / PyPI JSON, Java maven-metadata.xml
and POMs) and ArtifactsService on both transports, both backends.

Artifacts are global data shared by the whole test session: each test makes its own uniquely named ones.
"""

from __future__ import annotations

import json
import secrets
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest

from platform_api.gen.chainguard.platform.libraries.v2 import artifacts_pb2, artifacts_pb2_grpc
from tests.helpers import imported, refused

DATA = Path(__file__).resolve().parents[2] / "data" / "libraries"


def simple_page(name: str, files: list[tuple[str, int, str]], versions: list[str] | None = None) -> dict[str, Any]:
    """A PEP 691 project page: files as (version, size, upload time)."""
    page: dict[str, Any] = {"meta": {"api-version": "1.1"}, "name": name, "files": []}
    if versions is not None:
        page["versions"] = versions
    for version, size, when in files:
        page["files"].append({
            "filename": f"{name.replace('-', '_')}-{version}-py3-none-any.whl",
            "url": f"https://files.example/{name}-{version}.whl",
            "hashes": {"sha256": secrets.token_hex(32)},
            "size": size,
            "upload-time": when,
        })  # fmt: skip
    return page


def write(path: Path, doc: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return path


def list_all(http: httpx.Client, url: str, params: dict[str, Any], items: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    token = ""
    while True:
        r = http.get(url, params={**params, "pageToken": token})
        assert r.status_code == 200, r.text
        body = r.json()
        out += body.get(items, [])
        token = body.get("nextPageToken", "")
        if not token:
            return out


def test_fixture_files_import_and_read(server: Any, http: httpx.Client) -> None:
    assert imported(server, "libraries", "python", str(DATA / "python"))["rejected"] == []
    assert imported(server, "libraries", "java", str(DATA / "java"))["rejected"] == []
    # Re-importing the same input changes nothing.
    for eco in ("python", "java"):
        again = imported(server, "libraries", eco, str(DATA / eco))
        assert again["created"] == again["updated"] == 0 and again["unchanged"] > 0, again

    r = http.get("/libraries/v2/artifacts", params={"ecosystems": "ECOSYSTEM_PYTHON", "query": "SampleProject"})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["totalCount"] == "1"
    assert body["artifacts"] == [{
        "uid": "python:sampleproject", "name": "sampleproject", "description": "A sample Python project",
        "ecosystem": "ECOSYSTEM_PYTHON", "latestVersion": "3.0.0", "versionCount": 5,
        "createTime": "2015-06-14T14:38:05.093Z", "updateTime": "2024-01-02T03:04:05.000Z",
    }]  # fmt: skip
    versions = http.get("/libraries/v2/artifacts/python:sampleproject/versions").json()
    assert [v["version"] for v in versions["artifactVersions"]] == ["10.0.0.dev1", "4.0.0a1", "3.0.0", "2.0.0", "1.2.0"]
    v2 = versions["artifactVersions"][3]
    assert v2 == {"uid": "python:sampleproject@2.0.0", "name": "sampleproject", "version": "2.0.0",
                  "createTime": "2020-06-25T19:09:43.103Z", "updateTime": "2020-06-25T19:09:43.925Z",
                  "sizeBytes": "11584"}  # fmt: skip
    assert versions["totalCount"] == "5"
    # The artifact id may come percent-encoded.
    encoded = http.get("/libraries/v2/artifacts/python%3Asampleproject/versions").json()
    assert encoded["artifactVersions"] == versions["artifactVersions"]

    java = http.get("/libraries/v2/artifacts", params={"ecosystems": "ECOSYSTEM_JAVA", "query": "org.example:demo-lib"})
    (demo,) = java.json()["artifacts"]
    assert demo == {
        "uid": "java:org.example:demo-lib", "name": "org.example:demo-lib",
        "description": "A demo library, now with more demo.", "ecosystem": "ECOSYSTEM_JAVA",
        "latestVersion": "1.1", "versionCount": 6, "updateTime": "2024-03-15T12:00:00.000Z",
    }  # fmt: skip
    jv = http.get(f"/libraries/v2/artifacts/{demo['uid']}/versions").json()["artifactVersions"]
    assert [v["version"] for v in jv] == ["1.1", "1.1-SNAPSHOT", "1.1-rc1", "1.0.1", "1.0", "1.0-alpha-1"]
    assert jv[0]["sizeBytes"] == "12345" and jv[4]["description"] == "The first demo library."
    asc = http.get(f"/libraries/v2/artifacts/{demo['uid']}/versions", params={"orderBy": "version asc"}).json()
    assert [v["version"] for v in asc["artifactVersions"]] == [v["version"] for v in reversed(jv)]


def test_query_paging_and_version_order(server: Any, http: httpx.Client, tmp_path: Path) -> None:
    prefix = f"pa-{secrets.token_hex(4)}"
    names = [f"{prefix}-pkg{i}" for i in range(7)]
    for i, name in enumerate(names):
        files = [("1.0", 100, "2021-01-01T00:00:00Z"), ("1.9", 200, "2022-01-01T00:00:00Z"),
                 ("1.10", 300 + i, "2023-01-01T00:00:00Z")]  # fmt: skip
        write(tmp_path / f"{name}.json", simple_page(name, files))
    summary = imported(server, "libraries", "python", str(tmp_path))
    assert summary == {"created": 7 * 4, "updated": 0, "unchanged": 0, "rejected": []}

    params = {"ecosystems": ["ECOSYSTEM_PYTHON", "ECOSYSTEM_JAVA"], "query": prefix.upper(), "pageSize": 3}
    first = http.get("/libraries/v2/artifacts", params=params).json()
    assert first["totalCount"] == "7" and len(first["artifacts"]) == 3 and first["nextPageToken"]
    every = list_all(http, "/libraries/v2/artifacts", params, "artifacts")
    assert [a["name"] for a in every] == sorted(names)
    assert all(a["latestVersion"] == "1.10" and a["versionCount"] == 3 for a in every)
    skipped = http.get("/libraries/v2/artifacts", params={**params, "skip": 5}).json()
    assert [a["name"] for a in skipped["artifacts"]] == sorted(names)[5:] and skipped["skipped"] == 5
    desc = http.get("/libraries/v2/artifacts", params={**params, "orderBy": "name desc", "pageSize": 50}).json()
    assert [a["name"] for a in desc["artifacts"]] == sorted(names, reverse=True)
    # `_` and `%` in a query are literal characters, not patterns.
    assert http.get("/libraries/v2/artifacts", params={**params, "query": prefix + "%"}).json()["totalCount"] == "0"

    uid = f"python:{names[0]}"
    versions = list_all(http, f"/libraries/v2/artifacts/{uid}/versions", {"pageSize": 1}, "artifactVersions")
    assert [v["version"] for v in versions] == ["1.10", "1.9", "1.0"]
    by_size = http.get(f"/libraries/v2/artifacts/{uid}/versions", params={"orderBy": "size_bytes desc"}).json()
    assert [v["sizeBytes"] for v in by_size["artifactVersions"]] == ["300", "200", "100"]


def test_reimport_changes_exactly_what_changed(server: Any, http: httpx.Client, tmp_path: Path) -> None:
    name = f"pa-{secrets.token_hex(4)}-change"
    path = write(tmp_path / "p.json", simple_page(name, [("1.0", 10, "2021-01-01T00:00:00Z")]))
    assert imported(server, "libraries", "python", str(path))["created"] == 2
    summary = imported(server, "libraries", "python", str(path))
    assert summary == {"created": 0, "updated": 0, "unchanged": 2, "rejected": []}
    # A new version below the latest and nothing else: that version created, the artifact updated.
    write(path, simple_page(name, [("1.0", 10, "2021-01-01T00:00:00Z"), ("0.9", 5, "2020-01-01T00:00:00Z")]))
    summary = imported(server, "libraries", "python", str(path))
    assert summary == {"created": 1, "updated": 1, "unchanged": 1, "rejected": []}
    (a,) = http.get("/libraries/v2/artifacts", params={"ecosystems": "ECOSYSTEM_PYTHON", "query": name}).json()[
        "artifacts"
    ]
    assert a["versionCount"] == 2 and a["latestVersion"] == "1.0" and a["createTime"] == "2020-01-01T00:00:00.000Z"
    # A changed size of one version: that version updated; the artifact's own fields did not change.
    write(path, simple_page(name, [("1.0", 11, "2021-01-01T00:00:00Z"), ("0.9", 5, "2020-01-01T00:00:00Z")]))
    summary = imported(server, "libraries", "python", str(path))
    assert summary == {"created": 0, "updated": 1, "unchanged": 2, "rejected": []}
    vs = http.get(f"/libraries/v2/artifacts/python:{name}/versions").json()["artifactVersions"]
    assert [(v["version"], v["sizeBytes"]) for v in vs] == [("1.0", "11"), ("0.9", "5")]


def test_yanked_release_is_not_latest(server: Any, http: httpx.Client, tmp_path: Path) -> None:
    name = f"pa-{secrets.token_hex(4)}-yank"
    page = simple_page(name, [("1.0", 1, "2021-01-01T00:00:00Z"), ("2.0", 2, "2022-01-01T00:00:00Z")])
    page["files"][1]["yanked"] = "broken build"
    imported(server, "libraries", "python", str(write(tmp_path / "p.json", page)))
    (a,) = http.get("/libraries/v2/artifacts", params={"ecosystems": "ECOSYSTEM_PYTHON", "query": name}).json()[
        "artifacts"
    ]
    assert (a["latestVersion"], a["versionCount"], a["updateTime"]) == ("1.0", 2, "2022-01-01T00:00:00.000Z")
    # Un-yanked by a later import: 2.0 becomes the latest.
    page["files"][1]["yanked"] = False
    assert imported(server, "libraries", "python", str(write(tmp_path / "p.json", page)))["updated"] == 2
    (a,) = http.get("/libraries/v2/artifacts", params={"ecosystems": "ECOSYSTEM_PYTHON", "query": name}).json()[
        "artifacts"
    ]
    assert a["latestVersion"] == "2.0"


def test_artifact_count(server: Any, http: httpx.Client, tmp_path: Path) -> None:
    def counts() -> dict[str, int]:
        r = http.get("/libraries/v2/artifacts/count", params={"ecosystems": ["ECOSYSTEM_JAVA", "ECOSYSTEM_PYTHON"]})
        assert r.status_code == 200, r.text
        assert [c["ecosystem"] for c in r.json()["counts"]] == ["ECOSYSTEM_JAVA", "ECOSYSTEM_PYTHON"]
        return {c["ecosystem"]: int(c["totalCount"]) for c in r.json()["counts"]}

    before = counts()
    group = f"org.pa{secrets.token_hex(4)}"
    for artifact in ("alpha", "beta"):
        pom = (f'<project xmlns="http://maven.apache.org/POM/4.0.0"><groupId>{group}</groupId>'
               f"<artifactId>{artifact}</artifactId><version>2.0</version></project>")  # fmt: skip
        write(tmp_path / artifact / "2.0" / f"{artifact}-2.0.pom", pom)
    assert imported(server, "libraries", "java", str(tmp_path))["created"] == 4
    after = counts()
    assert after["ECOSYSTEM_JAVA"] == before["ECOSYSTEM_JAVA"] + 2
    assert after["ECOSYSTEM_PYTHON"] >= before["ECOSYSTEM_PYTHON"]
    # ListArtifacts' totalCount without a query comes from the same counters: they agree.
    for ecosystems in (["ECOSYSTEM_JAVA"], ["ECOSYSTEM_PYTHON"], ["ECOSYSTEM_JAVA", "ECOSYSTEM_PYTHON"]):
        r = http.get("/libraries/v2/artifacts", params={"ecosystems": ecosystems, "pageSize": 1}).json()
        assert int(r["totalCount"]) == sum(after[e] for e in ecosystems)
        assert all(a["ecosystem"] in ecosystems for a in r.get("artifacts", []))
    java = list_all(http, "/libraries/v2/artifacts", {"ecosystems": "ECOSYSTEM_JAVA", "query": group}, "artifacts")
    assert [a["name"] for a in java] == [f"{group}:alpha", f"{group}:beta"]


def test_grpc(server: Any, tmp_path: Path) -> None:
    name = f"pa-{secrets.token_hex(4)}-grpc"
    write(
        tmp_path / "p.json",
        simple_page(name, [("2.0", 10, "2021-01-01T00:00:00Z"), ("2.0rc1", 9, "2020-12-01T00:00:00Z")]),
    )
    imported(server, "libraries", "python", str(tmp_path))
    stub = artifacts_pb2_grpc.ArtifactsServiceStub(server.channel)
    r = stub.ListArtifacts(artifacts_pb2.ListArtifactsRequest(ecosystems=[artifacts_pb2.ECOSYSTEM_PYTHON], query=name))
    assert r.total_count == 1
    (a,) = r.artifacts
    assert (a.uid, a.ecosystem, a.latest_version, a.version_count) == (
        f"python:{name}", artifacts_pb2.ECOSYSTEM_PYTHON, "2.0", 2)  # fmt: skip
    assert a.create_time.seconds > 0
    v = stub.ListArtifactVersions(artifacts_pb2.ListArtifactVersionsRequest(artifact_id=a.uid))
    assert [x.version for x in v.artifact_versions] == ["2.0", "2.0rc1"] and v.artifact_versions[0].size_bytes == 10
    c = stub.GetArtifactCount(artifacts_pb2.GetArtifactCountRequest(ecosystems=[artifacts_pb2.ECOSYSTEM_PYTHON]))
    assert c.counts[0].ecosystem == artifacts_pb2.ECOSYSTEM_PYTHON and c.counts[0].total_count >= 1
    with pytest.raises(grpc.RpcError) as e:
        stub.ListArtifacts(artifacts_pb2.ListArtifactsRequest())
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    with pytest.raises(grpc.RpcError) as e:
        stub.ListArtifactVersions(artifacts_pb2.ListArtifactVersionsRequest(artifact_id="python:no-such-" + name))
    assert e.value.code() == grpc.StatusCode.NOT_FOUND
    _, token = server.identity_with_role(server.owner_org, "registry.pull")
    with server.grpc_channel(token) as channel, pytest.raises(grpc.RpcError) as e:
        artifacts_pb2_grpc.ArtifactsServiceStub(channel).GetArtifactCount(
            artifacts_pb2.GetArtifactCountRequest(ecosystems=[artifacts_pb2.ECOSYSTEM_PYTHON])
        )
    assert e.value.code() == grpc.StatusCode.PERMISSION_DENIED


def test_authorization(server: Any, anon: httpx.Client, org: str) -> None:
    params = {"ecosystems": "ECOSYSTEM_PYTHON", "query": "sampleproject"}
    paths = ["/libraries/v2/artifacts", "/libraries/v2/artifacts/count", "/libraries/v2/artifacts/python:x/versions"]
    for path in paths:
        assert anon.get(path, params=params).status_code == 401
    # Holding the capability at any group (here: viewer of a fresh organization) sees the global data.
    _, viewer = server.identity_with_role(org, "viewer")
    with server.client(viewer) as c:
        assert c.get(paths[0], params=params).status_code == 200
        assert c.get(paths[1], params=params).status_code == 200
    # Holding it nowhere: PERMISSION_DENIED on every method.
    _, puller = server.identity_with_role(org, "registry.pull")
    with server.client(puller) as c:
        for path in paths:
            r = c.get(path, params=params)
            assert r.status_code == 403, r.text
            assert r.json()["code"] == 7


@pytest.mark.parametrize(
    ("path", "params", "status"),
    [
        ("/libraries/v2/artifacts", {}, 400),
        ("/libraries/v2/artifacts", {"ecosystems": "ECOSYSTEM_UNSPECIFIED"}, 400),
        ("/libraries/v2/artifacts", {"ecosystems": "ECOSYSTEM_PYTHON", "orderBy": "colour"}, 400),
        ("/libraries/v2/artifacts", {"ecosystems": "ECOSYSTEM_PYTHON", "pageSize": -1}, 400),
        ("/libraries/v2/artifacts", {"ecosystems": "ECOSYSTEM_PYTHON", "query": "x" * 201}, 400),
        ("/libraries/v2/artifacts", {"ecosystems": "ECOSYSTEM_PYTHON", "pageToken": "garbage"}, 400),
        ("/libraries/v2/artifacts/count", {}, 400),
        ("/libraries/v2/artifacts/python:no-such-artifact-anywhere/versions", {}, 404),
        ("/libraries/v2/artifacts/python:sampleproject/versions", {"orderBy": "name"}, 400),
    ],
)
def test_bad_requests(http: httpx.Client, path: str, params: dict[str, Any], status: int) -> None:
    r = http.get(path, params=params)
    assert r.status_code == status, r.text


def test_filters_without_data_match_nothing(http: httpx.Client) -> None:
    for extra in ({"remediated": "true"}, {"cudaVersion": "12.4"}):
        r = http.get("/libraries/v2/artifacts", params={"ecosystems": "ECOSYSTEM_PYTHON", **extra})
        assert r.status_code == 200 and r.json().get("artifacts", []) == [] and r.json()["totalCount"] == "0"


def _bad_cases(tmp: Path) -> list[tuple[str, Path, str, str]]:
    """(ecosystem, file, expected place, expected problem fragment)."""
    good_pom = "<project><groupId>org.ok</groupId><artifactId>ok</artifactId><version>1</version></project>"
    return [
        ("python", write(tmp / "trunc.json", '{"meta": {"api-version": "1.1"},\n "name": "x", "files": [{'), "2:",
         "malformed JSON"),
        ("python", write(tmp / "type.json", simple_page("x", []) | {"files": [{"filename": "x-1.0.tar.gz",
         "url": "u", "hashes": {}, "size": "big"}]}), "$.files[0].size", "non-negative integer"),
        ("python", write(tmp / "api.json", {"meta": {"api-version": "2.0"}, "name": "x", "files": []}),
         "$.meta.api-version", "unsupported api-version"),
        ("python", write(tmp / "time.json", {"info": {"name": "x"}, "releases": {"1.0": [{"filename": "x-1.0.zip",
         "upload_time_iso_8601": "yesterday"}]}}), "$.releases['1.0'][0].upload_time_iso_8601", "ISO 8601"),
        ("python", write(tmp / "other.json", [1, 2]), "$", "expected a JSON object"),
        # What the size column cannot hold, and what no database, encoder or API call takes (issue 16).
        ("python", write(tmp / "huge.json", simple_page("x", [("1.0", 2**70, "2021-01-01T00:00:00Z")])),
         "$.files[0].size", f"size {2**70} is over the limit of {2**50} bytes"),
        ("python", write(tmp / "bigint.json", '{"meta": {"api-version": "1.1"}, "name": "x", "files": [{"size": '
         + "9" * 5000 + "}]}"), "1:", "an integer of more than 4300 digits"),
        ("python", write(tmp / "nan.json", '{"meta": {"api-version": "1.1"}, "name": "x", "files": [{"filename": '
         '"x-1.0.tar.gz", "url": "u", "hashes": {}, "size": NaN}]}'), "1:", "NaN is not a finite number"),
        ("python", write(tmp / "nul.json", {"info": {"name": "x", "version": "1.0", "summary": "a\x00b"},
         "releases": {}}), "$.info.summary", "contains a NUL character"),
        ("python", write(tmp / "surrogate.json", {"info": {"name": "x", "version": "1.0", "summary": "\ud800"},
         "releases": {}}), "$.info.summary", "contains a lone UTF-16 surrogate (U+D800)"),
        ("java", write(tmp / "doctype.pom", '<?xml version="1.0"?>\n<!DOCTYPE project [<!ENTITY x SYSTEM '
         '"file:///etc/passwd">]>\n<project>&x;</project>'), "2:1", "DOCTYPE"),
        ("java", write(tmp / "broken.pom", "<project>\n  <groupId>a</groupId>\n  <artifactId>b</project>"), "3:",
         "malformed XML"),
        ("java", write(tmp / "maven-metadata.xml", "<metadata><groupId>g</groupId><artifactId>a</artifactId>"
         "<versioning><versions><version>1.0</version><version>bad version</version></versions></versioning>"
         "</metadata>"), "/metadata/versioning/versions/version[2]", "not a valid Maven version"),
        ("java", write(tmp / "nogroup.pom", good_pom.replace("<groupId>org.ok</groupId>", "")), "/project",
         "<groupId> is missing"),
        ("java", write(tmp / "big.pom", "<project>" + " " * (9 << 20) + "</project>"), "", "over the limit"),
    ]  # fmt: skip


def test_bad_input_is_refused_and_changes_nothing(server: Any, http: httpx.Client, tmp_path: Path) -> None:
    for i, (eco, bad, place, problem) in enumerate(_bad_cases(tmp_path / "cases")):
        # Each bad file sits in a directory beside a good one: the whole import is refused.
        folder = tmp_path / f"run{i}"
        marker = f"pa-{secrets.token_hex(4)}-untouched"
        if eco == "python":
            write(folder / "a-good.json", simple_page(marker, [("1.0", 1, "2021-01-01T00:00:00Z")]))
            uid = f"python:{marker}"
        else:
            pom = (f"<project><groupId>org.{marker.replace('-', '')}</groupId><artifactId>ok</artifactId>"
                   "<version>1</version></project>")  # fmt: skip
            write(folder / "a-good.pom", pom)
            uid = f"java:org.{marker.replace('-', '')}:ok"
        target = folder / ("z-" + bad.name if bad.name != "maven-metadata.xml" else "z/maven-metadata.xml")
        write(target, bad.read_bytes().decode())
        error, message = refused(server, "libraries", eco, str(folder))
        assert error["file"] == str(target), error
        assert error["place"].startswith(place), (error, place)
        assert problem in error["problem"], error
        assert str(target) in message and problem in message
        r = http.get(f"/libraries/v2/artifacts/{uid}/versions")
        assert r.status_code == 404, (eco, bad.name, r.text)


def test_symlink_out_of_the_directory_is_refused(server: Any, tmp_path: Path) -> None:
    outside = write(tmp_path / "outside" / "p.json", simple_page("pa-outside", []))
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "link.json").symlink_to(outside)
    error, _ = refused(server, "libraries", "python", str(folder))
    assert "outside" in error["problem"]


def test_a_version_of_many_large_files(server: Any, http: httpx.Client, tmp_path: Path) -> None:
    """A version's size is the sum of its files (a PyTorch release is tens of GB): beyond 32 bits on both
    backends (PostgreSQL's column was a 32-bit INTEGER)."""
    name = f"pa-{secrets.token_hex(4)}-large"
    page = simple_page(name, [(f"2.{n}", 3 << 30, "2024-01-01T00:00:00Z") for n in range(3)])
    page["files"] = [f | {"filename": f["filename"].replace("-py3-", f"-{k}-py3-")}  # ten 3 GiB wheels each
                     for f in page["files"] for k in range(10)]  # fmt: skip
    assert imported(server, "libraries", "python", str(write(tmp_path / "large.json", page)))["rejected"] == []
    url = f"/libraries/v2/artifacts/python:{name}/versions"
    versions = list_all(http, url, {"orderBy": "size_bytes desc"}, "artifactVersions")
    assert [(v["version"], v["sizeBytes"]) for v in versions] == [(f"2.{n}", str(30 << 30)) for n in (2, 1, 0)]
