"""GET /advisory/v1/metadata (chainguard.platform.advisory.SecurityAdvisory.ListVulnerabilityMetadata) over
advisory/metadata.py: public (no token; the anonymous routes' rate limit, from its v1 annotation). v1 names:
`items`, each record's `severity` (v2: `severities`), enum values without v2's `TYPE_` prefix.

Unlike most v1 Lists, this one pages in its contract (`pageSize`, `pageToken`, `orderBy`, `skip`;
`nextPageToken`, `totalCount`, `skipped`): it is the v2 twin's page, so the v2 bounds hold as they are
(1,000 ids, 200 records, and a page ends before the record that would cross the 3 MiB budget, with a token to
the rest: never a silent truncation). A page token of one works in the other.
"""

from __future__ import annotations

from platform_api.advisory import metadata
from platform_api.advisory.v1.enums import REFERENCE, severities
from platform_api.gen.records import advisory_v2 as v2
from platform_api.gen.records.advisory import (
    Reference,
    VulnerabilityMetadata,
    VulnerabilityMetadataFilter,
    VulnerabilityMetadataList,
)
from platform_api.service import v1
from platform_api.service.context import Context, rpc


def to_v1(m: v2.VulnerabilityMetadata) -> VulnerabilityMetadata:
    references = [Reference(type=REFERENCE[r.type], url=r.url) for r in m.references]
    return VulnerabilityMetadata(id=m.id, summary=m.summary, details=m.details, references=references,
                                 severity=severities(m.severities))  # fmt: skip


@rpc("chainguard.platform.advisory.SecurityAdvisory.ListVulnerabilityMetadata")
async def list_vulnerability_metadata(req: VulnerabilityMetadataFilter, ctx: Context) -> VulnerabilityMetadataList:
    paging = {"page_size": req.page_size, "page_token": req.page_token, "order_by": req.order_by, "skip": req.skip}
    ask = v2.ListVulnerabilityMetadataRequest(id=req.id, ids=req.ids, **paging)
    page = await v1.call(ctx, metadata.list_vulnerability_metadata, ask)
    return VulnerabilityMetadataList(items=[to_v1(m) for m in page.vulnerability_metadata],
                                     next_page_token=page.next_page_token, total_count=page.total_count,
                                     skipped=page.skipped or 0)  # fmt: skip
