"""/registry/v1/repos/{repo_id}/digests/{digest}/architectures and .../size (chainguard.platform.registry.Registry
GetArchs, GetSize) over registry/images.py's GetArchitectures and GetSize: `repo_id` for `repo_uid`, `arch` for
`architecture`. The same answers and errors (NOT_FOUND for an image `import oci` did not record)."""

from __future__ import annotations

from platform_api.gen.records import registry_v2 as v2
from platform_api.gen.records.registry import ArchRequest, Archs, Size, SizeRequest
from platform_api.service import v1
from platform_api.service.context import Context, rpc

SERVICE = "chainguard.platform.registry.Registry."
V2 = "chainguard.platform.registry.v2.ImagesService."


@rpc(SERVICE + "GetArchs")
async def get_archs(req: ArchRequest, ctx: Context) -> Archs:
    ask = v2.GetArchitecturesRequest(repo_uid=req.repo_id, digest=req.digest)
    return Archs(archs=(await v1.call(ctx, V2 + "GetArchitectures", ask)).architectures)


@rpc(SERVICE + "GetSize")
async def get_size(req: SizeRequest, ctx: Context) -> Size:
    ask = v2.GetSizeRequest(repo_uid=req.repo_id, digest=req.digest, architecture=req.arch)
    size = await v1.call(ctx, V2 + "GetSize", ask)
    return Size(size=size.size, arch=size.architecture)
