"""Libraries: /libraries/v2/artifacts (ArtifactsService): Python and Java artifacts and their versions, as
`platform-api import libraries` recorded them. Read-only.

Authorization: the methods are unscoped with CAP_LIBRARIES_ARTIFACTS_LIST, and artifacts are global data
that no group owns. So a caller who holds the capability at any group (or above: any role binding that
grants it) sees every artifact; a caller who holds it nowhere gets PERMISSION_DENIED (there is nothing to
hide by answering NOT_FOUND or an empty list: the data is the same for everyone).

Filters we hold no data for: our imports record upstream artifacts only, none of them remediated and none a
CUDA variant, so `remediated: true` or a non-empty `cudaVersion` match nothing (an empty page, totalCount 0)
rather than being ignored.
"""

from __future__ import annotations

from platform_api.core import errors
from platform_api.gen.records.libraries_v2 import (
    Artifact,
    ArtifactVersion,
    Ecosystem,
    GetArtifactCountRequest,
    GetArtifactCountResponse,
    GetArtifactCountResponse_EcosystemCount,
    ListArtifactsRequest,
    ListArtifactsResponse,
    ListArtifactVersionsRequest,
    ListArtifactVersionsResponse,
)
from platform_api.libraries import queries
from platform_api.service import listing
from platform_api.service.context import Context, rpc

SERVICE = "chainguard.platform.libraries.v2.ArtifactsService."
RESOURCE = "chainguard.platform.libraries.v2.Artifact"
_NUMBERS: dict[Ecosystem, int] = {"ECOSYSTEM_JAVA": 1, "ECOSYSTEM_PYTHON": 2}
ALL_KINDS = 1 | 2
MAX_QUERY = 200


def _ecosystems(values: list[Ecosystem]) -> list[int]:
    if not values:
        raise errors.invalid_argument("ecosystems", "ecosystems is required: ECOSYSTEM_JAVA and/or ECOSYSTEM_PYTHON")
    out: list[int] = []
    for v in values:
        n = _NUMBERS.get(v)
        if n is None:
            raise errors.invalid_argument("ecosystems", f"ecosystem {v} is not one of ECOSYSTEM_JAVA, ECOSYSTEM_PYTHON")
        if n not in out:
            out.append(n)
    return out


def _like(query: str) -> str:
    escaped = query.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


@rpc(SERVICE + "ListArtifacts")
async def list_artifacts(req: ListArtifactsRequest, ctx: Context) -> ListArtifactsResponse:
    listing.require_somewhere(ctx)  # before the request's own checks, as dispatch's would be
    ecosystems = _ecosystems(req.ecosystems)
    if len(req.query) > MAX_QUERY:
        raise errors.invalid_argument("query", f"query must be at most {MAX_QUERY} characters")
    where = listing.Where()
    # The ecosystem is the row's kind bit: without a query the total is a sum of the per-kind counters.
    where.hide_kinds(ALL_KINDS & ~sum(ecosystems))
    if req.query:
        where.add(f"search LIKE {where.p(_like(req.query))} ESCAPE '\\'")
    if req.remediated or (isinstance(req.cuda_version, str) and req.cuda_version):
        where.add("1 = 0")
    page = await listing.page(ctx, queries.ARTIFACTS_TABLE, where, req)
    return listing.response(ListArtifactsResponse, "artifacts", Artifact, page)


@rpc(SERVICE + "ListArtifactVersions")
async def list_artifact_versions(req: ListArtifactVersionsRequest, ctx: Context) -> ListArtifactVersionsResponse:
    listing.require_somewhere(ctx)
    if not req.artifact_id:
        raise errors.invalid_argument("artifact_id", "artifact_id is required: an Artifact uid from ListArtifacts")
    if len(req.artifact_id) > 512 or not await queries.exists(ctx.rt.db, req.artifact_id):
        raise errors.not_found(RESOURCE, req.artifact_id[:512])
    where = listing.Where()
    where.eq("artifact", req.artifact_id)
    page = await listing.page(ctx, queries.VERSIONS_TABLE, where, req)
    return listing.response(ListArtifactVersionsResponse, "artifact_versions", ArtifactVersion, page)


@rpc(SERVICE + "GetArtifactCount")
async def get_artifact_count(req: GetArtifactCountRequest, ctx: Context) -> GetArtifactCountResponse:
    listing.require_somewhere(ctx)
    ecosystems = _ecosystems(req.ecosystems)
    found = await queries.counts(ctx.rt.db)
    names = {n: e for e, n in _NUMBERS.items()}
    counts = [GetArtifactCountResponse_EcosystemCount(ecosystem=names[n], total_count=str(found.get(n, 0)))
              for n in ecosystems]  # fmt: skip
    return GetArtifactCountResponse(counts=counts)
