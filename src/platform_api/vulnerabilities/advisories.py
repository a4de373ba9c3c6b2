"""Vulnerability advisories: /vulnerabilities/v2/advisories (AdvisoriesService), read-only over what
`platform-api import advisories` stored (see advisory.importer and advisory_queries).

Every filter of ListAdvisoriesRequest is SQL on indexed columns: the advisory's own fields are columns of
`advisories`; `aliases` and the event filters are `uid IN (SELECT advisory FROM advisory_aliases |
advisory_events WHERE ...)`. Repeated values of one filter match any of them; different filters combine
with AND; each event filter asks for some event of the advisory matching it (`exclude_event_authors`:
no event by those authors). Each filter's values are one list argument (`= ANY($n)`); how many a filter
takes is the contract's cap on the field (`max_items`), enforced by the transports before this runs.
"""

from __future__ import annotations

from platform_api.core import errors
from platform_api.gen.records.vulnerabilities_v2 import (
    Advisory,
    GetAdvisoryRequest,
    ListAdvisoriesRequest,
    ListAdvisoriesResponse,
)
from platform_api.iam import groups
from platform_api.service import listing, storage
from platform_api.service.context import Context, rpc
from platform_api.store import rows
from platform_api.store.db import Conn
from platform_api.vulnerabilities import advisory_queries, metadata
from platform_api.vulnerabilities.advisory_queries import EVENT_TYPE_NUMBERS, REVIEW_STATE_NUMBERS

SERVICE = "chainguard.platform.vulnerabilities.v2.AdvisoriesService."
RESOURCE = "chainguard.platform.vulnerabilities.v2.Advisory"
TABLE = listing.Table(
    "advisories",
    order_keys={
        "uid": "uid",
        "created_at": "create_time",
        "create_time": "create_time",
        "updated_at": "update_time",
        "update_time": "update_time",
        "artifact_name": "artifact_name",
        "advisory_id": "advisory_id",
    },
)
MAX_QUERY = 256

groups.register_cleanup(advisory_queries.delete_in_group)


@rpc(SERVICE + "GetAdvisory")
async def get_advisory(req: GetAdvisoryRequest, ctx: Context) -> Advisory:
    advisory = await storage.get(ctx.rt.db, "advisories", Advisory, RESOURCE, req.uid)
    await with_severities(ctx.rt.db, [advisory])
    return advisory


async def with_severities(conn: Conn, advisories: list[Advisory]) -> None:
    """Fill `severities` (OUT) from the OSV records that the advisories' ids or aliases name (`import osv`),
    each severity once, in the order of id then aliases: read at request time, so a later OSV import shows
    without touching the advisories."""
    found = await metadata.merged_severities(conn, {i: (a.advisory_id, *a.aliases) for i, a in enumerate(advisories)})
    for i, a in enumerate(advisories):
        a.severities = found[i]


def _subquery(where: listing.Where, table: str, column: str, values: list[object], negate: bool = False) -> None:
    values_of = f"SELECT advisory FROM {table} WHERE {column} = ANY({where.p(values)})"
    where.add(f"uid {'NOT IN' if negate else 'IN'} ({values_of})")


def _event_type(name: str, value: str) -> int:
    number = EVENT_TYPE_NUMBERS.get(value)
    if number is None:
        raise errors.invalid_argument(name, f"{name} must name an event type, not {value}")
    return number


def filters(req: ListAdvisoriesRequest) -> listing.Where:
    """The SQL conditions of a ListAdvisoriesRequest (before visibility and paging)."""
    where = listing.Where()
    listing.add_uidp_filter(where, req.uidp)
    columns = (
        ("advisory_id", req.advisory_ids),
        ("legacy_advisory_id", req.legacy_advisory_ids),
        ("artifact_type", req.artifact_types),
        ("artifact_architecture", req.artifact_architectures),
        ("component_name", req.component_names),
        ("component_type", req.component_types),
        ("component_location", req.component_locations),
    )
    for column, values in columns:
        if values:
            where.any_of(column, list(values))
    # `origin`: the advisories of the packages whose origin package it names. An imported document is one
    # origin package and its advisories' artifactName is that package, so origin selects on artifact_name
    # (and, as the contract says, artifact_names is then ignored).
    if isinstance(req.origin, str):
        where.eq("artifact_name", req.origin)
    elif req.artifact_names:
        where.any_of("artifact_name", list(req.artifact_names))
    if req.aliases:
        _subquery(where, "advisory_aliases", "alias", list(req.aliases))
    if req.event_review_states:
        states: list[object] = [REVIEW_STATE_NUMBERS[s] for s in req.event_review_states]
        _subquery(where, "advisory_events", "review_state", states)
    if req.event_authors:
        _subquery(where, "advisory_events", "author", list(req.event_authors))
    if req.exclude_event_authors:
        _subquery(where, "advisory_events", "author", list(req.exclude_event_authors), negate=True)
    if req.event_reviewers:
        _subquery(where, "advisory_events", "reviewer", list(req.event_reviewers))
    if req.event_types:
        types: list[object] = [_event_type("event_types", t) for t in req.event_types]
        _subquery(where, "advisory_events", "type", types)
    if isinstance(req.latest_event_type, str):
        where.eq("latest_event_type", _event_type("latest_event_type", req.latest_event_type))
    if req.query:
        if len(req.query) > MAX_QUERY:
            raise errors.invalid_argument("query", f"query must be at most {MAX_QUERY} characters")
        pattern = req.query.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        where.add(f"search LIKE {where.p('%' + pattern + '%')} ESCAPE '\\'")
    return where


@rpc(SERVICE + "ListAdvisories")
async def list_advisories(req: ListAdvisoriesRequest, ctx: Context) -> ListAdvisoriesResponse:
    page = await listing.page(ctx, TABLE, filters(req), req)
    advisories = [rows.decode(Advisory, body) for body in page.bodies]
    await with_severities(ctx.rt.db, advisories)
    return listing.response(ListAdvisoriesResponse, "advisories", Advisory, page, advisories)
