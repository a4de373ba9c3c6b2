"""GET /advisory/v1/images/resolved_vulns (chainguard.platform.advisory.SecurityAdvisory.
ListResolvedVulnsReports) over advisory/resolved.py: v1's `from` and `to` are v2's `start_time` and
`end_time` (and so named in its errors), the reports are `items`, severity types lack v2's `TYPE_` prefix.
Unscoped, with the v2 twin's capabilities, bounds and repo lookup (a repo out of reach is NOT_FOUND). Over
HTTP `imageRefs` cannot be sent in a query string (contract): INVALID_ARGUMENT, as in v2; gRPC callers send
it."""

from __future__ import annotations

from platform_api.advisory import resolved
from platform_api.advisory.v1.enums import severities
from platform_api.core import errors
from platform_api.gen.records import advisory_v2 as v2
from platform_api.gen.records.advisory import (
    ResolvedVuln,
    ResolvedVulnsReport,
    ResolvedVulnsReportFilter,
    ResolvedVulnsReportList,
)
from platform_api.service import v1
from platform_api.service.context import Context, rpc

NAMES = {"start_time": "from", "end_time": "to"}


def renamed(e: errors.ApiError, names: dict[str, str]) -> errors.ApiError:
    """`e` with its field violations under their v1 names (the v2 twin names its own fields)."""
    violations: list[tuple[str, str]] = []
    for d in e.details:
        for v in d.get("fieldViolations", []):
            description = v["description"]
            for old, new in names.items():  # the v2 names are snake_case words no other word contains
                description = description.replace(old, new)
            violations.append((names.get(v["field"], v["field"]), description))
    if e.code != errors.INVALID_ARGUMENT or not violations:
        return e
    return errors.invalid_fields(violations)


def to_v1(report: v2.ResolvedVulnsReport) -> ResolvedVulnsReport:
    vulns = [ResolvedVuln(id=r.id, aliases=r.aliases, cvss_severities=severities(r.cvss_severities))
             for r in report.resolved_vulns]  # fmt: skip
    return ResolvedVulnsReport(date=report.date, resolved_vulns=vulns)


@rpc("chainguard.platform.advisory.SecurityAdvisory.ListResolvedVulnsReports")
async def list_resolved_vulns_reports(req: ResolvedVulnsReportFilter, ctx: Context) -> ResolvedVulnsReportList:
    refs = [v2.ImageRef(repo=r.repo, tags=r.tags) for r in req.image_refs]
    ask = v2.ListResolvedVulnsReportsRequest(image_refs=refs, start_time=req.from_, end_time=req.to)
    try:
        answer = await v1.call(ctx, resolved.list_resolved_vulns_reports, ask)
    except errors.ApiError as e:
        raise renamed(e, NAMES) from None
    return ResolvedVulnsReportList(items=[to_v1(r) for r in answer.resolved_vulns_reports])
