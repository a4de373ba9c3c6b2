"""`platform-api import osv` and advisory.v2 ListVulnerabilityMetadata over the wire (HTTP and gRPC), on
SQLite and PostgreSQL: fixtures in the OSV format, idempotent and updating re-imports, aliases, paging,
the 1,000-id bound, and bad inputs that leave the database as it was."""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import zipfile
from pathlib import Path
from typing import Any

import grpc
import pytest

from platform_api.gen.chainguard.platform.advisory.v2 import advisory_pb2, advisory_pb2_grpc
from platform_api.gen.records.vulnerabilities_v2 import Severity
from platform_api.store import db as store
from platform_api.vulnerabilities import metadata as vuln_metadata
from tests.helpers import imported, refused

DATA = Path(__file__).resolve().parents[2] / "data" / "osv"
V31_CRITICAL = "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H"


def record(rid: str, modified: str = "2024-01-01T00:00:00Z", **fields: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {"schema_version": "1.6.0", "id": rid, "modified": modified, "summary": f"summary of {rid}"}
    doc.update(fields)
    return doc


def write(folder: Path, *docs: dict[str, Any]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for d in docs:
        (folder / f"{d['id']}.json").write_text(json.dumps(d))
    return folder


def metadata(anon: Any, *ids: str, **params: Any) -> dict[str, Any]:
    r = anon.get("/advisory/v2/metadata", params={"ids": list(ids), **params})
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def ids_of(body: dict[str, Any]) -> list[str]:
    return [m["id"] for m in body.get("vulnerabilityMetadata", [])]


def prefix() -> str:
    return f"TEST-{secrets.token_hex(4)}"


def test_fixtures_import_query_and_reimport(server: Any, anon: Any) -> None:
    first = imported(server, "osv", str(DATA))
    assert first["created"] + first["unchanged"] == 3 and first["rejected"] == []
    assert imported(server, "osv", str(DATA)) == {"created": 0, "updated": 0, "unchanged": 3, "rejected": []}

    body = metadata(anon, "GHSA-4xqm-h5vw-9f8j")
    assert body["totalCount"] == "1" and body["skipped"] == 0 and "nextPageToken" not in body
    [ghsa] = body["vulnerabilityMetadata"]
    assert ghsa["summary"] == "Remote code execution in example-parser via crafted templates"
    assert ghsa["details"].startswith("example-parser before 2.4.1")
    # Top-level severities, then those under affected[]; the score is the vector as OSV gives it.
    assert ghsa["severities"] == [
        {"type": "TYPE_CVSS_V3", "score": V31_CRITICAL},
        {"type": "TYPE_CVSS_V4", "score": "CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N"},
    ]
    # GIT has no name in the contract: TYPE_UNSPECIFIED (the zero value, left out of JSON).
    kinds = [r.get("type") for r in ghsa["references"]]
    assert kinds == ["TYPE_ADVISORY", "TYPE_FIX", "TYPE_PACKAGE", None, "TYPE_WEB"]

    # By alias: the entry carries the id asked for and the aliasing record's content.
    body = metadata(anon, "CVE-2024-10001", "CVE-2024-10002", "CVE-2024-10003", "CVE-1999-0000")
    assert ids_of(body) == ["CVE-2024-10001", "CVE-2024-10002", "CVE-2024-10003"] and body["totalCount"] == "3"
    by_id = {m["id"]: m for m in body["vulnerabilityMetadata"]}
    assert by_id["CVE-2024-10001"]["summary"] == ghsa["summary"]
    assert by_id["CVE-2024-10002"]["severities"] == [
        {"type": "TYPE_CVSS_V2", "score": "AV:N/AC:M/Au:N/C:P/I:P/A:P"},
        {"type": "TYPE_CVSS_V3", "score": "CVSS:3.0/AV:N/AC:L/PR:N/UI:R/S:U/C:H/I:H/A:H"},
    ]
    assert [r["type"] for r in by_id["CVE-2024-10002"]["references"]] == [
        "TYPE_REPORT", "TYPE_DISCUSSION", "TYPE_EVIDENCE",
    ]  # fmt: skip
    # Ubuntu's priority has no contract type: kept, unspecified.
    assert by_id["CVE-2024-10003"]["severities"][0] == {"score": "medium"}

    # The single `id` parameter combines with `ids`.
    assert ids_of(metadata(anon, "CVE-2024-10002", id="GHSA-4xqm-h5vw-9f8j")) == [
        "CVE-2024-10002", "GHSA-4xqm-h5vw-9f8j",
    ]  # fmt: skip


def test_grpc_without_token(server: Any) -> None:
    imported(server, "osv", str(DATA))
    with grpc.insecure_channel(server.grpc_target) as channel:
        stub = advisory_pb2_grpc.SecurityAdvisoryServiceStub(channel)
        resp = stub.ListVulnerabilityMetadata(
            advisory_pb2.ListVulnerabilityMetadataRequest(id="CVE-2024-10001", ids=["CVE-2024-10002"])
        )
        assert [m.id for m in resp.vulnerability_metadata] == ["CVE-2024-10001", "CVE-2024-10002"]
        assert resp.total_count == 2
        sev = resp.vulnerability_metadata[0].severities[0]
        assert sev.type == advisory_pb2.Severity.TYPE_CVSS_V3 and sev.score == V31_CRITICAL
        with pytest.raises(grpc.RpcError) as e:
            stub.ListVulnerabilityMetadata(
                advisory_pb2.ListVulnerabilityMetadataRequest(ids=[f"CVE-2024-{i}" for i in range(1001)])
            )
        assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "ids takes at most 1000 values, got 1001" in (e.value.details() or "")


def test_reimport_updates_only_what_changed(server: Any, anon: Any, tmp_path: Path) -> None:
    p = prefix()
    docs = [record(f"{p}-{i}", aliases=[f"{p}-ALIAS-{i}"]) for i in range(5)]
    first = imported(server, "osv", str(write(tmp_path / "v1", *docs)))
    assert first == {"created": 5, "updated": 0, "unchanged": 0, "rejected": []}
    assert imported(server, "osv", str(tmp_path / "v1"))["unchanged"] == 5

    newer = dict(docs[0], modified="2024-02-01T00:00:00Z", summary="new summary", aliases=[f"{p}-ALIAS-NEW"])
    older = dict(docs[1], modified="2023-01-01T00:00:00Z", summary="an older copy")
    same_time = dict(docs[2], details="details added without a new modified time")
    v2 = write(tmp_path / "v2", newer, older, same_time, *docs[3:])
    assert imported(server, "osv", str(v2)) == {"created": 0, "updated": 2, "unchanged": 3, "rejected": []}

    by_id = {m["id"]: m for m in metadata(anon, *(d["id"] for d in docs))["vulnerabilityMetadata"]}
    assert by_id[f"{p}-0"]["summary"] == "new summary"
    assert by_id[f"{p}-1"]["summary"] == f"summary of {p}-1"  # an older record never overwrites a newer one
    assert by_id[f"{p}-2"]["details"] == "details added without a new modified time"
    # Aliases follow the record: the dropped one no longer answers, the new one does.
    assert ids_of(metadata(anon, f"{p}-ALIAS-0", f"{p}-ALIAS-NEW", f"{p}-ALIAS-1")) == [
        f"{p}-ALIAS-1", f"{p}-ALIAS-NEW",
    ]  # fmt: skip


def test_zip_import(server: Any, anon: Any, tmp_path: Path) -> None:
    p = prefix()
    archive = tmp_path / "all.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as z:
        severity = [{"type": "CVSS_V3", "score": V31_CRITICAL}]
        for i in range(3):
            z.writestr(f"{p}-{i}.json", json.dumps(record(f"{p}-{i}", severity=severity)))
        z.writestr("README.txt", "not a record")
    assert imported(server, "osv", str(archive))["created"] == 3
    assert imported(server, "osv", str(archive))["unchanged"] == 3
    assert metadata(anon, f"{p}-2")["vulnerabilityMetadata"][0]["severities"][0]["score"] == V31_CRITICAL


def test_alias_choice_exact_id_then_latest(server: Any, anon: Any, tmp_path: Path) -> None:
    p = prefix()
    cve = f"{p}-CVE"
    docs = [
        record(f"{p}-A", "2024-01-01T00:00:00Z", aliases=[cve], summary="older aliasing record"),
        record(f"{p}-B", "2024-06-01T00:00:00Z", aliases=[cve], summary="newer aliasing record"),
    ]
    imported(server, "osv", str(write(tmp_path / "a", *docs)))
    assert metadata(anon, cve)["vulnerabilityMetadata"][0]["summary"] == "newer aliasing record"
    imported(server, "osv", str(write(tmp_path / "b", record(cve, summary="the record itself"))))
    [m] = metadata(anon, cve)["vulnerabilityMetadata"]
    assert m == {"id": cve, "summary": "the record itself"}


def test_paging_order_and_skip(server: Any, anon: Any, tmp_path: Path) -> None:
    p = prefix()
    want = [f"{p}-{i:02d}" for i in range(7)]
    imported(server, "osv", str(write(tmp_path, *(record(i) for i in want))))
    asked = [*reversed(want), f"{p}-missing", want[0]]

    seen, token = [], ""
    for _ in range(5):
        body = metadata(anon, *asked, page_size=3, **({"page_token": token} if token else {}))
        assert body["totalCount"] == "7"
        seen += ids_of(body)
        token = body.get("nextPageToken", "")
        if not token:
            break
    assert seen == want

    body = metadata(anon, *asked, order_by="id desc", page_size=2, skip=1)
    assert ids_of(body) == [want[5], want[4]] and body["skipped"] == 1
    body = metadata(anon, *asked, order_by="id desc", page_size=2, skip=1, page_token=body["nextPageToken"])
    assert ids_of(body) == [want[2], want[1]]

    # A token is bound to its query.
    token = metadata(anon, *asked, page_size=3)["nextPageToken"]
    r = anon.get("/advisory/v2/metadata", params={"ids": want[:2], "page_size": 3, "page_token": token})
    assert r.status_code == 400 and "different query" in r.text

    # No ids: every stored record, in id order, under its own id.
    body = metadata(anon, page_size=200)
    listed = ids_of(body)
    assert listed == sorted(listed) and int(body["totalCount"]) >= 7


@pytest.mark.parametrize(
    ("params", "field", "text"),
    [
        ({"ids": [f"CVE-2024-{i}" for i in range(1001)]}, "ids", "ids takes at most 1000 values, got 1001"),
        ({"ids": [f"CVE-2024-{i}" for i in range(1000)], "id": "CVE-3"}, "ids", "at most 1000 unique ids per request"),
        ({"ids": ["CVE-1"] * 999 + ["CVE-2"], "id": "CVE-3"}, "", ""),  # 3 unique ids: fine
        ({"ids": ["not an id"]}, "ids[0]", "is not a vulnerability id"),
        ({"id": "CVE-1", "ids": ["CVE-1", "CVE-2", ""]}, "ids[2]", "must not be empty"),
        ({"id": "x" * 200}, "id", "longer than"),
        ({"order_by": "summary"}, "order_by", "order_by must be 'id [asc|desc]'"),
        ({"page_size": -1}, "page_size", "must not be negative"),
        ({"skip": -1}, "skip", "must not be negative"),
        ({"page_token": "garbage"}, "page_token", "malformed"),
    ],
)
def test_invalid_requests(anon: Any, params: dict[str, Any], field: str, text: str) -> None:
    r = anon.get("/advisory/v2/metadata", params=params)
    if not field:
        assert r.status_code == 200, r.text
        return
    assert r.status_code == 400, r.text
    body = r.json()
    assert body["code"] == 3 and text in body["message"]
    violations = next(d for d in body["details"] if d["@type"].endswith("BadRequest"))["fieldViolations"]
    assert violations[0]["field"] == field


def _bad_cases(p: str) -> list[tuple[str, Any, str, str]]:
    """(file name, content (bytes or a JSON document), place, problem substring)."""
    return [
        ("truncated.json", b'{"id": "X-1", "modified": ', "1:", "malformed JSON"),
        ("no-modified.json", {"id": f"{p}-x"}, "$.modified", "required"),
        ("bad-time.json", record(f"{p}-x", modified="yesterday"), "$.modified", "not an RFC 3339 timestamp"),
        ("id-type.json", {"id": 12, "modified": "2024-01-01T00:00:00Z"}, "$.id", "must be a string, got a number"),
        ("schema.json", record(f"{p}-x", schema_version="2.0.0"), "$.schema_version", "unsupported OSV schema"),
        ("sev-type.json", record(f"{p}-x", severity=[{"type": "CVSS_V3", "score": 9.8}]), "$.severity[0].score",
         "must be a string, got a number"),
        ("sev-vector.json", record(f"{p}-x", severity=[{"type": "CVSS_V3", "score": "CVSS:3.1/AV:N/AC:L/PR:N"}]),
         "$.severity[0].score", "is not a CVSS_V3 vector: base metric(s) UI, S, C, I, A missing"),
        ("sev-v4.json", record(f"{p}-x", affected=[{"severity": [{"type": "CVSS_V4", "score": V31_CRITICAL}]}]),
         "$.affected[0].severity[0].score", "starts with CVSS:4.0/"),
        ("ref.json", record(f"{p}-x", references=[{"type": "WEB", "url": ["https://x"]}]), "$.references[0].url",
         "must be a string, got an array"),
        ("aliases.json", record(f"{p}-x", aliases="CVE-1"), "$.aliases", "must be an array, got a string"),
        ("doc.json", [1, 2], "$", "must be an object, got an array"),
    ]  # fmt: skip


def test_bad_records_are_refused_and_change_nothing(server: Any, anon: Any, tmp_path: Path) -> None:
    p = prefix()
    for n, (name, content, place, problem) in enumerate(_bad_cases(p)):
        folder = tmp_path / f"case{n}"
        # A good record sorted before the bad file: the refusal must roll it back.
        write(folder, record(f"{p}-good-{n}"))
        (folder / f"z-{name}").write_bytes(content if isinstance(content, bytes) else json.dumps(content).encode())
        error, message = refused(server, "osv", str(folder))
        assert error["file"] == str(folder / f"z-{name}"), (name, error)
        assert error["place"].startswith(place) and problem in error["problem"], (name, error)
        assert f"z-{name}" in message and problem in message
        assert metadata(anon, f"{p}-good-{n}")["totalCount"] == "0", name


def test_zip_bomb_and_huge_file_are_refused(server: Any, anon: Any, tmp_path: Path) -> None:
    p = prefix()
    bomb = tmp_path / "bomb.zip"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(f"{p}-ok.json", json.dumps(record(f"{p}-ok")))
        z.writestr("bomb.json", b"[" + b" " * (20 << 20) + b"]")  # ~20 KB stored, 20 MB inflated
    assert bomb.stat().st_size < 64 << 10
    error, message = refused(server, "osv", str(bomb))
    assert error == {"file": str(bomb), "place": "bomb.json",
                     "problem": "inflates beyond the import's bounds (a zip bomb?)"}  # fmt: skip
    assert message.endswith(f"{bomb}: bomb.json: inflates beyond the import's bounds (a zip bomb?)")
    assert metadata(anon, f"{p}-ok")["totalCount"] == "0"

    folder = write(tmp_path / "huge", record(f"{p}-fine"))
    huge = folder / "zz-huge.json"
    with huge.open("wb") as f:  # sparse: 200 MB that take no disk
        f.truncate(200 << 20)
    error, _ = refused(server, "osv", str(folder))
    assert error["file"] == str(huge) and "209715200 bytes is over the limit" in error["problem"]
    assert metadata(anon, f"{p}-fine")["totalCount"] == "0"


def test_symlink_out_of_the_directory_is_refused(server: Any, tmp_path: Path) -> None:
    outside = tmp_path / "secret.json"
    outside.write_text(json.dumps(record(f"{prefix()}-outside")))
    folder = tmp_path / "dir"
    folder.mkdir()
    os.symlink(outside, folder / "link.json")
    error, _ = refused(server, "osv", str(folder))
    assert error["file"] == str(folder / "link.json") and "points outside" in error["problem"]


def test_missing_and_unreadable_inputs(server: Any, tmp_path: Path) -> None:
    error, _ = refused(server, "osv", str(tmp_path / "nope.zip"))
    assert "no such file or directory" in error["problem"]
    (tmp_path / "not.zip").write_bytes(b"plain text")
    error, _ = refused(server, "osv", str(tmp_path / "not.zip"))
    assert "not a readable zip" in error["problem"]


def test_severities_for_advisories_on_this_backend(server: Any, tmp_path: Path) -> None:
    """vulnerabilities.metadata.severities(), what Advisory.severities is filled from, on the server's database."""
    p = prefix()
    cga, cve = f"{p}-CGA", f"{p}-CVE"
    v2 = "AV:N/AC:L/Au:N/C:P/I:P/A:P"
    docs = [
        record(f"{p}-GHSA", aliases=[cve, cga], severity=[{"type": "CVSS_V3", "score": V31_CRITICAL}]),
        record(f"{p}-OTHER", severity=[{"type": "CVSS_V2", "score": v2}]),
    ]
    imported(server, "osv", str(write(tmp_path, *docs)))

    async def go() -> dict[str, list[Severity]]:
        database = await store.connect(server.database_url)
        try:
            return await vuln_metadata.severities(database, [cga, cve, f"{p}-OTHER", f"{p}-NONE"])
        finally:
            await database.close()

    v3 = [Severity(type="TYPE_CVSS_V3", score=V31_CRITICAL)]
    assert asyncio.run(go()) == {cga: v3, cve: v3, f"{p}-OTHER": [Severity(type="TYPE_CVSS_V2", score=v2)]}
