"""The public advisory feed's documents: /advisory/v2/documents (SecurityAdvisoryService.ListDocuments),
no token needed.

The feed is global, one Document per origin package: the latest document imported for that package by
`platform-api import advisories` (whichever group the import was for; the per-group Advisories are the
organization-scoped view of the same input). Tables `advisory_documents` (the Document as `body`) and
`advisory_document_cves` (CVE aliases -> package, for the `cves` filter); migration 0006.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from platform_api.core import errors
from platform_api.gen.records.advisory_v2 import (
    AnalysisNotPlanned,
    Detection,
    Detection_DetectionTypeManual,
    Detection_DetectionTypeNVDAPI,
    Detection_DetectionTypeScanV1,
    Document,
    DocumentAdvisory,
    DocumentEvent,
    FalsePositiveDetermination,
    Fixed,
    FixNotPlanned,
    ListDocumentsRequest,
    ListDocumentsResponse,
    PendingUpstreamFix,
    TruePositiveDetermination,
)
from platform_api.service.context import Context, rpc
from platform_api.store import rows
from platform_api.store.db import Conn
from platform_api.vulnerabilities import advisory_yaml as fmt

SERVICE = "chainguard.platform.advisory.v2.SecurityAdvisoryService."
MAX_CVES = 100  # cves in one request
MAX_DOCUMENTS = 500  # documents in one answer (the call has no paging)


def _event(e: fmt.Event) -> DocumentEvent:
    out = DocumentEvent(timestamp=e.timestamp)
    d = e.data
    if e.type == fmt.DETECTION:
        if d["type"] == "manual":
            out.detection = Detection(manual=Detection_DetectionTypeManual())
        elif d["type"] == "nvdapi":
            out.detection = Detection(nvdapi=Detection_DetectionTypeNVDAPI(cpe_searched=d["cpeSearched"],
                                                                           cpe_found=d["cpeFound"]))  # fmt: skip
        else:
            scan = Detection_DetectionTypeScanV1(
                scanner=d["scanner"], subpackage_name=d["subpackageName"], component_id=d["componentID"],
                component_name=d["componentName"], component_version=d["componentVersion"],
                component_type=d["componentType"], component_location=d["componentLocation"],
            )  # fmt: skip
            out.detection = Detection(scanv1=scan)
    elif e.type == fmt.TRUE_POSITIVE:
        out.true_positive_determination = TruePositiveDetermination(note=d.get("note", ""))
    elif e.type == fmt.FALSE_POSITIVE:
        kind: Any = "TYPE_" + d["type"].upper().replace("-", "_")
        out.false_positive_determination = FalsePositiveDetermination(type=kind, note=d.get("note", ""))
    elif e.type == fmt.FIXED:
        out.fixed = Fixed(fixed_version=d["fixed-version"])
    elif e.type == fmt.ANALYSIS_NOT_PLANNED:
        out.analysis_not_planned = AnalysisNotPlanned(note=d["note"])
    elif e.type == fmt.FIX_NOT_PLANNED:
        out.fix_not_planned = FixNotPlanned(note=d["note"])
    else:
        out.pending_upstream_fix = PendingUpstreamFix(note=d["note"])
    return out


def digest(doc: fmt.Document, namespace: str) -> str:
    """What decides whether the stored document must be rewritten (cheap: no record is built)."""
    h = hashlib.sha256(f"{doc.package}\0{namespace}".encode())
    for a in doc.advisories:
        h.update(b"\0" + a.digest.encode())
    return h.hexdigest()


def build(doc: fmt.Document, namespace: str) -> Document:
    """The feed's Document of one parsed advisory document."""
    advisories = [
        DocumentAdvisory(
            id=a.id, events=[_event(e) for e in a.events], aliases=list(a.aliases), package_namespace=namespace
        )
        for a in doc.advisories
    ]
    return Document(id=doc.package, advisories=advisories)


def _cves(doc: fmt.Document) -> list[str]:
    return sorted({alias for a in doc.advisories for alias in a.aliases if alias.startswith("CVE-")})


async def store(tx: Conn, docs: Sequence[fmt.Document], namespace: str, now: str) -> dict[str, int]:
    """Make each parsed document the feed's current one for its package, in `tx`; counts of created /
    updated / unchanged documents."""
    known: dict[str, str] = {}
    ids = [d.package for d in docs]
    for r in await rows.fetch_in(tx, "SELECT id, digest FROM advisory_documents WHERE id IN ({marks})", ids):
        known[r["id"]] = r["digest"]
    new: list[tuple[str, str, str, fmt.Document]] = []
    changed: list[tuple[str, str, str, fmt.Document]] = []
    for d in docs:
        h = digest(d, namespace)
        if d.package not in known:
            new.append((d.package, h, rows.body(build(d, namespace)), d))
        elif known[d.package] != h:
            changed.append((d.package, h, rows.body(build(d, namespace)), d))
    if changed:
        await tx.executemany("DELETE FROM advisory_document_cves WHERE id = $1", [(c[0],) for c in changed])
        await tx.executemany(
            "UPDATE advisory_documents SET digest = $2, update_time = $3, body = $4 WHERE id = $1",
            [(i, h, now, body) for i, h, body, _ in changed],
        )
    if new:
        await tx.executemany(
            "INSERT INTO advisory_documents (id, digest, update_time, body) VALUES ($1, $2, $3, $4)",
            [(i, h, now, body) for i, h, body, _ in new],
        )
    await tx.executemany(
        "INSERT INTO advisory_document_cves (cve, id) VALUES ($1, $2)",
        [(cve, i) for i, _, _, d in (*new, *changed) for cve in _cves(d)],
    )
    return {"created": len(new), "updated": len(changed), "unchanged": len(docs) - len(new) - len(changed)}


@rpc(SERVICE + "ListDocuments")
async def list_documents(req: ListDocumentsRequest, ctx: Context) -> ListDocumentsResponse:
    """The documents of package `id` and/or of the packages with an advisory aliasing one of `cves`
    (both: AND). With `cves`, each document lists only the advisories aliasing one of them. At least one
    of the two is required; at most MAX_DOCUMENTS documents, ordered by package name."""
    cves = list(dict.fromkeys(req.cves))
    if not req.id and not cves:
        raise errors.invalid_argument("id", "give a package id or cves")
    if len(cves) > MAX_CVES:
        raise errors.invalid_argument("cves", f"cves takes at most {MAX_CVES} values")
    db = ctx.rt.db
    args: list[Any] = []
    conds: list[str] = []
    if req.id:
        args.append(req.id)
        conds.append(f"id = ${len(args)}")
    if cves:
        marks = []
        for cve in cves:
            args.append(cve)
            marks.append(f"${len(args)}")
        conds.append(f"id IN (SELECT id FROM advisory_document_cves WHERE cve IN ({', '.join(marks)}))")
    sql = f"SELECT body FROM advisory_documents WHERE {' AND '.join(conds)} ORDER BY id LIMIT {MAX_DOCUMENTS}"
    documents = [rows.decode(Document, r["body"]) for r in await db.fetch(sql, *args)]
    if cves:
        wanted = set(cves)
        for d in documents:
            d.advisories = [a for a in d.advisories if wanted.intersection(a.aliases)]
    return ListDocumentsResponse(documents=documents)
