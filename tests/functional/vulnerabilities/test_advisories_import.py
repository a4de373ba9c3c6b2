"""`platform-api import advisories` over the wire: the advisory YAML documents of tests/data/advisories
become the group's vulnerabilities.v2 Advisories and the public advisory.v2 feed's Documents; re-imports
are idempotent; bad input is refused with file, place and problem, leaving the database as it was."""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest

from platform_api.gen.chainguard.platform.advisory.v2 import advisory_pb2, advisory_pb2_grpc
from tests.helpers import imported, mk_group, refused, unique

DATA = Path(__file__).resolve().parents[2] / "data" / "advisories"


def write_docs(tmp: Path, suffix: str) -> dict[str, str]:
    """The fixture documents under `tmp` with package names made unique by `suffix`: {fixture: package}."""
    tmp.mkdir(parents=True, exist_ok=True)
    names = {}
    for f in sorted(DATA.glob("*.advisories.yaml")):
        base = f.name.split(".")[0]
        package = f"{base}-{suffix}"
        (tmp / f"{package}.advisories.yaml").write_text(f.read_text().replace(f"name: {base}\n", f"name: {package}\n"))
        names[base] = package
    return names


def advisories(http: httpx.Client, org: str, **params: Any) -> dict[str, Any]:
    r = http.get("/vulnerabilities/v2/advisories", params={"uidp.descendants_of": org, "page_size": 200, **params})
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def documents(client: httpx.Client, **params: Any) -> list[dict[str, Any]]:
    r = client.get("/advisory/v2/documents", params=params)
    assert r.status_code == 200, r.text
    docs: list[dict[str, Any]] = r.json().get("documents", [])
    return docs


def test_import_creates_advisories_and_documents(server: Any, http: httpx.Client, anon: httpx.Client,
                                                 org: str, tmp_path: Path) -> None:  # fmt: skip
    names = write_docs(tmp_path / "docs", secrets.token_hex(3))
    crane = names["crane"]
    (tmp_path / "docs" / ".github" / "workflows").mkdir(parents=True)
    (tmp_path / "docs" / ".github" / "workflows" / "ci.yaml").write_text("name: ci\non: push\n")  # skipped
    summary = imported(server, "advisories", str(tmp_path / "docs"), "--group", org)
    assert summary == {"created": 5, "updated": 0, "unchanged": 0, "rejected": []}

    body = advisories(http, org)
    assert body["totalCount"] == "5"
    by_id = {a["advisoryId"]: a for a in body["advisories"]}
    a = by_id["CGA-2fq3-jx6r-8w4c"]
    assert a["uid"].startswith(org + "/") and a["uid"].count("/") == 1
    assert a["artifactName"] == crane and a["artifactType"] == "apk"
    assert a["aliases"] == ["CVE-2023-2253", "GHSA-hqxw-f8mx-cpmw"]
    # Component facts from the scan/v1 detection; createTime = first event.
    assert (a["componentName"], a["componentType"], a["componentLocation"]) == (
        "github.com/docker/distribution", "go-module", "/usr/bin/crane")  # fmt: skip
    assert a["createTime"] == "2023-06-06T17:02:18.000Z"
    events = a["events"]
    assert [e["uid"].rsplit("/", 1)[0] for e in events] == [a["uid"]] * 3
    assert events[0]["detection"]["scanv1"] == {
        "scanner": "grype", "subpackage": "crane", "componentId": "fe8053a3adedc5d0",
        "component": "github.com/docker/distribution", "componentVersion": "v2.8.1+incompatible",
        "componentType": "go-module", "componentLocation": "/usr/bin/crane",
    }  # fmt: skip
    assert events[1]["truePositiveDetermination"] == {"note": "The vulnerable code path is reachable."}
    assert events[2]["fixed"] == {"fixedVersion": "0.15.2-r1"}
    assert events[2]["createTime"] == "2023-06-08T10:00:00.250Z"  # +02:00 normalized to UTC
    assert all(e["reviewState"] == "REVIEW_STATE_APPROVED" for e in events)
    fp = by_id["CGA-m7vp-w9xq-c3hr"]["events"][1]["falsePositiveDetermination"]
    assert fp == {"type": "TYPE_VULNERABLE_CODE_NOT_IN_EXECUTION_PATH", "note": "protojson.Unmarshal is never called."}
    nvd = by_id["CGA-m7vp-w9xq-c3hr"]["events"][0]["detection"]["nvdapi"]
    assert nvd["cpeFound"] == "cpe:2.3:a:golang:protobuf:*:*:*:*:*:go:*:*"
    assert by_id["CGA-9cgh-j2rr-5vwx"]["events"][0]["detection"] == {"manual": {}}

    # GetAdvisory answers the same record.
    r = http.get(f"/vulnerabilities/v2/advisories/{a['uid']}")
    assert r.status_code == 200 and r.json() == a

    # The public feed: no token needed.
    docs = documents(anon, id=crane)
    assert [d["id"] for d in docs] == [crane]
    feed = {x["id"]: x for x in docs[0]["advisories"]}
    assert set(feed) == {"CGA-2fq3-jx6r-8w4c", "CGA-m7vp-w9xq-c3hr", "CGA-9cgh-j2rr-5vwx"}
    first = feed["CGA-2fq3-jx6r-8w4c"]
    assert first["packageNamespace"] == "wolfi" and first["aliases"] == ["CVE-2023-2253", "GHSA-hqxw-f8mx-cpmw"]
    assert first["events"][0]["timestamp"] == "2023-06-06T17:02:18.000Z"
    assert first["events"][0]["detection"]["scanv1"]["subpackageName"] == "crane"
    assert first["events"][2] == {"timestamp": "2023-06-08T10:00:00.250Z", "fixed": {"fixedVersion": "0.15.2-r1"}}
    # By CVE: the documents mentioning it, each listing only the matching advisories.
    by_cve = [d for d in documents(anon, cves="CVE-2024-24786") if d["id"] == crane]
    assert [x["id"] for x in by_cve[0]["advisories"]] == ["CGA-m7vp-w9xq-c3hr"]
    both = documents(anon, id=names["busybox"], cves=["CVE-2022-48174", "CVE-2021-42374"])
    assert [len(d["advisories"]) for d in both] == [2]


def test_reimport_is_idempotent_and_changes_update_exactly(server: Any, http: httpx.Client, org: str,
                                                           tmp_path: Path) -> None:  # fmt: skip
    names = write_docs(tmp_path, secrets.token_hex(3))
    imported(server, "advisories", str(tmp_path), "--group", org)
    before = {a["uid"]: a for a in advisories(http, org)["advisories"]}
    summary = imported(server, "advisories", str(tmp_path), "--group", org)
    assert summary == {"created": 0, "updated": 0, "unchanged": 5, "rejected": []}
    assert {a["uid"]: a for a in advisories(http, org)["advisories"]} == before

    # One new event on one advisory, one new advisory: exactly those change; uids stay.
    path = tmp_path / f"{names['busybox']}.advisories.yaml"
    text = path.read_text().replace(
        "          note: Upstream has no fix.\n",
        "          note: Upstream has no fix.\n"
        "      - timestamp: 2023-09-01T00:00:00Z\n        type: fixed\n"
        "        data:\n          fixed-version: 1.36.1-r2\n",
    )
    text += (
        "  - id: CGA-xxx2-3456-789c\n    aliases: [CVE-2023-42363]\n    events:\n"
        "      - timestamp: 2023-10-01T00:00:00Z\n        type: detection\n        data:\n          type: manual\n"
    )
    path.write_text(text)
    summary = imported(server, "advisories", str(tmp_path), "--group", org)
    assert summary == {"created": 1, "updated": 1, "unchanged": 4, "rejected": []}
    after = {a["uid"]: a for a in advisories(http, org)["advisories"]}
    assert set(before) < set(after)
    changed = [u for u in before if before[u] != after[u]]
    assert len(changed) == 1
    a = after[changed[0]]
    assert a["advisoryId"] == "CGA-wwx2-3456-789c" and a["events"][-1]["fixed"]["fixedVersion"] == "1.36.1-r2"
    assert a["events"][0]["uid"] == before[changed[0]]["events"][0]["uid"]
    assert a["updateTime"] > before[changed[0]]["updateTime"]
    fixed = advisories(http, org, latest_event_type="EVENT_TYPE_FILTER_FIXED")
    assert {x["advisoryId"] for x in fixed["advisories"]} == {"CGA-2fq3-jx6r-8w4c", "CGA-wwx2-3456-789c"}
    doc = documents(http, id=names["busybox"])[0]
    assert len(doc["advisories"]) == 3


BAD = [
    ("schema-version: 3.0.0\npackage:\n  name: p\nadvisories: []\n", "1:17 (schema-version)", "not supported"),
    ("package:\n  name: p\n", "1:1 (schema-version)", "only 2.x is supported"),
    ("schema-version: 2.0.2\npackage:\n  name: p\nadvisories:\n  - id: CVE-2020-0001\n    events: []\n",
     "5:9 (advisories[0].id)", "is not an advisory id"),
    ("schema-version: 2.0.2\npackage:\n  name: p\nadvisories:\n  - id: CGA-2fq3-jx6r-8w4c\n    aliases: [XSA-1]\n",
     "6:15 (advisories[0].aliases[0])", "not a CVE, GHSA or GO"),
    ("schema-version: 2\npackage: {name: p}\nadvisories:\n  - id: CGA-2fq3-jx6r-8w4c\n    events:\n"
     "      - timestamp: yesterday\n        type: fixed\n        data: {fixed-version: 1-r1}\n",
     "6:20 (advisories[0].events[0].timestamp)", "not an RFC 3339 timestamp"),
    ("schema-version: 2\npackage: {name: p}\nadvisories:\n  - id: CGA-2fq3-jx6r-8w4c\n    events:\n"
     "      - timestamp: 2020-01-01T00:00:00Z\n        type: exploded\n",
     "7:15 (advisories[0].events[0].type)", "must be one of"),
    ("schema-version: 2\npackage: {name: p}\nadvisories:\n  - id: CGA-2fq3-jx6r-8w4c\n    events:\n"
     "      - timestamp: 2020-01-01T00:00:00Z\n        type: false-positive-determination\n"
     "        data: {type: not-a-reason}\n",
     "8:22 (advisories[0].events[0].data.type)", "invalid false positive determination type"),
    ("schema-version: 2\npackage: {name: p}\nadvisories:\n  - id: CGA-2fq3-jx6r-8w4c\n    events:\n"
     "      - timestamp: 2020-01-01T00:00:00Z\n        type: fixed\n        data: {}\n",
     "8:15 (advisories[0].events[0].data.fixed-version)", "fixed-version must not be empty"),
    ("schema-version: 2\npackage: {name: p}\nadvisories: &a\n  - *a\n", "3:13", "anchors and aliases are not allowed"),
    ("schema-version: 2\npackage: {name: p\n", "3:1", "malformed YAML"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "place", "problem"), BAD)
def test_bad_document_aborts_everything(server: Any, http: httpx.Client, org: str, tmp_path: Path,
                                        text: str, place: str, problem: str) -> None:  # fmt: skip
    names = write_docs(tmp_path, secrets.token_hex(3))
    (tmp_path / "zzz-bad.advisories.yaml").write_text(text)
    error, line = refused(server, "advisories", str(tmp_path), "--group", org)
    assert error["file"].endswith("zzz-bad.advisories.yaml")
    assert error["place"] == place, error
    assert problem in error["problem"], error
    assert "zzz-bad.advisories.yaml" in line and problem in line
    # Nothing was written: neither the good documents' advisories nor their feed documents.
    assert advisories(http, org)["totalCount"] == "0"
    assert documents(http, id=names["crane"]) == []


def test_bad_group_and_duplicate_packages(server: Any, http: httpx.Client, org: str, tmp_path: Path) -> None:
    write_docs(tmp_path, secrets.token_hex(3))
    missing = org[:-4] + ("0000" if not org.endswith("0000") else "1111")
    error, _ = refused(server, "advisories", str(tmp_path), "--group", missing)
    assert error["place"] == "--group" and "no group" in error["problem"]
    error, _ = refused(server, "advisories", str(tmp_path), "--group", "not-a-uid")
    assert error["place"] == "--group"
    first = sorted(tmp_path.glob("*.yaml"))[0]
    (tmp_path / "copy.yaml").write_text(first.read_text())
    error, _ = refused(server, "advisories", str(tmp_path), "--group", org)
    assert "also documented in" in error["problem"]
    assert advisories(http, org)["totalCount"] == "0"


def test_oversized_document_is_refused(server: Any, http: httpx.Client, org: str, tmp_path: Path) -> None:
    (tmp_path / "big.yaml").write_bytes(b"schema-version: 2\n" + b"#" * (9 << 20) + b"\n")
    error, _ = refused(server, "advisories", str(tmp_path), "--group", org)
    assert "over the limit" in error["problem"]


def test_documents_grpc_and_argument_errors(server: Any, anon: httpx.Client, org: str, tmp_path: Path) -> None:
    names = write_docs(tmp_path, secrets.token_hex(3))
    imported(server, "advisories", str(tmp_path), "--group", org, "--namespace", "chainguard")
    stub = advisory_pb2_grpc.SecurityAdvisoryServiceStub(server.grpc_channel(None))
    resp = stub.ListDocuments(advisory_pb2.ListDocumentsRequest(id=names["busybox"]))
    assert [d.id for d in resp.documents] == [names["busybox"]]
    assert {a.package_namespace for a in resp.documents[0].advisories} == {"chainguard"}
    assert resp.documents[0].advisories[0].events[0].WhichOneof("data") == "analysis_not_planned"
    r = anon.get("/advisory/v2/documents")
    assert r.status_code == 400
    r = anon.get("/advisory/v2/documents", params={"cves": [f"CVE-2020-{i:04d}" for i in range(101)]})
    assert r.status_code == 400
    with pytest.raises(grpc.RpcError) as e:
        stub.ListDocuments(advisory_pb2.ListDocumentsRequest())
    assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_bad_advisory_id_names_the_form_and_alphabet(server: Any, org: str, tmp_path: Path) -> None:
    (tmp_path / "p.yaml").write_text("schema-version: 2\npackage: {name: p}\nadvisories:\n  - id: CGA-aaaa-bbbb-cccc\n"
                                     "    events: [{timestamp: 2020-01-01T00:00:00Z, type: detection,"
                                     " data: {type: manual}}]\n")  # fmt: skip
    error, line = refused(server, "advisories", str(tmp_path), "--group", org)
    assert error["place"] == "4:9 (advisories[0].id)"
    assert "'CGA-aaaa-bbbb-cccc' is not an advisory id" in error["problem"]
    assert "CGA-xxxx-xxxx-xxxx" in line and "23456789cfghjmpqrvwx" in line, line


@pytest.mark.parametrize("suffix", [".yaml", ".yml"])
def test_one_file_imports_as_a_directory_of_it_does(server: Any, http: httpx.Client, org: str, tmp_path: Path,
                                                    suffix: str) -> None:  # fmt: skip
    names = write_docs(tmp_path / "all", secrets.token_hex(3))
    one = tmp_path / "all" / f"{names['crane']}.advisories.yaml"
    (tmp_path / "one").mkdir()
    single = tmp_path / "one" / f"crane{suffix}"
    single.write_text(one.read_text())
    assert imported(server, "advisories", str(single), "--group", org) == {
        "created": 3, "updated": 0, "unchanged": 0, "rejected": []}  # fmt: skip
    assert {a["artifactName"] for a in advisories(http, org)["advisories"]} == {names["crane"]}
    # The directory holding only that file: the same advisories, nothing new.
    assert imported(server, "advisories", str(tmp_path / "one"), "--group", org)["unchanged"] == 3
    # A file that is no YAML document, and one that is missing, are refused by name.
    (tmp_path / "notes.txt").write_text("hello\n")
    error, _ = refused(server, "advisories", str(tmp_path / "notes.txt"), "--group", org)
    assert error["problem"] == "not a directory or a .yaml/.yml advisory document"
    error, _ = refused(server, "advisories", str(tmp_path / "gone.yaml"), "--group", org)
    assert error["problem"] == "no such file or directory"


def test_empty_directory_is_refused(server: Any, http: httpx.Client, org: str, tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    error, line = refused(server, "advisories", str(tmp_path / "empty"), "--group", org)
    assert error == {"file": str(tmp_path / "empty"), "place": "",
                     "problem": "no advisory documents (*.yaml, *.yml) in this directory"}  # fmt: skip
    assert line.endswith(f"{tmp_path / 'empty'}: no advisory documents (*.yaml, *.yml) in this directory")
    # Only files the import skips (a hidden directory's, other suffixes): as empty.
    (tmp_path / "empty" / ".github").mkdir()
    (tmp_path / "empty" / ".github" / "ci.yaml").write_text("name: ci\n")
    (tmp_path / "empty" / "README.md").write_text("advisories\n")
    error, _ = refused(server, "advisories", str(tmp_path / "empty"), "--group", org)
    assert "no advisory documents" in error["problem"]


def test_group_by_name_or_path(server: Any, http: httpx.Client, org: str, tmp_path: Path) -> None:
    names = write_docs(tmp_path, secrets.token_hex(3))
    org_name = http.get(f"/iam/v2/groups/{org}").json()["name"]
    team_name = unique("team")
    team = mk_group(http, org, team_name)["uid"]
    summary = imported(server, "advisories", str(tmp_path), "--group", f"{org_name}/{team_name}")
    assert summary["created"] == 5
    uids = {a["uid"] for a in advisories(http, team)["advisories"]}
    assert len(uids) == 5 and all(u.startswith(team + "/") and u.count("/") == 2 for u in uids)
    # The organization by its name: the same documents, now its own advisories.
    assert imported(server, "advisories", str(tmp_path), "--group", org_name)["created"] == 5
    crane = advisories(http, org, artifact_names=names["crane"])["advisories"]
    assert {a["uid"].count("/") for a in crane} == {1, 2}
    # A uid still works (and writes nothing new).
    assert imported(server, "advisories", str(tmp_path), "--group", team)["unchanged"] == 5

    error, line = refused(server, "advisories", str(tmp_path), "--group", f"{org_name}/no-such-team")
    assert error["place"] == "--group" and error["problem"] == f"no group named 'no-such-team' under {org_name}"
    assert line.startswith(f"platform-api import advisories: {tmp_path}: --group: no group named")
    error, _ = refused(server, "advisories", str(tmp_path), "--group", "no-such-org-" + secrets.token_hex(3))
    assert error["problem"].startswith("no organization named 'no-such-org-")
    # A bare name that is a deeper group's, not an organization's: refused with the paths that would do.
    other = mk_group(http, mk_group(http, "", unique("org"))["uid"], team_name)["uid"]
    error, _ = refused(server, "advisories", str(tmp_path), "--group", team_name)
    other_org = http.get(f"/iam/v2/groups/{other.split('/')[0]}").json()["name"]
    paths = [p for _, p in sorted([(team, f"{org_name}/{team_name}"), (other, f"{other_org}/{team_name}")])]
    assert error["problem"] == (f"no organization named {team_name!r}; groups named {team_name!r}: "
                                f"{', '.join(paths)} (give one's path)")  # fmt: skip
