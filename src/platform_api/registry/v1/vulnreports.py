"""The v1 `chainguard.platform.registry.Vulnerabilities` calls over the imported Grype reports (no v2
counterpart; registry/vulnreports.py reads them): ListVulnReports (GET /registry/v1/vuln_reports) and
GetRawVulnReport (GET /registry/v1/vuln_reports/raw). Both see only the repos under the groups where the
caller holds the method's capabilities (the contract marks them unscoped), as ListVulnCountReports does.

v1 differences:
- ListVulnReports answers every stored report (each generation of each digest) matching the filter: repoId
  (uid), digest, tag (a tag of the report's repo naming its digest), createdSince (to the second: the reports
  of that second count), scanner.name (GRYPE: every stored report is Grype's; TRIVY: none). Filtering by
  scanner.version or scanner.dbBuildTime is refused (INVALID_ARGUMENT naming the field), not ignored. The
  full set is capped like every v1 list (v1.MAX_ITEMS, TOO_MANY_ITEMS) and by the answer budget
  (listing.MAX_ANSWER bytes of stored reports: RESOURCE_EXHAUSTED ANSWER_TOO_LARGE), never cut.
- A vulnerability's aliases are its related vulnerabilities' ids, purls its package's purl; details and
  locations are not in a Grype report (empty); NEGLIGIBLE is stored as LOW (as GetVulnReport has it).
- GetRawVulnReport: the report on `digest` generated exactly `createdAt` (the most recent one without it;
  a digest in several visible repos: the most recent of them), rawReport the file as imported (UTF-8 text),
  rawReportUrl empty (reports are kept here, not in a bucket). None found: NOT_FOUND.
"""

from __future__ import annotations

from platform_api.core import clock, errors, validate
from platform_api.gen.records.registry import (
    GetRawVulnReportRequest,
    RawVulnReport,
    Scanner,
    Vulnerability,
    Vulnerability_CVSS,
    Vulnerability_Fix,
    VulnReport,
    VulnReportFilter,
    VulnReportList,
)
from platform_api.gen.records.tenant import VulnReport as StoredReport
from platform_api.registry import vulnreports
from platform_api.service import listing, v1
from platform_api.service.context import Context, rpc

SERVICE = "chainguard.platform.registry.Vulnerabilities."
RESOURCE = "chainguard.platform.registry.RawVulnReport"


def _time(value: str | None, field: str) -> str:
    """A request's timestamp as the reports store theirs (milliseconds, none when zero); "" when unset."""
    if not value:
        return ""
    try:
        t = clock.parse(value)
    except ValueError as e:
        raise errors.invalid_argument(field, f"{field}: {e}") from None
    return t.removesuffix(".000Z") + "Z" if t.endswith(".000Z") else t


def _scanner(stored: StoredReport) -> Scanner:
    name = (stored.scanner.name if stored.scanner else "").upper()
    return Scanner(
        name=name if name in ("GRYPE", "TRIVY") else "UNKNOWN",  # type: ignore[arg-type]
        version=stored.scanner.version if stored.scanner else "",
        db_build_time=stored.vulnerability_db_last_build_time,
    )


def _report(digest: str, stored: StoredReport) -> VulnReport:
    out = VulnReport(digest=digest, scanner=_scanner(stored), created_at=stored.report_generation)
    for m in stored.vulnerability_matches:
        rec = m.vulnerability
        if rec is None:
            continue
        out.vulnerabilities.append(
            Vulnerability(
                id=rec.id,
                aliases=[r.id for r in rec.related_vulnerabilities if r.id and r.id != rec.id],
                purls=[m.pkg.purl] if m.pkg is not None and m.pkg.purl else [],
                description=rec.description,
                severity=rec.severity,
                cvss=[Vulnerability_CVSS(score=c.score, version=c.version) for c in rec.cvss],
                fix=Vulnerability_Fix(versions=m.fix.versions, state=m.fix.state) if m.fix is not None else None,
                related_urls=rec.related_urls,
            )
        )
    return out


@rpc(SERVICE + "ListVulnReports")
async def list_vuln_reports(req: VulnReportFilter, ctx: Context) -> VulnReportList:
    if req.repo_id:
        validate.uid(req.repo_id, "repo_id")
    if req.digest:
        validate.digest(req.digest)
    since = _time(req.created_since, "created_since")
    if req.scanner is not None:
        if req.scanner.version:
            raise errors.invalid_argument("scanner.version", "filtering by scanner version is not supported")
        if req.scanner.db_build_time:
            raise errors.invalid_argument("scanner.db_build_time", "filtering by db build time is not supported")
        if req.scanner.name == "TRIVY":  # only Grype reports are imported
            return VulnReportList()
    try:
        found = await vulnreports.listed(
            ctx.rt.db, req.repo_id, req.digest, req.tag, since, ctx.visible_roots(), v1.MAX_ITEMS, listing.MAX_ANSWER
        )
    except vulnreports.TooManyReports as e:
        raise v1.too_many("vulnerability reports", e.matched) from None
    except vulnreports.TooLarge:
        raise errors.answer_too_large(
            listing.MAX_ANSWER, "bytes of vulnerability reports", "narrow repoId, digest, tag or createdSince"
        ) from None
    return VulnReportList(items=[_report(f.digest, f.report) for f in found])


@rpc(SERVICE + "GetRawVulnReport")
async def get_raw_vuln_report(req: GetRawVulnReportRequest, ctx: Context) -> RawVulnReport:
    validate.digest(req.digest)
    at = _time(req.created_at, "created_at")
    found = None if req.scanner == "TRIVY" else await vulnreports.raw(ctx.rt.db, req.digest, at, ctx.visible_roots())
    if found is None:
        raise errors.not_found(RESOURCE, f"{req.digest}" + (f" at {at}" if at else ""))
    stored, raw = found
    return RawVulnReport(
        digest=req.digest,
        scanner=_scanner(stored),
        created_at=stored.report_generation,
        raw_report=raw.decode("utf-8", errors="replace"),
    )
