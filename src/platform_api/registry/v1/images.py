"""/registry/v1/repos/{repo_id}/digests/{digest}/architectures and .../size (chainguard.platform.registry.Registry
GetArchs, GetSize) over registry/images.py's GetArchitectures and GetSize: `repo_id` for `repo_uid`, `arch` for
`architecture`. The same answers and errors (NOT_FOUND for an image `import oci` did not record).

ListManifestMetadata (/registry/v1/repos/{repo_id}/manifestmetdata, the contract's spelling) answers, per entry
asked (an image digest, or an index digest and an architecture: its platform manifest), the packages of that
manifest's SBOM (`import sbom`, registry/sboms.py) that have a purl, as `pkgMetadata` in the order asked. Only
the purl is kept: `originPurl`, `eolDate`, `buildTimestamp` and `license` answer their zero values. NOT_FOUND
for an image `import oci` did not record or an architecture the index does not have; an image without an SBOM
answers no packages. At most sboms.MAX_DIGESTS entries; an answer over listing.MAX_ANSWER bytes is refused.
Its HTTP rule is a GET, whose query parameters cannot carry the entries (repeated messages): over HTTP nothing
is asked and the answer is empty; gRPC carries them.
"""

from __future__ import annotations

from platform_api.core import errors, validate
from platform_api.gen.records import registry_v2 as v2
from platform_api.gen.records.registry import (
    ArchRequest,
    Archs,
    ManifestMetadata,
    ManifestMetadataFilter,
    ManifestMetadataFilterEntry,
    ManifestMetadataList,
    PkgMetadata,
    Size,
    SizeRequest,
)
from platform_api.registry import images, sboms
from platform_api.service import listing, v1
from platform_api.service.context import Context, rpc

SERVICE = "chainguard.platform.registry.Registry."


@rpc(SERVICE + "GetArchs")
async def get_archs(req: ArchRequest, ctx: Context) -> Archs:
    ask = v2.GetArchitecturesRequest(repo_uid=req.repo_id, digest=req.digest)
    return Archs(archs=(await v1.call(ctx, images.get_architectures, ask)).architectures)


@rpc(SERVICE + "GetSize")
async def get_size(req: SizeRequest, ctx: Context) -> Size:
    ask = v2.GetSizeRequest(repo_uid=req.repo_id, digest=req.digest, architecture=req.arch)
    size = await v1.call(ctx, images.get_size, ask)
    return Size(size=size.size, arch=size.architecture)


async def platform_manifest(ctx: Context, repo: str, entry: ManifestMetadataFilterEntry) -> str:
    """The manifest digest an entry names: its image digest, or the `arch` platform manifest of an index (as
    GetSize finds it: the index's flattened entries)."""
    at = entry.index_filter
    digest, arch = (at.digest, at.arch) if at is not None else (str(entry.image_digest or ""), "")
    validate.digest(digest)
    image = await images.get(ctx.rt.db, repo, digest)
    if image is None or (arch and not image.is_index and arch != image.architecture):
        raise errors.not_found(images.RESOURCE, f"{repo}@{digest}" + (f" for architecture {arch}" if arch else ""))
    if not arch or not image.is_index:
        return digest
    for child in (await images.platforms(ctx.rt.db, repo, [image]))[digest]:
        if child.get("architecture") == arch:
            return str(child["digest"])
    raise errors.not_found(images.RESOURCE, f"{repo}@{digest} for architecture {arch}")


@rpc(SERVICE + "ListManifestMetadata")
async def list_manifest_metadata(req: ManifestMetadataFilter, ctx: Context) -> ManifestMetadataList:
    validate.uid(req.repo_id, "repo_id")
    if len(req.items) > sboms.MAX_DIGESTS:
        raise errors.invalid_argument("items", f"at most {sboms.MAX_DIGESTS} entries")
    out, used = ManifestMetadataList(), 0
    for entry in req.items:
        digest = await platform_manifest(ctx, req.repo_id, entry)
        purls = [p.purl for p in await sboms.packages(ctx.rt.db, req.repo_id, [digest]) if p.purl]
        used += sum(len(p) + 16 for p in purls) + len(digest)
        if used > listing.MAX_ANSWER:
            raise errors.answer_too_large(listing.MAX_ANSWER, "bytes of package metadata", "ask fewer digests")
        out.items.append(ManifestMetadata(digest=digest, pkg_metadata=[PkgMetadata(purl=p) for p in purls]))
    return out
