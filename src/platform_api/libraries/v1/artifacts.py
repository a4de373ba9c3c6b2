"""/libraries/v1/artifacts (chainguard.platform.libraries.Artifacts) over libraries/artifacts.py: `id` for
`uid`, `createdAt`/`updatedAt` for `createTime`/`updateTime`, ecosystems without their `ECOSYSTEM_` prefix.

v1 differences:
- List pages, as its contract does (`pageSize`, `pageToken`, `skip`; `nextPageToken`, `totalArtifacts`,
  `skipped`): the v2 twin's pages and tokens (a token of one works in the other); no `orderBy` (name order).
- ListVersions answers every version (`{items}`, no paging in its contract; at most v1.MAX_ITEMS), and an
  artifact id that does not exist answers an empty list, the v1 way (v2: NOT_FOUND).
- Ecosystems: the v1 enum names ecosystems this service holds no artifacts of (JAVASCRIPT, GO, DOTNET, the
  *_ATHENA ones): asked for, they match nothing (List: no artifacts from them; GetArtifactCount: 0), as v2's
  filters on data we do not hold do; UNKNOWN (or none) is refused as v2 refuses an unspecified ecosystem.
- `includeUpstream`: the v2 twin is the v1 call without it, and what we hold is what it answers, so the flag
  selects nothing more or less and is accepted as is. `cudaVersion` and `remediated` are v2's own filters.
- ArtifactVersion's `sourceType`, `malwareScanned`, `malwareMalicious` and `upstreamPublishedDate` are not
  kept here: zero values.
"""

from __future__ import annotations

from msgspec import UNSET

from platform_api.core import errors
from platform_api.gen.records import libraries_v2 as v2
from platform_api.gen.records.libraries import (
    Artifact,
    ArtifactFilter,
    ArtifactList,
    ArtifactVersion,
    ArtifactVersionFilter,
    ArtifactVersionList,
    Ecosystem,
    GetArtifactCountRequest,
    GetArtifactCountResponse,
    GetArtifactCountResponse_Count,
)
from platform_api.libraries import artifacts
from platform_api.service import listing, v1
from platform_api.service.context import Context, rpc

SERVICE = "chainguard.platform.libraries.Artifacts."
TIMES = {"id": "uid", "created_at": "create_time", "updated_at": "update_time"}
# The v1 ecosystems v2 has; UNKNOWN is v2's unspecified one (refused there); the others we hold nothing of.
TO_V2: dict[str, v2.Ecosystem] = {"UNKNOWN": "ECOSYSTEM_UNSPECIFIED", "JAVA": "ECOSYSTEM_JAVA",
                                  "PYTHON": "ECOSYSTEM_PYTHON"}  # fmt: skip
TO_V1: dict[str, Ecosystem] = {"ECOSYSTEM_JAVA": "JAVA", "ECOSYSTEM_PYTHON": "PYTHON"}


def _held(ecosystems: list[Ecosystem]) -> list[v2.Ecosystem] | None:
    """The v2 ecosystems of a v1 list (those v2 knows, UNKNOWN as v2's unspecified one), in order; None when
    every one asked for is one we hold nothing of. (None asked for: [], which the v2 twin refuses.)"""
    held = list(dict.fromkeys(TO_V2[e] for e in ecosystems if e in TO_V2))
    return held if held or not ecosystems else None


def _artifact(a: v2.Artifact) -> Artifact:
    return v1.convert(a, Artifact, TIMES, ecosystem=TO_V1.get(a.ecosystem, "UNKNOWN"))


@rpc(SERVICE + "List")
async def list_(req: ArtifactFilter, ctx: Context) -> ArtifactList:
    held = _held(req.ecosystems)
    if held is None:
        # Only ecosystems we hold nothing of: the v2 twin's own first check, then nothing matches.
        listing.require_somewhere(v1.twin(ctx, artifacts.list_artifacts))
        return ArtifactList(skipped=req.skip)
    ask = v2.ListArtifactsRequest(ecosystems=held, query=req.query, cuda_version=req.cuda_version or UNSET,
                                  remediated=req.remediated, page_size=req.page_size, page_token=req.page_token,
                                  skip=req.skip)  # fmt: skip
    page = await v1.call(ctx, artifacts.list_artifacts, ask)
    return ArtifactList(items=[_artifact(a) for a in page.artifacts], next_page_token=page.next_page_token,
                        total_artifacts=int(page.total_count), skipped=page.skipped or 0)  # fmt: skip


@rpc(SERVICE + "ListVersions")
async def list_versions(req: ArtifactVersionFilter, ctx: Context) -> ArtifactVersionList:
    ask = v2.ListArtifactVersionsRequest(artifact_id=req.id)
    try:
        found = await v1.every(ctx, artifacts.list_artifact_versions, ask, "artifact_versions", _version)
    except errors.ApiError as e:
        if e.code == errors.NOT_FOUND:  # v1: an id that does not exist is an empty list
            return ArtifactVersionList()
        raise
    return ArtifactVersionList(items=found)


def _version(v: v2.ArtifactVersion) -> ArtifactVersion:
    return v1.convert(v, ArtifactVersion, TIMES)


@rpc(SERVICE + "GetArtifactCount")
async def get_artifact_count(req: GetArtifactCountRequest, ctx: Context) -> GetArtifactCountResponse:
    held = _held(req.ecosystems)
    counts: dict[str, int] = {}
    if held is not None:
        answer = await v1.call(ctx, artifacts.get_artifact_count, v2.GetArtifactCountRequest(ecosystems=held))
        counts = {TO_V1[c.ecosystem]: int(c.total_count) for c in answer.counts}
    else:
        listing.require_somewhere(v1.twin(ctx, artifacts.get_artifact_count))
    # Each ecosystem asked for once, in the order asked; those we hold nothing of count 0.
    asked = list(dict.fromkeys(req.ecosystems))
    return GetArtifactCountResponse(
        counts=[GetArtifactCountResponse_Count(ecosystem=e, total_artifacts=counts.get(e, 0)) for e in asked]
    )
