"""`platform-api import eol` (endoflife.date cycles for a repo's main package) and the v1 ListEolTags over
both transports: cycles joined to tags by name, status from the EOL date, paging by token, filters,
idempotent re-import, bad input, visibility. The EolTag is the contract's (fields 7, 9, 12, 13, 14), so a client
generated from the vendor's v1 protos decodes every field."""

from __future__ import annotations

import hashlib
import json
import secrets
from pathlib import Path
from typing import Any

import httpx
import pytest

from platform_api.ctl import exit_codes
from platform_api.gen.chainguard.platform.registry.v1 import registry_pb2, registry_pb2_grpc
from tests.helpers import run_import

CYCLES = Path(__file__).resolve().parents[2] / "data" / "eol" / "python.json"
TAGS = ("3.12", "3.12.7", "3.12-dev", "3.13.0", "3.1.5", "2.7", "2.6", "latest", "3.12-20260101")


def tagged_repo(server: Any, http: httpx.Client, org: str, tmp_path: Path) -> tuple[str, str]:
    """A repo whose one image carries TAGS: (repo uid, digest)."""
    r = http.post(f"/registry/v2/repos/{org}", json={"name": "eol-" + secrets.token_hex(4)})
    assert r.status_code == 200, r.text
    repo = r.json()["uid"]
    root = tmp_path / secrets.token_hex(4)
    (root / "blobs" / "sha256").mkdir(parents=True)
    config = {"mediaType": "application/vnd.oci.image.config.v1+json", "digest": "sha256:" + "a" * 64, "size": 2}
    doc = {
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.manifest.v1+json",
        "config": config,
        "layers": [],
    }
    data = json.dumps(doc).encode()
    hexd = hashlib.sha256(data).hexdigest()
    (root / "blobs" / "sha256" / hexd).write_bytes(data)
    desc = {"mediaType": doc["mediaType"], "digest": "sha256:" + hexd, "size": len(data)}
    top = [desc | {"annotations": {"org.opencontainers.image.ref.name": t}} for t in TAGS]
    (root / "oci-layout").write_text('{"imageLayoutVersion": "1.0.0"}')
    (root / "index.json").write_text(json.dumps({"schemaVersion": 2, "manifests": top}))
    server.cli("import", "oci", repo, str(root))
    return repo, "sha256:" + hexd


def eol_tags(client: httpx.Client, **params: Any) -> dict[str, Any]:
    r = client.get("/registry/v1/eoltags", params=params)
    assert r.status_code == 200, r.text
    return dict(r.json())


def test_eol_tags(server: Any, http: httpx.Client, org: str, tmp_path: Path) -> None:
    repo, _ = tagged_repo(server, http, org, tmp_path)
    assert eol_tags(http, **{"uidp.childrenOf": repo}) == {}  # no EOL data for the repo yet
    summary = json.loads(server.cli("import", "eol", repo, "python", str(CYCLES)))
    assert summary["cycles"] == {"created": 5, "updated": 0, "unchanged": 0, "removed": 0}
    again = json.loads(server.cli("import", "eol", repo, "python", str(CYCLES)))
    assert again["cycles"] == {"created": 0, "updated": 0, "unchanged": 5, "removed": 0}

    items = {i["name"]: i for i in eol_tags(http, **{"uidp.childrenOf": repo, "pageSize": 100})["items"]}
    assert set(items) == set(TAGS)
    t = items["3.12.7"]
    assert t["id"].startswith(repo + "/") and t["mainPackageName"] == "python"
    assert t.get("tagStatus", "TAG_ACTIVE") == "TAG_ACTIVE"
    assert t["mainPackageVersion"] == {"eolDate": "2099-10-31", "exists": True, "releaseDate": "2023-10-02",
                                       "version": "3.12", "latestVersion": "3.12.7"}  # fmt: skip
    assert items["3.12-dev"]["mainPackageVersion"]["version"] == "3.12"
    assert items["3.1.5"]["mainPackageVersion"]["version"] == "3.1"  # the longest cycle, not 3.12 or 3.13
    assert items["2.7"]["tagStatus"] == "TAG_INACTIVE" and items["2.7"]["mainPackageVersion"]["lts"] is True
    assert items["2.6"]["tagStatus"] == "TAG_INACTIVE"  # eol: true
    assert (
        items["latest"]["mainPackageVersion"] == {} and items["latest"].get("tagStatus", "TAG_ACTIVE") == "TAG_ACTIVE"
    )
    assert "3.12-20260101" not in {
        i["name"] for i in eol_tags(http, **{"uidp.childrenOf": repo, "excludeDates": True})["items"]
    }
    assert [i["name"] for i in eol_tags(http, name="3.13.0", **{"uidp.childrenOf": repo})["items"]] == ["3.13.0"]

    # Paging by token: every tag once.
    seen, token = [], ""
    while True:
        page = eol_tags(http, **{"uidp.childrenOf": repo, "pageSize": 2, "pageToken": token})
        seen += [i["name"] for i in page["items"]]
        token = page.get("nextPageToken", "")
        if not token:
            break
    assert sorted(seen) == sorted(TAGS)
    assert http.get("/registry/v1/eoltags", params={"pageToken": "garbage"}).status_code == 400
    assert http.get("/registry/v1/eoltags", params={"pageSize": "x"}).status_code == 400

    # A changed file updates and removes exactly what changed.
    cycles = json.loads(CYCLES.read_text())
    cycles[0]["latest"] = "3.13.1"
    (tmp_path / "changed.json").write_text(json.dumps(cycles[:4]))
    changed = json.loads(server.cli("import", "eol", repo, "python", str(tmp_path / "changed.json")))
    assert changed["cycles"] == {"created": 0, "updated": 1, "unchanged": 3, "removed": 1}

    with server.grpc_channel(server.token) as ch:
        got = registry_pb2_grpc.RegistryStub(ch).ListEolTags(
            registry_pb2.EolTagFilter(uidp={"children_of": repo}, name="3.13.0")
        )
        assert [(i.name, i.main_package_name, i.main_package_version.latestVersion) for i in got.items] == [
            ("3.13.0", "python", "3.13.1")]  # fmt: skip
        inactive = registry_pb2_grpc.RegistryStub(ch).ListEolTags(
            registry_pb2.EolTagFilter(uidp={"children_of": repo}, name="2.7")
        )
        [tag] = inactive.items
        assert (tag.tag_status, tag.grace_status) == (registry_pb2.TAG_INACTIVE, registry_pb2.GRACE_NOT_ELIGIBLE)
        assert (tag.main_package_version.version, tag.main_package_version.lts) == ("2.7", True)


BAD = {
    "not-list": ('{"cycle": "1"}', "$: expected a JSON list"),
    "cycle": ('[{"cycle": "../x"}]', "$[0].cycle"),
    "eol": ('[{"cycle": "1", "eol": "soon"}]', "$[0].eol: 'soon' is neither"),
    "twice": ('[{"cycle": "1"}, {"cycle": "1"}]', "$[1].cycle: cycle '1' appears twice"),
    "truncated": ('[{"cycle": "1"', "malformed JSON"),
    # Numbers and strings that cannot be stored, or read back (issue 16).
    "nan": ('[{"cycle": "1", "latest": NaN}]', ": 1:27: NaN is not a finite number"),
    "bigint": ('[{"cycle": ' + "9" * 5000 + "}]", ": 1:12: an integer of more than 4300 digits"),
    "nul": ('[{"cycle": "1", "latest": "1.\\u0000"}]', "$[0].latest: contains a NUL character"),
    "surrogate": ('[{"cycle": "1", "latest": "\\ud800"}]', "$[0].latest: contains a lone UTF-16 surrogate (U+D800)"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_cycles_change_nothing(case: str, server: Any, http: httpx.Client, org: str, tmp_path: Path) -> None:
    repo, _ = tagged_repo(server, http, org, tmp_path)
    server.cli("import", "eol", repo, "python", str(CYCLES))
    before = eol_tags(http, **{"uidp.childrenOf": repo, "pageSize": 100})
    text, want = BAD[case]
    path = tmp_path / "bad.json"
    path.write_text(text)
    r = run_import(server, "eol", repo, "python", str(path))
    assert r.returncode == exit_codes.INVALID and want in r.stderr and str(path) in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert eol_tags(http, **{"uidp.childrenOf": repo, "pageSize": 100}) == before


def test_visibility(server: Any, http: httpx.Client, anon: httpx.Client, org: str, tmp_path: Path) -> None:
    repo, _ = tagged_repo(server, http, org, tmp_path)
    server.cli("import", "eol", repo, "python", str(CYCLES))
    assert anon.get("/registry/v1/eoltags").status_code == 401
    _, token = server.identity_with_role(org, "registry.pull")  # tag.list
    with server.client(token) as c:
        assert len(eol_tags(c, pageSize=100)["items"]) == len(TAGS)
    role = http.post(
        f"/iam/v2/roles/{org}", json={"name": "r-" + secrets.token_hex(4), "capabilities": ["CAP_REPO_LIST"]}
    )
    _, token = server.identity_with_role(org, role.json()["uid"])
    with server.client(token) as c:
        assert eol_tags(c) == {}
