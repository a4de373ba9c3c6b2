"""The three v1 calls with no v2 counterpart, on the v1 contract's messages
(proto/chainguard/platform/registry/v1, tenant/v1): Registry.GetVulnReport (the latest imported report on a
digest), Vulnerabilities.ListVulnCountReports (per repo, tag and day) and Registry.ListEolTags (the tags of
repos with end-of-life data from `import eol`).

Vulnerabilities.ListCumulativeVulnCountReports is declared but not served (UNIMPLEMENTED): the reference
gives its shapes only, not what it accumulates, and a guess would hand clients plausible wrong numbers."""

from __future__ import annotations

import msgspec

from platform_api.core import errors, validate
from platform_api.gen.records.registry import (
    EolTagFilter,
    EolTagList,
    VulnCount,
    VulnCountReport,
    VulnCountReportFilter,
    VulnCountReportList,
    VulnReportRequest,
)
from platform_api.gen.records.tenant import VulnReport
from platform_api.registry import eol, queries, tags, vulnreports
from platform_api.service import listing
from platform_api.service.context import Context, rpc

SERVICE = "chainguard.platform.registry.Registry."
VULNERABILITIES = "chainguard.platform.registry.Vulnerabilities."
RESOURCE = "chainguard.platform.tenant.VulnReport"
# The counts' id lists per severity, as VulnCountReport names them.
_LISTS = {"LOW": "low_cve_ids", "MEDIUM": "med_cve_ids", "HIGH": "high_cve_ids", "CRITICAL": "crit_cve_ids",
          "NEGLIGIBLE": "negligible_cve_ids", "UNKNOWN": "unknown_cve_ids"}  # fmt: skip
_ORDER = ("UNKNOWN", "LOW", "MEDIUM", "HIGH", "CRITICAL", "NEGLIGIBLE")


@rpc(SERVICE + "GetVulnReport")
async def get_vuln_report(req: VulnReportRequest, ctx: Context) -> VulnReport:
    validate.uid(req.repo_id, "repo_id")
    validate.digest(req.digest)
    report = await vulnreports.latest(ctx.rt.db, req.repo_id, req.digest)
    if report is None:
        raise errors.not_found(RESOURCE, f"{req.repo_id}@{req.digest}")
    return report


def _report(c: vulnreports.Counted) -> VulnCountReport:
    out = VulnCountReport(repo=c.repo, tag=c.tag, date=c.day + "T00:00:00Z", size_bytes=str(c.size))
    every: set[str] = set()
    for severity in _ORDER:
        ids = c.ids.get(severity, [])
        every.update(ids)
        setattr(out, _LISTS[severity], list(ids))
        if ids:
            out.vuln_counts.append(VulnCount(severity=severity, count=len(ids)))  # type: ignore[arg-type]
    out.cve_ids = sorted(every)
    return out


@rpc(VULNERABILITIES + "ListVulnCountReports")
async def list_vuln_count_reports(req: VulnCountReportFilter, ctx: Context) -> VulnCountReportList:
    """Days are inclusive by date: `from`/`to` count by the UTC day they fall on."""
    since, until = (req.from_ or "")[:10], (req.to or "")[:10]
    roots = ctx.visible_roots()
    refs = [(r.repo, r.tag) for r in req.references] or [(req.repo, req.tag)]
    if len(refs) > 100:
        raise errors.invalid_argument("references", "at most 100 references")
    items: list[VulnCountReport] = []
    # Each id is answered twice (under its severity and in cveIds): half the answer's budget for the counts.
    budget = listing.MAX_ANSWER // 2
    for repo, tag in refs:
        try:
            found = await vulnreports.counts(ctx.rt.db, repo, tag, since, until, roots, budget)
        except vulnreports.TooMany:
            raise errors.invalid_argument(
                "from", f"more than {vulnreports.MAX_COUNT_ROWS} reports match: narrow repo, tag, from or to"
            ) from None
        except vulnreports.TooLarge:
            raise errors.answer_too_large(
                listing.MAX_ANSWER, "bytes of vulnerability ids", "narrow repo, tag, from or to"
            ) from None
        budget -= sum(c.stored for c in found)
        items += [_report(c) for c in found]
    return VulnCountReportList(items=items)


class _Paging(msgspec.Struct):
    """What listing.page reads of a request; `filter` is what the page token binds."""

    page_size: int = 0
    page_token: str = ""
    skip: int = 0
    order_by: str = ""
    filter: str = ""


@rpc(SERVICE + "ListEolTags")
async def list_eol_tags(req: EolTagFilter, ctx: Context) -> EolTagList:
    """The tags of repos with end-of-life data (`import eol`), by uid, paged by token (registry/eol.py)."""
    try:
        size = int(req.page_size or 0)
    except ValueError:
        raise errors.invalid_argument("page_size", "page_size must be an integer") from None
    if not -(2**31) <= size < 2**31:
        raise errors.invalid_argument("page_size", "page_size is out of range")
    where = listing.Where()
    listing.add_uidp_filter(where, req.uidp)
    if req.name:
        where.eq("name", req.name)
    where.hide_kinds((tags.DATED if req.exclude_dates else 0) | (tags.EPOCH if req.exclude_epochs else 0))
    where.add(eol.WITH_CYCLES)
    bound = msgspec.json.encode(msgspec.structs.replace(req, page_size="0", page_token="")).decode()
    paging = _Paging(page_size=size, page_token=req.page_token, filter=bound)
    page = await listing.page(ctx, queries.TAGS_TABLE, where, paging)
    return EolTagList(items=await eol.eol_tags(ctx.rt.db, page.bodies), next_page_token=page.next_page_token)
