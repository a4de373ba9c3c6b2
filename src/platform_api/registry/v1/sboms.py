"""The v1 calls over an image's imported SBOM (`import sbom`; registry/sboms.py keeps it), no v2 counterpart:
Registry.GetSbom (GET /registry/v1/repos/{repo_id}/digests/{digest}/sbom, a chainguard.platform.tenant.Sbom2)
and Registry.GetRawSbom (GET /registry/v1/repos/{repo_id}/digest/{digest}/rawsbom, the contract's `digest`).

The image is an image digest, or an index digest and `arch` (its platform manifest, as GetSize finds it);
NOT_FOUND for an image `import oci` did not record, an architecture the index does not have, or an image
without an SBOM. GetRawSbom's `reference` names the image when `digest` is empty: a digest or a tag of the
repo.

v1 differences:
- GetSbom: `graph.nodes` are the recorded packages (name, version, purl; sorted), as packages only: their
  `id`, `license` and `description` and the graph's `edges` are not kept (empty). `tool`, `authors`,
  `generatedAt`, `name` and `description` are read from the kept document (sbom_import.describe: SPDX
  creationInfo and name, CycloneDX metadata); `format` is "spdx" or "cyclonedx"; `source` INGESTED;
  `lastSeen` the import time; `id` the document's sha256; `rawSbom` the document (base64, as bytes are).
  The package nodes are bounded (GRAPH_BUDGET bytes: RESOURCE_EXHAUSTED beyond, never cut).
- SBOMs imported before migration 0014 have no kept document: GetSbom answers their packages with the
  document's fields empty; GetRawSbom answers FAILED_PRECONDITION (type SBOM_DOCUMENT_NOT_KEPT): importing
  the SBOM again keeps it.
"""

from __future__ import annotations

import base64
import hashlib

from platform_api.core import errors, validate
from platform_api.gen.records.registry import (
    ManifestMetadataFilterEntry,
    ManifestMetadataIndexFilter,
    RawSbom,
    RawSbomRequest,
    SbomRequest,
)
from platform_api.gen.records.tenant import ComponentGraph, ComponentGraph_Node, Package2, Sbom2
from platform_api.registry import queries, sbom_import, sboms
from platform_api.registry.v1 import images as v1_images
from platform_api.service.context import Context, rpc

SERVICE = "chainguard.platform.registry.Registry."
RESOURCE = "chainguard.platform.tenant.Sbom2"
# The package nodes' bytes one GetSbom answers at most: with the document (at most sbom_import.MAX_SBOM,
# a third more in base64) it stays well below the server's answer backstop (api.dispatch, 64 MiB).
GRAPH_BUDGET = 16 << 20


async def _stored(ctx: Context, repo: str, digest: str, arch: str) -> tuple[str, sboms.Stored]:
    """The manifest digest asked for and its SBOM."""
    validate.uid(repo, "repo_id")
    validate.digest(digest)
    # The index's platform manifest, found as ListManifestMetadata finds it (one rule for both calls).
    entry = ManifestMetadataFilterEntry(index_filter=ManifestMetadataIndexFilter(digest=digest, arch=arch))
    manifest = await v1_images.platform_manifest(ctx, repo, entry)
    stored = await sboms.get(ctx.rt.db, repo, manifest)
    if stored is None:
        raise errors.not_found(RESOURCE, f"{repo}@{manifest}")
    return manifest, stored


@rpc(SERVICE + "GetSbom")
async def get_sbom(req: SbomRequest, ctx: Context) -> Sbom2:
    digest, stored = await _stored(ctx, req.repo_id, req.digest, req.arch)
    packages = await sboms.packages(ctx.rt.db, req.repo_id, [digest])
    if sum(len(p.name) + len(p.version) + len(p.purl) + 64 for p in packages) > GRAPH_BUDGET:
        raise errors.answer_too_large(GRAPH_BUDGET, "bytes of packages", "GetRawSbom answers the document")
    nodes = [ComponentGraph_Node(package=Package2(name=p.name, version=p.version, purl=p.purl)) for p in packages]
    raw = stored.raw
    about = sbom_import.describe(raw) if raw is not None else sbom_import.Described()
    return Sbom2(
        id=hashlib.sha256(raw).hexdigest() if raw is not None else "",
        raw_sbom=base64.b64encode(raw).decode() if raw is not None else "",
        graph=ComponentGraph(nodes=nodes),
        last_seen=stored.import_time,
        tool=about.tool,
        format=stored.format,
        generated_at=about.generated_at,
        authors=about.authors,
        source="INGESTED",
        name=about.name,
        description=about.description,
        digest=digest,
    )


@rpc(SERVICE + "GetRawSbom")
async def get_raw_sbom(req: RawSbomRequest, ctx: Context) -> RawSbom:
    digest = req.digest
    if not digest and req.reference and not validate.is_digest(req.reference):
        validate.uid(req.repo_id, "repo_id")
        named = await queries.tag_digests(ctx.rt.db, req.repo_id, [req.reference])
        if not named:
            raise errors.not_found(RESOURCE, f"{req.repo_id}:{req.reference}")
        digest = named[0]
    manifest, stored = await _stored(ctx, req.repo_id, digest or req.reference, req.arch)
    if stored.raw is None:
        raise errors.failed_precondition(
            "SBOM_DOCUMENT_NOT_KEPT",
            f"the SBOM of {req.repo_id}@{manifest} was imported before SBOM documents were kept: import it again",
            f"{req.repo_id}@{manifest}",
        )
    return RawSbom(rawSbom=stored.raw.decode("utf-8", errors="replace"))
