"""advisory.v2 SecurityAdvisoryService.ListVulnerabilityMetadata: GET /advisory/v2/metadata (public, no token).

The metadata is what `platform-api import osv` stored (vulnerabilities.metadata). Semantics:
- `id` and/or `ids`: together at most 1,000 unique ids (more is INVALID_ARGUMENT). Each requested id that
  a stored record answers to (its own id, or one of its OSV aliases) yields one entry, under the id
  asked for: asking for CVE-2024-1 when only GHSA-x (aliases: CVE-2024-1) is stored returns an entry with
  id CVE-2024-1 and GHSA-x's summary, details, references and severities. Ids nothing answers to are
  left out; totalCount counts the entries found.
- Neither given: every stored record, under its own id.
- Ordered by `id` (`order_by`: `id`, `id asc` (default) or `id desc`), keyset paged (the token holds the
  last id), `skip` after the cursor, page_size 50 by default and at most 200.
- Severity `score` is the CVSS vector as OSV gives it (e.g. `CVSS:3.1/AV:N/...`); the number follows from
  it (vulnerabilities.osv_cvss.base_score_v3).
"""

from __future__ import annotations

import msgspec

from platform_api.core import errors, pagetoken
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
_enc = msgspec.json.Encoder()


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


@rpc(SERVICE + "ListVulnerabilityMetadata")
async def list_vulnerability_metadata(
    req: ListVulnerabilityMetadataRequest, ctx: Context
) -> ListVulnerabilityMetadataResponse:
    wanted = _requested(req)
    size = listing.page_size(req.page_size)
    if req.skip < 0:
        raise errors.invalid_argument("skip", "skip must not be negative")
    desc = _descending(req.order_by)
    db, key = ctx.rt.db, ctx.rt.page_key
    query = pagetoken.fingerprint(
        [ctx.method, _enc.encode(msgspec.structs.replace(req, page_size=0, page_token="", skip=0))]
    )
    last = pagetoken.decode(key, req.page_token, query) if req.page_token else None
    if last is not None and (len(last) != 1 or not isinstance(last[0], str)):
        raise errors.invalid_argument("page_token", "page_token does not match this query")
    after = last[0] if last else None
    items: list[VulnerabilityMetadata]
    if wanted:
        resolved = await metadata.resolve(db, wanted)
        total = len(resolved)
        ids = sorted(resolved, reverse=desc)
        if after is not None:
            ids = [i for i in ids if (i < after if desc else i > after)]
        ids = ids[req.skip : req.skip + size + 1]
        more = len(ids) > size
        ids = ids[:size]
        stored = await metadata.bodies(db, {resolved[i] for i in ids})
        items = []
        for i in ids:
            body = stored.get(resolved[i])
            if body is not None:  # deleted between the two reads: left out
                m = rows.decode(VulnerabilityMetadata, body)
                m.id = i
                items.append(m)
    else:
        total = await metadata.count(db)
        found = await metadata.page(db, after, desc, size + 1, req.skip)
        more = len(found) > size
        items = [rows.decode(VulnerabilityMetadata, body) for _, body in found[:size]]
    token = pagetoken.encode(key, query, [items[-1].id]) if more and items else ""
    return ListVulnerabilityMetadataResponse(
        vulnerability_metadata=items, next_page_token=token, total_count=str(total), skipped=req.skip
    )
