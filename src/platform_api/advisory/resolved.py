"""Resolved vulnerabilities per day: /advisory/v2/images/resolvedVulns (ListResolvedVulnsReports).

For the images named (`image_refs`: a repo, by uid or by name, and its tags, `latest` by default): the
packages of their SBOMs (`import sbom`; for an index, its own and its platform manifests'). For every UTC
day of [start_time, end_time] (inclusive, at most 366 days) one report: the advisories of those packages
whose `fixed` event fell on that day, with their aliases and the CVSS severities of the OSV records their
id or aliases name (`import osv`). The advisories read are those imported into the image's organization
(any group in it), so one organization's images never show another's advisory data. A package matches an
advisory by name (the advisory's package is the origin package an SBOM lists); versions are not compared.

Bounded: at most MAX_REFS refs of MAX_TAGS tags; each repo's tags are resolved once for all the refs naming
it, each distinct image (tagged digest or platform manifest) counted and its SBOM read once per request, at
most MAX_IMAGES of them (INVALID_ARGUMENT beyond), and each organization's advisories read once.

The method is unscoped: a repo is used only where the caller holds the method's capabilities (a repo
elsewhere is NOT_FOUND, as if it did not exist). Over HTTP `image_refs` cannot be given in a query string
(contract): without it the call is INVALID_ARGUMENT; gRPC callers send it.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from platform_api.core import errors, uidp
from platform_api.gen.records.advisory_v2 import (
    ImageRef,
    ListResolvedVulnsReportsRequest,
    ListResolvedVulnsReportsResponse,
    ResolvedVuln,
    ResolvedVulnsReport,
    Severity,
)
from platform_api.registry import images, queries, sboms
from platform_api.service.context import Context, rpc
from platform_api.store.db import Conn
from platform_api.vulnerabilities import advisory_queries, metadata

SERVICE = "chainguard.platform.advisory.v2.SecurityAdvisoryService."
RESOURCE = "chainguard.platform.registry.v2.Repo"
MAX_REFS = 100
MAX_TAGS = 100
MAX_DAYS = 366
MAX_IMAGES = sboms.MAX_DIGESTS  # distinct images (repo, digest) whose SBOMs one request reads


def _time(name: str, value: str | None) -> datetime:
    if not value:
        raise errors.invalid_argument(name, f"{name} is required")
    return datetime.fromisoformat(value.replace("Z", "+00:00")).astimezone(UTC)


def _days(req: ListResolvedVulnsReportsRequest) -> list[date]:
    start, end = _time("start_time", req.start_time), _time("end_time", req.end_time)
    if end < start:
        raise errors.invalid_argument("end_time", "end_time must not be before start_time")
    count = (end.date() - start.date()).days + 1
    if count > MAX_DAYS:
        raise errors.invalid_argument("end_time", f"the range covers {count} days; at most {MAX_DAYS} are reported")
    return [start.date() + timedelta(days=n) for n in range(count)]


async def _repo(ctx: Context, ref: ImageRef, at: int) -> str:
    """The uid of the repo `ref.repo` names (a uid, or a name unique among the repos the caller may use)."""
    field = f"image_refs[{at}].repo"
    if not ref.repo:
        raise errors.invalid_argument(field, "repo is required")
    roots = ctx.visible_roots()

    def usable(uid: str) -> bool:
        return any(uidp.is_ancestor_or_self(root, uid) for root in roots)

    if uidp.valid(ref.repo):
        if not usable(ref.repo) or not await queries.repo_exists(ctx.rt.db, ref.repo):
            raise errors.not_found(RESOURCE, ref.repo)
        return str(ref.repo)
    candidates = [uid for uid in await queries.repos_named(ctx.rt.db, ref.repo) if usable(uid)]
    if not candidates:
        raise errors.not_found(RESOURCE, ref.repo)
    if len(candidates) > 1:
        raise errors.invalid_argument(field, f"{len(candidates)} repos are named {ref.repo!r}; give the repo's uid")
    return candidates[0]


async def package_names(conn: Conn, tags_by_repo: dict[str, dict[str, None]]) -> dict[str, set[str]]:
    """Per organization, the package names in the SBOMs of the images `tags_by_repo` names: each repo's
    tags resolved once, each distinct digest's SBOM read once (one query per repo); INVALID_ARGUMENT beyond
    MAX_IMAGES images in all."""
    digests_by_repo: dict[str, list[str]] = {}
    left = MAX_IMAGES
    for repo, tags in tags_by_repo.items():
        digests_by_repo[repo] = await images.tagged_digests(conn, repo, list(tags), left)
        left -= len(digests_by_repo[repo])
        if left < 0:
            raise errors.invalid_argument(
                "image_refs", f"the refs name more than {MAX_IMAGES} images and platform manifests; narrow them"
            )
    names: dict[str, set[str]] = {}
    for repo, digests in digests_by_repo.items():
        found = names.setdefault(uidp.root(repo), set())
        found.update(p.name for p in await sboms.packages(conn, repo, digests))
    return names


@rpc(SERVICE + "ListResolvedVulnsReports")
async def list_resolved_vulns_reports(
    req: ListResolvedVulnsReportsRequest, ctx: Context
) -> ListResolvedVulnsReportsResponse:
    if not req.image_refs:
        raise errors.invalid_argument("image_refs", "image_refs is required (over HTTP it cannot be sent: use gRPC)")
    if len(req.image_refs) > MAX_REFS:
        raise errors.invalid_argument("image_refs", f"at most {MAX_REFS} image_refs")
    days = _days(req)
    conn = ctx.rt.db
    tags_by_repo: dict[str, dict[str, None]] = {}  # repo uid -> its tags named, in order
    repos: dict[str, str] = {}  # repo as named -> uid
    for at, ref in enumerate(req.image_refs):
        if len(ref.tags) > MAX_TAGS:
            raise errors.invalid_argument(f"image_refs[{at}].tags", f"at most {MAX_TAGS} tags")
        if ref.repo not in repos:
            repos[ref.repo] = await _repo(ctx, ref, at)
        tags_by_repo.setdefault(repos[ref.repo], {}).update(dict.fromkeys(ref.tags or ["latest"]))
    # Whole UTC days, in the canonical timestamp text the stored events use.
    start, end = f"{days[0].isoformat()}T00:00:00.000Z", f"{days[-1].isoformat()}T23:59:59.999Z"
    fixed: dict[str, advisory_queries.Fixed] = {}
    for org, names in (await package_names(conn, tags_by_repo)).items():
        for f in await advisory_queries.fixed_between(conn, org, names, start, end):
            fixed.setdefault(f"{f.advisory_id}\0{f.time[:10]}", f)
    severities = await metadata.merged_severities(conn, {k: (f.advisory_id, *f.aliases) for k, f in fixed.items()})
    by_day: dict[str, list[ResolvedVuln]] = {}
    for key, f in sorted(fixed.items(), key=lambda kf: (kf[1].time, kf[1].advisory_id)):
        cvss = [Severity(type=s.type, score=s.score) for s in severities[key]]
        by_day.setdefault(f.time[:10], []).append(
            ResolvedVuln(id=f.advisory_id, aliases=f.aliases, cvss_severities=cvss)
        )
    reports = [
        ResolvedVulnsReport(date=f"{d.isoformat()}T00:00:00.000Z", resolved_vulns=by_day.get(d.isoformat(), []))
        for d in days
    ]
    return ListResolvedVulnsReportsResponse(resolved_vulns_reports=reports)
