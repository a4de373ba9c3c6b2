"""ListVulnerabilityMetadata does bounded work (issue 16, item 5), over HTTP and gRPC on both backends: a
stored record appears once per answer however many of its aliases are asked for, a page stops at its byte
budget with a next_page_token, and a record too large for any page is refused at import."""

from __future__ import annotations

import json
import secrets
from pathlib import Path
from typing import Any

import httpx

from platform_api.advisory.metadata import MAX_ANSWER
from platform_api.gen.chainguard.platform.advisory.v2 import advisory_pb2, advisory_pb2_grpc
from platform_api.vulnerabilities.metadata import MAX_RECORD
from tests.helpers import TIMEOUT, imported, refused

MIB = 1 << 20


def write_osv(folder: Path, *records: dict[str, Any]) -> str:
    """`records` as OSV files in `folder`: the folder to import."""
    folder.mkdir(parents=True, exist_ok=True)
    for r in records:
        (folder / f"{r['id']}.json").write_text(json.dumps(r))
    return str(folder)


def osv(rid: str, **fields: Any) -> dict[str, Any]:
    return {"id": rid, "modified": "2024-01-01T00:00:00Z", "summary": f"summary of {rid}", **fields}


def walk_http(client: httpx.Client, params: dict[str, Any]) -> list[tuple[list[str], int]]:
    """Every page of the listing: ([entry ids], bytes of the answer)."""
    pages: list[tuple[list[str], int]] = []
    token = ""
    while len(pages) < 50:
        r = client.get("/advisory/v2/metadata", params={**params, **({"page_token": token} if token else {})})
        assert r.status_code == 200, r.text[:300]
        body = r.json()
        pages.append(([m["id"] for m in body.get("vulnerabilityMetadata", [])], len(r.content)))
        token = body.get("nextPageToken", "")
        if not token:
            return pages
    raise AssertionError("more than 50 pages")


def walk_grpc(server: Any, ids: list[str]) -> list[list[str]]:
    stub = advisory_pb2_grpc.SecurityAdvisoryServiceStub(server.grpc_channel(None))
    pages: list[list[str]] = []
    token = ""
    while len(pages) < 50:
        resp = stub.ListVulnerabilityMetadata(
            advisory_pb2.ListVulnerabilityMetadataRequest(ids=ids, page_size=200, page_token=token), timeout=TIMEOUT
        )
        assert resp.ByteSize() <= MAX_ANSWER + 64 * 1024
        pages.append([m.id for m in resp.vulnerability_metadata])
        token = resp.next_page_token
        if not token:
            return pages
    raise AssertionError("more than 50 pages")


def test_a_record_is_answered_once_however_many_aliases_are_asked(server: Any, anon: httpx.Client,
                                                                  tmp_path: Path) -> None:  # fmt: skip
    """The issue's record: 1,000 aliases and 1 MiB of details. Asking for 600 of them (a 12 KB URL) answered
    200 copies of it per page, 210 MB; now one entry, under the smallest id asked for."""
    n = secrets.randbelow(10**6)
    aliases = [f"CVE-2097-{n:06d}{i:03d}" for i in range(1000)]
    rid = f"PA-AMPLIFIED-{n}"
    imported(server, "osv", write_osv(tmp_path, osv(rid, aliases=aliases, details="x" * MIB)))
    asked = aliases[400:]  # 600 of them, in order
    pages = walk_http(anon, {"ids": asked, "page_size": 200})
    assert pages == [([aliases[400]], pages[0][1])], [p[0][:3] for p in pages]
    assert MIB < pages[0][1] < MIB + 4096  # one record's worth of bytes, not 200
    # Asked for by its own id among its aliases: shown under its own id.
    assert walk_http(anon, {"ids": [*asked[:50], rid], "page_size": 200})[0][0] == [rid]
    # gRPC, all 1,000 aliases: one entry as well.
    assert walk_grpc(server, list(reversed(aliases))) == [[aliases[0]]]
    r2 = anon.get("/advisory/v2/metadata", params={"ids": asked[:10]})
    assert r2.json()["totalCount"] == "1"


def test_pages_stop_at_the_byte_budget(server: Any, anon: httpx.Client, tmp_path: Path) -> None:
    """Five records of ~1 MiB each, asked for with page_size 200: pages of two (three would cross the 3 MiB
    budget), each with a next_page_token but the last, every record once."""
    n = secrets.randbelow(10**6)
    ids = [f"PA-BUDGET-{n}-{i}" for i in range(5)]
    records = [osv(i, summary="s" * 8000, details=chr(97 + k) * (MIB - 100)) for k, i in enumerate(ids)]
    imported(server, "osv", write_osv(tmp_path, *records))
    pages = walk_http(anon, {"ids": ids, "page_size": 200})
    assert [p[0] for p in pages] == [ids[0:2], ids[2:4], ids[4:5]]
    assert all(size <= MAX_ANSWER for _, size in pages), [size for _, size in pages]
    assert walk_grpc(server, ids) == [ids[0:2], ids[2:4], ids[4:5]]
    # Descending and with a small page size, the budget and page_size both hold.
    down = walk_http(anon, {"ids": ids, "page_size": 1, "order_by": "id desc"})
    assert [p[0] for p in down] == [[i] for i in reversed(ids)]


def test_a_record_too_large_for_a_page_is_refused_at_import(server: Any, anon: httpx.Client, tmp_path: Path) -> None:
    """The OSV format's own limits let one record hold ~100 MB (10,000 references of 8 KiB); stored
    metadata is at most MAX_RECORD bytes, so that any record fits a page."""
    rid = f"PA-HUGE-{secrets.randbelow(10**6)}"
    refs = [{"type": "WEB", "url": f"https://example.com/{i}/" + "r" * 8000} for i in range(300)]
    _, line = refused(server, "osv", write_osv(tmp_path, osv(rid, references=refs)))
    assert f"OSV record {rid}" in line and f"over the limit of {MAX_RECORD}" in line, line
    assert anon.get("/advisory/v2/metadata", params={"id": rid}).json()["totalCount"] == "0"
