"""Nested image indexes over the wire, both backends: the issue's fan-out (150 identical entries nested 3
deep) answers from what the import flattened; indexes imported apart, in any order, and rows recorded before
imports flattened still answer right; re-imports say unchanged; the flattening caps refuse an import whole."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import httpx

from platform_api.gen.chainguard.platform.registry.v2 import images_pb2, images_pb2_grpc
from tests.helpers import TIMEOUT, image_architectures, image_size, imported, mk_repo, refused, run_db
from tests.helpers.oci_layouts import OCI_INDEX, OCI_MANIFEST, nested_layout


def blob(root: Path, desc: dict[str, Any]) -> str:
    """The path of a descriptor's blob in the layout (a document `import oci` also reads alone)."""
    return str(root / "blobs" / "sha256" / desc["digest"].removeprefix("sha256:"))


def answers(http: httpx.Client, repo: str, top: str, d: dict[str, Any]) -> None:
    """What GetArchitectures and GetSize say of the nested index `top`."""
    r = image_architectures(http, repo, top)
    assert r.status_code == 200 and r.json() == {"architectures": ["amd64", "arm64"]}, r.text
    for arch, asked in (("amd64", ""), ("arm64", "arm64")):  # amd64 when none is asked for
        want = {"size": str(d[arch]["expected_size"]), "architecture": arch}
        assert image_size(http, repo, top, asked).json() == want
    assert image_size(http, repo, top, "s390x").status_code == 404


def test_the_issues_fan_out(server: Any, http: httpx.Client, org: str, tmp_path: Path) -> None:
    repo = mk_repo(http, org)["uid"]
    d = nested_layout(tmp_path / "l", width=150, depth=3)
    summary = imported(server, "oci", repo, str(tmp_path / "l"))
    assert summary["manifests"] == {"created": 2, "updated": 0, "unchanged": 0}
    assert summary["indexes"] == {"created": 3, "updated": 0, "unchanged": 0}
    for index in d["indexes"]:
        answers(http, repo, index["digest"], d)
    with server.grpc_channel(server.token) as ch:
        stub = images_pb2_grpc.ImagesServiceStub(ch)
        req = images_pb2.GetArchitecturesRequest(repo_uid=repo, digest=d["indexes"][0]["digest"])
        assert list(stub.GetArchitectures(req, timeout=TIMEOUT).architectures) == ["amd64", "arm64"]
        got = stub.GetSize(images_pb2.GetSizeRequest(repo_uid=repo, digest=d["indexes"][0]["digest"]), timeout=TIMEOUT)
        assert (got.size, got.architecture) == (d["amd64"]["expected_size"], "amd64")
    again = imported(server, "oci", repo, str(tmp_path / "l"))
    assert (again["created"], again["updated"], again["unchanged"]) == (0, 0, 6)


def test_indexes_imported_apart_in_any_order(server: Any, http: httpx.Client, org: str, tmp_path: Path) -> None:
    repo = mk_repo(http, org)["uid"]
    root = tmp_path / "l"
    d = nested_layout(root, width=3, depth=3)
    outer, middle, inner = (i["digest"] for i in d["indexes"])
    imported(server, "oci", repo, blob(root, d["indexes"][0]))
    assert image_architectures(http, repo, outer).json() == {}  # nothing below it known yet
    imported(server, "oci", repo, blob(root, d["indexes"][2]))
    assert image_architectures(http, repo, outer).json() == {}  # the middle one is still missing
    # The middle index flattens at import (the inner one is recorded); the outer one is walked on read.
    imported(server, "oci", repo, blob(root, d["indexes"][1]))
    assert image_architectures(http, repo, outer).json() == {"architectures": ["amd64", "arm64"]}
    r = image_size(http, repo, outer)
    assert r.status_code == 404 and "amd64 manifest" in r.text  # the platform manifests are not imported yet
    for arch in ("amd64", "arm64"):
        imported(server, "oci", repo, blob(root, d[arch]))
    answers(http, repo, outer, d)
    # Importing the outer index again flattens it completely: "updated" once, then unchanged.
    assert imported(server, "oci", repo, blob(root, d["indexes"][0]))["indexes"]["updated"] == 1
    assert imported(server, "oci", repo, blob(root, d["indexes"][0]))["indexes"]["unchanged"] == 1
    stored = stored_platforms(server, repo)
    assert [e["digest"] for e in stored[outer]] == [d["amd64"]["digest"], d["arm64"]["digest"]]
    assert stored[middle] == stored[inner] == stored[outer]
    answers(http, repo, outer, d)


def stored_platforms(server: Any, repo: str) -> dict[str, Any]:
    async def go(database: Any) -> dict[str, Any]:
        found = await database.fetch("SELECT digest, body FROM images WHERE repo = $1 AND is_index = 1", repo)
        return {r["digest"]: json.loads(r["body"]).get("platforms") for r in found}

    return run_db(server, go)


def test_rows_recorded_before_flattening(server: Any, http: httpx.Client, org: str, tmp_path: Path) -> None:
    """The upgrade path: index rows without flattened entries (as the release before wrote them) are
    resolved on read, lazily; importing them again stores the flattening."""
    repo = mk_repo(http, org)["uid"]
    d = nested_layout(tmp_path / "l", width=20, depth=3)
    imported(server, "oci", repo, str(tmp_path / "l"))

    async def unflatten(database: Any) -> None:
        for r in await database.fetch("SELECT digest, body FROM images WHERE repo = $1 AND is_index = 1", repo):
            facts = {"children": json.loads(r["body"])["children"]}
            body = json.dumps(facts, sort_keys=True, separators=(",", ":"))
            sql = "UPDATE images SET body = $3 WHERE repo = $1 AND digest = $2"
            await database.execute(sql, repo, r["digest"], body)

    run_db(server, unflatten)
    assert set(stored_platforms(server, repo).values()) == {None}
    for index in d["indexes"]:
        answers(http, repo, index["digest"], d)
    assert imported(server, "oci", repo, str(tmp_path / "l"))["indexes"] == {"created": 0, "updated": 3, "unchanged": 0}
    assert imported(server, "oci", repo, str(tmp_path / "l"))["indexes"] == {"created": 0, "updated": 0, "unchanged": 3}
    answers(http, repo, d["indexes"][0]["digest"], d)


def test_flattening_caps_refuse_the_import(server: Any, http: httpx.Client, org: str, tmp_path: Path) -> None:
    repo = mk_repo(http, org)["uid"]
    halves = []
    for half in range(2):  # two indexes of 600 distinct (not imported) manifests each: accepted alone
        entries = [{"mediaType": OCI_MANIFEST, "digest": "sha256:" + hashlib.sha256(b"%d-%d" % (half, n)).hexdigest(),
                    "size": 10, "platform": {"os": "linux", "architecture": "amd64"}} for n in range(600)]  # fmt: skip
        path = tmp_path / f"half{half}.json"
        path.write_text(json.dumps({"schemaVersion": 2, "mediaType": OCI_INDEX, "manifests": entries}))
        imported(server, "oci", repo, str(path))
        data = path.read_bytes()
        digest = "sha256:" + hashlib.sha256(data).hexdigest()
        halves.append({"mediaType": OCI_INDEX, "digest": digest, "size": len(data)})
    both = tmp_path / "both.json"
    both.write_text(json.dumps({"schemaVersion": 2, "mediaType": OCI_INDEX, "manifests": halves}))
    _, err = refused(server, "oci", repo, str(both))
    assert "flatten to more than 1000 entries" in err and str(both) in err, err
    digest = "sha256:" + hashlib.sha256(both.read_bytes()).hexdigest()
    assert image_architectures(http, repo, digest).status_code == 404
