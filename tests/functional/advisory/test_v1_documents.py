"""v1 ListDocuments (`/advisory/v1/documents`, chainguard.platform.advisory.SecurityAdvisory) over the v2
implementation: public, the v2 twin's documents under v1 names (`items`, a false positive's `FPT_TYPE_...`),
`{}` for an unknown package; no paging in either, so its bounds refuse rather than cut short: over 3 MiB of
advisories and 500 documents are RESOURCE_EXHAUSTED (413); over HTTP and over gRPC with the contract's
messages."""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Any

import grpc
import httpx

from platform_api.advisory.documents import MAX_ANSWER, MAX_DOCUMENTS
from platform_api.gen.chainguard.platform.advisory.v1 import advisory_pb2, advisory_pb2_grpc
from tests.helpers import TIMEOUT, Server, assert_error, error_info, imported, ok, rpc_error

DATA = Path(__file__).resolve().parents[2] / "data" / "advisories"
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


def write_doc(folder: Path, package: str, *advisories: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    text = f"schema-version: 2.0.2\npackage:\n  name: {package}\nadvisories:\n" + "".join(advisories)
    (folder / f"{package}.advisories.yaml").write_text(text)


def v1_of(document: dict[str, Any]) -> dict[str, Any]:
    """A v2 document as v1 writes it: a false positive's type is FPT_TYPE_..., the rest the same."""
    for a in document["advisories"]:
        for e in a["events"]:
            fp = e.get("falsePositiveDetermination", {})
            if "type" in fp:
                fp["type"] = "FPT_" + fp["type"]
    return document


def test_documents_are_the_v2_documents(server: Server, anon: httpx.Client, org: str, tmp_path: Path) -> None:
    package = f"crane-v1-{secrets.token_hex(3)}"
    text = (DATA / "crane.advisories.yaml").read_text().replace("name: crane", f"name: {package}")
    (tmp_path / f"{package}.advisories.yaml").write_text(text)
    imported(server, "advisories", str(tmp_path), "--group", org)
    v2 = ok(anon.get("/advisory/v2/documents", params={"id": package}))["documents"]
    got = ok(anon.get("/advisory/v1/documents", params={"id": package}))
    assert set(got) == {"items"} and got["items"] == [v1_of(d) for d in v2]
    events = got["items"][0]["advisories"][1]["events"]
    assert events[1]["falsePositiveDetermination"] == {
        "type": "FPT_TYPE_VULNERABLE_CODE_NOT_IN_EXECUTION_PATH", "note": "protojson.Unmarshal is never called."
    }  # fmt: skip
    assert events[0]["detection"]["nvdapi"]["cpeFound"].startswith("cpe:2.3:a:golang:protobuf")
    assert ok(anon.get("/advisory/v1/documents", params={"id": package + "-none"})) == {}
    assert_error(anon.get("/advisory/v1/documents"), 400, 3, "id")  # the v2 twin's rule: id or cves
    stub = advisory_pb2_grpc.SecurityAdvisoryStub(server.grpc_channel(None))
    found = stub.ListDocuments(advisory_pb2.DocumentFilter(id=package, cves=["CVE-2024-24786"]), timeout=TIMEOUT)
    [doc] = found.items
    [fp] = [
        e.false_positive_determination for e in doc.advisories[0].events if e.HasField("false_positive_determination")
    ]
    assert fp.type == advisory_pb2.FalsePositiveDetermination.FPT_TYPE_VULNERABLE_CODE_NOT_IN_EXECUTION_PATH


def refusal(r: httpx.Response, reason: str) -> dict[str, Any]:
    assert r.status_code == 413, r.text
    body: dict[str, Any] = r.json()
    assert body["code"] == 8 and body["details"][0]["reason"] == reason, body
    return body


def test_bounds_refuse_rather_than_cut_short(server: Server, anon: httpx.Client, org: str, tmp_path: Path) -> None:
    """One import: two documents of ~1.7 MB of advisories each aliasing one CVE (together over the 3 MiB
    budget), and 500 small ones aliasing another (as many as the v2 twin answers: it stops there)."""
    t, base = secrets.token_hex(3), secrets.randbelow(10**6) * 1000
    big, many = f"CVE-2097-{base:07d}", f"CVE-2098-{base:07d}"
    for k in range(2):
        write_doc(tmp_path, f"v1-big-{k}-{t}", advisory(base + k, [big], notes=28, note_size=60_000))
    for k in range(MAX_DOCUMENTS):
        write_doc(tmp_path, f"v1-many-{t}-{k:03d}", advisory(base + 2 + k, [many, f"CVE-2099-{base + k:07d}"]))
    imported(server, "advisories", str(tmp_path), "--group", org)
    body = refusal(anon.get("/advisory/v1/documents", params={"cves": big}), "ANSWER_TOO_LARGE")
    assert str(MAX_ANSWER) in body["message"]
    one = anon.get("/advisory/v1/documents", params={"id": f"v1-big-0-{t}"})
    assert one.status_code == 200 and 1_500_000 < len(one.content) <= MAX_ANSWER
    assert len(ok(anon.get("/advisory/v2/documents", params={"cves": many}))["documents"]) == MAX_DOCUMENTS
    body = refusal(anon.get("/advisory/v1/documents", params={"cves": many}), "TOO_MANY_ITEMS")
    assert body["details"][0]["metadata"] == {"limit": "500"}
    fewer = [f"CVE-2099-{base + k:07d}" for k in range(3)]
    assert len(ok(anon.get("/advisory/v1/documents", params={"cves": fewer}))["items"]) == 3
    stub = advisory_pb2_grpc.SecurityAdvisoryStub(server.grpc_channel(None))
    err, st = rpc_error(stub.ListDocuments, advisory_pb2.DocumentFilter(cves=[many]))
    assert err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED and error_info(st).reason == "TOO_MANY_ITEMS"
