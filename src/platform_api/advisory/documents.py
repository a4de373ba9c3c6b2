"""The public advisory feed's documents: /advisory/v2/documents (SecurityAdvisoryService.ListDocuments),
no token needed.

The feed is global, one Document per origin package: the latest document imported for that package by
`platform-api import advisories` (whichever group the import was for; the per-group Advisories are the
organization-scoped view of the same input). This module owns its tables (migrations 0006 and 0011):
`advisory_documents` (package id -> digest of what was imported), `advisory_document_entries` (each
document's advisories, one row each: (id, position) -> the DocumentAdvisory's JSON and its size in bytes)
and `advisory_document_entry_cves` (CVE alias -> (id, position), the `cves` filter's index).

Bounded answers: the `cves` filter reads only the advisories it matches, found through the index (it used
to decode whole documents, then filter: 0.8 s of CPU per anonymous request on a 500 x 50 feed). An answer
carries at most MAX_DOCUMENTS documents and MAX_ANSWER bytes of advisories; the sizes are read first, so an
answer over the budget is refused (RESOURCE_EXHAUSTED) before any advisory is read. The import refuses a
document whose advisories alone exceed MAX_ANSWER, so every document can be fetched by its id.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgspec

from platform_api.core import errors
from platform_api.formats import advisory_yaml as fmt
from platform_api.gen.records.advisory_v2 import DocumentAdvisory, DocumentEvent, ListDocumentsRequest
from platform_api.gen.records.vulnerabilities_v2 import AdvisoryEvent
from platform_api.service import imports, listing
from platform_api.service.context import Context, rpc
from platform_api.store import rows
from platform_api.store.db import Conn
from platform_api.vulnerabilities import advisory_queries

SERVICE = "chainguard.platform.advisory.v2.SecurityAdvisoryService."
MAX_CVES = 100  # cves in one request
MAX_DOCUMENTS = 500  # documents in one answer (the call has no paging)
MAX_ANSWER = listing.MAX_ANSWER  # bytes of advisories in one answer
# No stored advisory is shorter (an id and an event with its timestamp): an answer within MAX_ANSWER holds at
# most MAX_ANSWER // MIN_ENTRY of them, which bounds the rows the size check reads.
MIN_ENTRY = 64


def document_event(e: AdvisoryEvent) -> DocumentEvent:
    """The feed's form of an advisory event record: the same contract data under the feed message's names
    (`timestamp` for `createTime`, a scan's `subpackageName` and `componentName` for `subpackage` and
    `component`); the review, author and uid of the advisory's event are not part of the feed."""
    raw = msgspec.to_builtins(e)
    raw["timestamp"] = raw.pop("createTime", None)
    scan = raw.get("detection", {}).get("scanv1")
    if scan is not None:
        for ours, feeds in (("subpackage", "subpackageName"), ("component", "componentName")):
            if ours in scan:
                scan[feeds] = scan.pop(ours)
    return msgspec.convert(raw, DocumentEvent)


def digest(doc: fmt.Document, namespace: str) -> str:
    """What decides whether the stored document must be rewritten (cheap: no record is built)."""
    h = hashlib.sha256(f"{doc.package}\0{namespace}".encode())
    for a in doc.advisories:
        h.update(b"\0" + a.digest.encode())
    return h.hexdigest()


def entries(doc: fmt.Document, namespace: str) -> list[bytes]:
    """The feed's DocumentAdvisory JSON of each advisory of one parsed document, in document order."""
    return [
        rows.encode(DocumentAdvisory(id=a.id, events=[document_event(advisory_queries.event("", e)) for e in a.events],
                                     aliases=list(a.aliases), package_namespace=namespace))
        for a in doc.advisories
    ]  # fmt: skip


async def store(tx: Conn, docs: Sequence[tuple[str | Path, fmt.Document]], namespace: str, now: str) -> dict[str, int]:
    """Make each parsed document (with the file it was read from) the feed's current one for its package, in
    `tx`; counts of created / updated / unchanged documents. BadInput for a document too large to be
    answered (MAX_ANSWER)."""
    known: dict[str, str] = {}
    ids = [d.package for _, d in docs]
    for r in await tx.fetch("SELECT id, digest FROM advisory_documents WHERE id = ANY($1)", ids):
        known[r["id"]] = r["digest"]
    new: list[tuple[str, str]] = []
    changed: list[tuple[str, str]] = []
    written: list[tuple[str, fmt.Document, list[bytes]]] = []
    for file, d in docs:
        h = digest(d, namespace)
        if known.get(d.package) == h:
            continue
        bodies = entries(d, namespace)
        size = sum(len(b) for b in bodies)
        if size > MAX_ANSWER:
            problem = f"the feed's advisories of this document take {size} bytes, over the limit of {MAX_ANSWER}"
            raise imports.BadInput(file, "advisories", problem)
        (changed if d.package in known else new).append((d.package, h))
        written.append((d.package, d, bodies))
    if changed:
        gone = [(i,) for i, _ in changed]
        await tx.executemany("DELETE FROM advisory_document_entry_cves WHERE id = $1", gone)
        await tx.executemany("DELETE FROM advisory_document_entries WHERE id = $1", gone)
        await tx.executemany(
            "UPDATE advisory_documents SET digest = $2, update_time = $3 WHERE id = $1",
            [(i, h, now) for i, h in changed],
        )
    if new:
        await tx.executemany(
            "INSERT INTO advisory_documents (id, digest, update_time) VALUES ($1, $2, $3)",
            [(i, h, now) for i, h in new],
        )
    await tx.executemany(
        "INSERT INTO advisory_document_entries (id, position, size, body) VALUES ($1, $2, $3, $4)",
        [(i, n, len(b), b.decode()) for i, _, bodies in written for n, b in enumerate(bodies)],
    )
    await tx.executemany(
        "INSERT INTO advisory_document_entry_cves (cve, id, position) VALUES ($1, $2, $3)",
        [(cve, i, n) for i, d, _ in written for n, a in enumerate(d.advisories) for cve in _cves(a)],
    )
    return {"created": len(new), "updated": len(changed), "unchanged": len(docs) - len(new) - len(changed)}


def _cves(advisory: fmt.Advisory) -> list[str]:
    return [alias for alias in advisory.aliases if alias.startswith("CVE-")]


class StoredDocument(msgspec.Struct, omit_defaults=True, kw_only=True):
    """An answer's Document whose advisories are their stored JSON, spliced in undecoded (decoding them was
    half of the call's time); it encodes exactly as the contract's Document, on both transports."""

    id: str = ""
    advisories: list[msgspec.Raw] = msgspec.field(default_factory=list)


class DocumentsAnswer(msgspec.Struct, omit_defaults=True, kw_only=True):
    """ListDocumentsResponse, of StoredDocuments."""

    documents: list[StoredDocument] = msgspec.field(default_factory=list)


def too_large(limit: int) -> errors.ApiError:
    return errors.answer_too_large(limit, "bytes of advisories", "ask for fewer cves or for one package id")


@rpc(SERVICE + "ListDocuments")
async def list_documents(req: ListDocumentsRequest, ctx: Context) -> DocumentsAnswer:
    """The documents of package `id` and/or of the packages with an advisory aliasing one of `cves`
    (both: AND). With `cves`, each document lists only the advisories aliasing one of them. At least one
    of the two is required; at most MAX_DOCUMENTS documents, ordered by package name, and MAX_ANSWER bytes
    of advisories (more: RESOURCE_EXHAUSTED)."""
    cves = list(dict.fromkeys(req.cves))
    if not req.id and not cves:
        raise errors.invalid_argument("id", "give a package id or cves")
    if len(cves) > MAX_CVES:
        raise errors.invalid_argument("cves", f"cves takes at most {MAX_CVES} values")
    # The (id, position) of every advisory asked for; each one's size, then body, is read by its primary key
    # (a scalar subquery per row: both engines then walk the index from the few matches, where a join let
    # PostgreSQL's planner scan the whole table).
    args: list[Any] = []
    if cves:
        args.append(cves)
        matching = "SELECT DISTINCT id, position FROM advisory_document_entry_cves WHERE cve = ANY($1)"
        if req.id:
            args.append(req.id)
            matching += f" AND id = ${len(args)}"
    else:
        args.append(req.id)
        matching = "SELECT id, position FROM advisory_document_entries WHERE id = $1"
    entry = "SELECT e.{} FROM advisory_document_entries e WHERE e.id = m.id AND e.position = m.position"
    db = ctx.rt.db
    # First the sizes, in answer order: where the answer stops (MAX_DOCUMENTS) and whether it fits.
    sized = await db.fetchtuples(
        f"SELECT m.id, m.position, ({entry.format('size')}) FROM ({matching}) m"
        f" ORDER BY m.id, m.position LIMIT {MAX_ANSWER // MIN_ENTRY + 1}",
        *args,
    )
    total = documents = 0
    last: tuple[str, int] | None = None
    for package, position, size in sized:
        if last is None or package != last[0]:
            documents += 1
            if documents > MAX_DOCUMENTS:
                break
        total += size or 0
        if total > MAX_ANSWER:
            raise too_large(MAX_ANSWER)
        last = (package, position)
    if last is None:
        return DocumentsAnswer()
    # Then the advisories up to the last one that fits.
    n = len(args)
    found = await db.fetchtuples(
        f"SELECT m.id, ({entry.format('body')}) FROM ({matching}) m"
        f" WHERE m.id < ${n + 1} OR (m.id = ${n + 1} AND m.position <= ${n + 2}) ORDER BY m.id, m.position",
        *args, *last,
    )  # fmt: skip
    out: list[StoredDocument] = []
    total = 0
    for package, body in found:
        if body is None:  # removed by an import between the reads
            continue
        raw = body.encode()
        total += len(raw)
        if total > MAX_ANSWER:  # rewritten by an import between the two reads
            raise too_large(MAX_ANSWER)
        if not out or out[-1].id != package:
            out.append(StoredDocument(id=package))
        out[-1].advisories.append(msgspec.Raw(raw))
    return DocumentsAnswer(documents=out)
