"""advisory.v2 SecurityAdvisoryService.ListVulnerabilityMetadata: GET /advisory/v2/metadata (public, no token).

The metadata is what `platform-api import osv` stored (vulnerabilities.metadata). Semantics:
- `id` and/or `ids`: together at most 1,000 unique ids (more is INVALID_ARGUMENT). The records the
  requested ids answer to (by their own id, or as one of their OSV aliases) are listed, each stored record
  once, under one of the ids asked for: its own id if that was asked for, else the smallest of the ids
  asked for that it answers to. Asking for CVE-2024-1 when only GHSA-x (aliases: CVE-2024-1) is stored
  returns an entry with id CVE-2024-1 and GHSA-x's summary, details, references and severities; asking for
  CVE-2024-1 and CVE-2024-2, both aliases of GHSA-x, returns that entry once, as CVE-2024-1 (the same record
  under 1,000 ids was 1,000 copies of it). Ids nothing answers to are left out; totalCount counts the
  entries (distinct records) found.
- Neither given: every stored record, under its own id.
- Ordered by `id` (`order_by`: `id`, `id asc` (default) or `id desc`), keyset paged (the token holds the
  last id), `skip` after the cursor, page_size 50 by default and at most 200.
- Byte budget: a page holds at most MAX_ANSWER bytes of records (as stored); it ends early, with a
  next_page_token, before the entry that would cross it, and always holds at least one entry (a record is at
  most vulnerabilities.metadata.MAX_RECORD bytes, less than the budget). Sizes are read before bodies, so a
  page never reads the records beyond it.
- Severity `score` is the CVSS vector as OSV gives it (e.g. `CVSS:3.1/AV:N/...`); the number follows from
  it (vulnerabilities.osv_cvss.base_score_v3).
"""

from __future__ import annotations

from platform_api.core import errors
from platform_api.gen.records.advisory_v2 import (
    ListVulnerabilityMetadataRequest,
    ListVulnerabilityMetadataResponse,
    VulnerabilityMetadata,
)
from platform_api.service import listing
from platform_api.service.context import Context, rpc
from platform_api.store import rows
from platform_api.vulnerabilities import metadata, osv

SERVICE = "chainguard.platform.advisory.v2.SecurityAdvisoryService."
MAX_IDS = 1_000
MAX_ANSWER = listing.MAX_ANSWER  # bytes of records in one page


def _requested(req: ListVulnerabilityMetadataRequest) -> list[str]:
    """The unique ids asked for (`id` first, then `ids`), each a well-formed vulnerability id."""
    given = [("id", req.id)] if req.id else []
    given += [(f"ids[{i}]", value) for i, value in enumerate(req.ids)]
    wanted = list(dict.fromkeys(value for _, value in given))
    if len(wanted) > MAX_IDS:
        raise errors.invalid_argument("ids", f"at most {MAX_IDS} unique ids per request, got {len(wanted)}")
    for field, value in given:
        try:
            osv.vuln_id(value, field)
        except osv.Invalid as e:
            raise errors.invalid_argument(field, e.problem) from None
    return wanted


def _descending(order_by: str) -> bool:
    words = order_by.split()
    if not words:
        return False
    if words[0] != "id" or len(words) > 2 or (len(words) == 2 and words[1].lower() not in ("asc", "desc")):
        raise errors.invalid_argument("order_by", f"order_by must be 'id [asc|desc]', got {order_by.strip()!r}")
    return len(words) == 2 and words[1].lower() == "desc"


def entries(resolved: dict[str, str]) -> dict[str, str]:
    """{entry id: record id}, one entry per record among `resolved` ({id asked for: record answering to
    it}): under the record's own id when that was asked for, else under the smallest id asked for."""
    chosen: dict[str, str] = {}  # record id -> entry id
    for asked, rid in resolved.items():
        current = chosen.get(rid)
        if current is None or asked == rid or (current != rid and asked < current):
            chosen[rid] = asked
    return {asked: rid for rid, asked in chosen.items()}


def within_budget(candidates: list[tuple[str, int]], size: int) -> list[str]:
    """The ids of the page: the first `size` of (id, bytes) `candidates` within the answer's byte budget."""
    first = candidates[:size]
    return [i for i, _ in first[: listing.within_budget([n for _, n in first])]]


@rpc(SERVICE + "ListVulnerabilityMetadata")
async def list_vulnerability_metadata(
    req: ListVulnerabilityMetadataRequest, ctx: Context
) -> ListVulnerabilityMetadataResponse:
    wanted = _requested(req)
    desc = _descending(req.order_by)
    db = ctx.rt.db
    at = listing.cursor(ctx, req, 1)  # pages by id, the one key
    size = at.size
    if at.last is not None and not isinstance(at.last[0], str):
        raise errors.invalid_argument("page_token", "page_token does not match this query")
    after = at.last[0] if at.last else None
    shown: dict[str, str]  # entry id -> id of the stored record it shows
    if wanted:
        shown = entries(await metadata.resolve(db, wanted))
        total = len(shown)
        ids = sorted(shown, reverse=desc)
        if after is not None:
            ids = [i for i in ids if (i < after if desc else i > after)]
        ids = ids[req.skip : req.skip + size + 1]
        stored = await metadata.sizes(db, {shown[i] for i in ids})
        candidates = [(i, stored[shown[i]]) for i in ids if shown[i] in stored]
    else:
        total = await metadata.count(db)
        candidates = await metadata.page(db, after, desc, size + 1, req.skip)
        shown = {rid: rid for rid, _ in candidates}
    page = within_budget(candidates, size)
    more = len(page) < len(candidates)
    bodies = await metadata.bodies(db, {shown[i] for i in page})
    items: list[VulnerabilityMetadata] = []
    for i in page:
        body = bodies.get(shown[i])
        if body is not None:  # deleted between the reads: left out
            m = rows.decode(VulnerabilityMetadata, body)
            m.id = i
            items.append(m)
    token = at.token([page[-1]]) if more else ""
    return ListVulnerabilityMetadataResponse(
        vulnerability_metadata=items, next_page_token=token, total_count=str(total), skipped=req.skip
    )
