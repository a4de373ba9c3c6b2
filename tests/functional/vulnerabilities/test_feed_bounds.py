"""The public feed's ListDocuments does bounded work (issue 16, item 6), over HTTP and gRPC on both backends:
the `cves` filter answers exactly the advisories aliasing the CVEs asked for (each once), at most 500
documents, and an answer over its byte budget is RESOURCE_EXHAUSTED; a document too large to be answered
is refused at import. (That the filter reads only those advisories: tests/unit/advisory/test_documents_reads.py.)"""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest

from platform_api.advisory.documents import MAX_ANSWER, MAX_DOCUMENTS
from platform_api.gen.chainguard.platform.advisory.v2 import advisory_pb2, advisory_pb2_grpc
from tests.helpers import TIMEOUT, error_info, imported, refused, rpc_error

ALPHABET = "23456789cfghjmpqrvwx"


def cga(n: int) -> str:
    s = "".join(ALPHABET[(n // len(ALPHABET) ** k) % len(ALPHABET)] for k in range(12))
    return f"CGA-{s[0:4]}-{s[4:8]}-{s[8:12]}"


def advisory(n: int, aliases: list[str], notes: int = 0, note_size: int = 0) -> str:
    out = f"  - id: {cga(n)}\n    aliases: [{', '.join(aliases)}]\n    events:\n"
    out += "      - timestamp: 2024-01-01T00:00:00Z\n        type: detection\n        data: {type: manual}\n"
    for i in range(notes):
        out += f"      - timestamp: 2024-02-01T00:00:{i % 60:02d}Z\n        type: fix-not-planned\n"
        out += f"        data: {{note: {'n' * note_size}}}\n"
    return out


def write_doc(folder: Path, package: str, *advisories: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{package}.advisories.yaml"
    path.write_text(f"schema-version: 2.0.2\npackage:\n  name: {package}\nadvisories:\n" + "".join(advisories))
    return path


def tag() -> str:
    return secrets.token_hex(3)


def cve(n: int) -> str:
    return f"CVE-2096-{n:07d}"


def test_cves_answer_each_matching_advisory_once(server: Any, anon: httpx.Client, org: str, tmp_path: Path) -> None:
    t, base = tag(), secrets.randbelow(10**6) * 10
    c1, c2, c3, c4 = cve(base + 1), cve(base + 2), cve(base + 3), cve(base + 4)
    # The first advisory aliases two of the CVEs asked for: it is answered once.
    write_doc(tmp_path, f"feed-a-{t}", advisory(base + 1, [c1, c2]), advisory(base + 2, [c4]), advisory(base + 3, [c3]))
    write_doc(tmp_path, f"feed-b-{t}", advisory(base + 4, [c1]))
    imported(server, "advisories", str(tmp_path), "--group", org)
    got = anon.get("/advisory/v2/documents", params={"cves": [c1, c2, c4]}).json()["documents"]
    assert [(d["id"], [a["id"] for a in d["advisories"]]) for d in got] == [
        (f"feed-a-{t}", [cga(base + 1), cga(base + 2)]), (f"feed-b-{t}", [cga(base + 4)]),
    ]  # fmt: skip
    assert got[0]["advisories"][0]["aliases"] == [c1, c2] and got[0]["advisories"][0]["packageNamespace"] == "wolfi"
    # id AND cves; id alone: the whole document in order.
    both = anon.get("/advisory/v2/documents", params={"cves": [c1], "id": f"feed-b-{t}"}).json()["documents"]
    assert [d["id"] for d in both] == [f"feed-b-{t}"]
    whole = anon.get("/advisory/v2/documents", params={"id": f"feed-a-{t}"}).json()["documents"]
    assert [a["id"] for a in whole[0]["advisories"]] == [cga(base + 1), cga(base + 2), cga(base + 3)]
    assert anon.get("/advisory/v2/documents", params={"cves": [cve(base + 9)]}).json() == {}
    stub = advisory_pb2_grpc.SecurityAdvisoryServiceStub(server.grpc_channel(None))
    resp = stub.ListDocuments(advisory_pb2.ListDocumentsRequest(cves=[c4, c2, c1]), timeout=TIMEOUT)
    assert [(d.id, [a.id for a in d.advisories]) for d in resp.documents] == [
        (f"feed-a-{t}", [cga(base + 1), cga(base + 2)]), (f"feed-b-{t}", [cga(base + 4)]),
    ]  # fmt: skip
    assert resp.documents[0].advisories[0].events[0].WhichOneof("data") == "detection"


def test_an_answer_over_the_byte_budget_is_refused(server: Any, anon: httpx.Client, org: str, tmp_path: Path) -> None:
    """Two documents of ~1.7 MB of advisories each, both aliasing one CVE: together over the 3 MiB budget."""
    t, base = tag(), secrets.randbelow(10**6) * 10
    shared = cve(base)
    for k in range(2):
        write_doc(tmp_path, f"feed-big-{k}-{t}", advisory(base + k, [shared], notes=28, note_size=60_000))
    imported(server, "advisories", str(tmp_path), "--group", org)
    resp = anon.get("/advisory/v2/documents", params={"cves": [shared]})
    assert resp.status_code == 413, resp.status_code
    body = resp.json()
    assert body["code"] == 8 and str(MAX_ANSWER) in body["message"], body
    assert body["details"][0]["reason"] == "ANSWER_TOO_LARGE", body
    assert body["details"][0]["metadata"] == {"limitBytes": str(MAX_ANSWER)}
    # Each document alone fits.
    one = anon.get("/advisory/v2/documents", params={"id": f"feed-big-0-{t}"})
    assert one.status_code == 200 and 1_500_000 < len(one.content) <= MAX_ANSWER
    stub = advisory_pb2_grpc.SecurityAdvisoryServiceStub(server.grpc_channel(None))
    err, st = rpc_error(stub.ListDocuments, advisory_pb2.ListDocumentsRequest(cves=[shared]))
    assert err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert error_info(st).reason == "ANSWER_TOO_LARGE"


def test_a_document_too_large_to_answer_is_refused_at_import(server: Any, anon: httpx.Client, org: str,
                                                             tmp_path: Path) -> None:  # fmt: skip
    t = tag()
    path = write_doc(tmp_path, f"feed-huge-{t}", advisory(secrets.randbelow(10**6), [], notes=55, note_size=60_000))
    _, line = refused(server, "advisories", str(tmp_path), "--group", org)
    assert str(path) in line and f"over the limit of {MAX_ANSWER}" in line, line
    assert anon.get("/advisory/v2/documents", params={"id": f"feed-huge-{t}"}).json() == {}


@pytest.mark.parametrize("transport", ["http", "grpc"])
def test_at_most_500_documents(server: Any, anon: httpx.Client, org: str, tmp_path: Path, transport: str) -> None:
    t, base = tag(), secrets.randbelow(10**6) * 1000
    shared = cve(base)
    for k in range(MAX_DOCUMENTS + 1):
        write_doc(tmp_path, f"feed-many-{t}-{k:03d}", advisory(base + k, [shared, cve(base + 1 + k)]))
    summary = imported(server, "advisories", str(tmp_path), "--group", org)
    if transport == "http":
        docs = anon.get("/advisory/v2/documents", params={"cves": [shared]}).json()["documents"]
        ids = [d["id"] for d in docs]
        assert all(len(d["advisories"]) == 1 for d in docs)
    else:
        stub = advisory_pb2_grpc.SecurityAdvisoryServiceStub(server.grpc_channel(None))
        resp = stub.ListDocuments(advisory_pb2.ListDocumentsRequest(cves=[shared]), timeout=TIMEOUT)
        ids = [d.id for d in resp.documents]
    assert ids == [f"feed-many-{t}-{k:03d}" for k in range(MAX_DOCUMENTS)]
    assert summary["created"] == MAX_DOCUMENTS + 1
