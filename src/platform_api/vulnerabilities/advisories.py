"""Vulnerability advisories: /vulnerabilities/v2/advisories (AdvisoriesService), read-only over what
`platform-api import advisories` stored (see advisory.importer). Their tables and the SQL of every filter of
ListAdvisoriesRequest are `advisory_queries`'s (`filters`); severities come from the OSV metadata at read time.
"""

from __future__ import annotations

from platform_api.gen.records.vulnerabilities_v2 import (
    Advisory,
    GetAdvisoryRequest,
    ListAdvisoriesRequest,
    ListAdvisoriesResponse,
)
from platform_api.service import listing
from platform_api.service.context import Context, rpc
from platform_api.store import rows
from platform_api.store.db import Conn
from platform_api.vulnerabilities import advisory_queries, metadata

SERVICE = "chainguard.platform.vulnerabilities.v2.AdvisoriesService."
RESOURCE = advisory_queries.RESOURCE


@rpc(SERVICE + "GetAdvisory")
async def get_advisory(req: GetAdvisoryRequest, ctx: Context) -> Advisory:
    advisory = await advisory_queries.get(ctx.rt.db, req.uid)
    await with_severities(ctx.rt.db, [advisory])
    return advisory


async def with_severities(conn: Conn, advisories: list[Advisory]) -> None:
    """Fill `severities` (OUT) from the OSV records that the advisories' ids or aliases name (`import osv`),
    each severity once, in the order of id then aliases: read at request time, so a later OSV import shows
    without touching the advisories."""
    found = await metadata.merged_severities(conn, {i: (a.advisory_id, *a.aliases) for i, a in enumerate(advisories)})
    for i, a in enumerate(advisories):
        a.severities = found[i]


@rpc(SERVICE + "ListAdvisories")
async def list_advisories(req: ListAdvisoriesRequest, ctx: Context) -> ListAdvisoriesResponse:
    page = await listing.page(ctx, advisory_queries.TABLE, advisory_queries.filters(req), req)
    advisories = [rows.decode(Advisory, body) for body in page.bodies]
    await with_severities(ctx.rt.db, advisories)
    return listing.response(ListAdvisoriesResponse, "advisories", Advisory, page, advisories)
