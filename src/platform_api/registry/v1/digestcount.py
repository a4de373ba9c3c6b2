"""/registry/v1/digestcount/{parent_id} (chainguard.platform.registry.Registry GetManifestDigestCount): how many
images (manifests and indexes, each digest of each repo once) `import oci` recorded in the repos at or below
`parent_id` (an organization, a group or one repo), as `{count}`.

Authorization is the v1 method's (CAP_MANIFEST_METADATA_LIST at `parent_id` or above it), which covers every
repo below it: the count is of what the caller can see. A scope with no repos (or none that exists) counts 0;
images left behind by a deleted repo are not counted.
"""

from __future__ import annotations

from platform_api.core import validate
from platform_api.gen.records.registry import ManifestDigestCount, ManifestDigestCountFilter
from platform_api.registry import images, queries
from platform_api.service.context import Context, rpc

SERVICE = "chainguard.platform.registry.Registry."


@rpc(SERVICE + "GetManifestDigestCount")
async def get_manifest_digest_count(req: ManifestDigestCountFilter, ctx: Context) -> ManifestDigestCount:
    validate.uid(req.parent_id, "parent_id")
    repos = await queries.repos_within(ctx.rt.db, req.parent_id)
    out, n = ManifestDigestCount(), await images.count_in(ctx.rt.db, repos)
    if n:  # a count left at its default is omitted as proto3 JSON omits a zero (msgspec: by identity)
        out.count = str(n)
    return out
