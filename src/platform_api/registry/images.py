"""Registry images (ImagesService, reference 6.12): the facts `import oci` recorded per repo and digest.

GetArchitectures of an image index: the architectures of its entries (nested indexes flattened, entries
with no or an "unknown" architecture, e.g. attestations, left out), in index order without repeats. Of a
single-platform manifest: its one architecture (none when its platform is unknown).
GetSize: config + layers of the manifest for `architecture` (default amd64) in the index; of a manifest
digest, its own size when `architecture` is empty or its own. NOT_FOUND for an unknown digest, an
architecture the index does not have, or a platform manifest that was not imported.
"""

from __future__ import annotations

import json
from typing import Any

from platform_api.core import errors, validate
from platform_api.gen.records.registry_v2 import Architectures, GetArchitecturesRequest, GetSizeRequest, Size
from platform_api.registry import oci, queries
from platform_api.service.context import Context, rpc
from platform_api.store.db import Conn, Row

SERVICE = "chainguard.platform.registry.v2.ImagesService."
RESOURCE = "chainguard.platform.registry.v2.Image"
_COLUMNS = "digest, media_type, is_index, size, os, architecture, variant, body"


def _image(row: Row) -> oci.Image:
    facts = json.loads(row["body"])
    return oci.Image(digest=row["digest"], media_type=row["media_type"], is_index=bool(row["is_index"]),
                     size=int(row["size"]), os=row["os"], architecture=row["architecture"],
                     variant=row["variant"], config=facts.get("config", ""),
                     layers=facts.get("layers", []), children=facts.get("children", []))  # fmt: skip


async def get(conn: Conn, repo: str, digest: str) -> oci.Image | None:
    row = await conn.fetchrow(f"SELECT {_COLUMNS} FROM images WHERE repo = $1 AND digest = $2", repo, digest)
    return None if row is None else _image(row)


async def known(conn: Conn, repo: str, digest: str) -> bool:
    """Whether `import oci` recorded `digest` (a manifest or an index) in repo `repo`."""
    return await conn.fetchval("SELECT 1 FROM images WHERE repo = $1 AND digest = $2", repo, digest) is not None


async def put(tx: Conn, repo: str, image: oci.Image) -> str:
    """Record `image` in `repo`: "created", "updated" (a platform learned since) or "unchanged". A platform
    already known is kept when this input does not say one (a manifest imported alone)."""
    old = await get(tx, repo, image.digest)
    if old is not None:
        for key in ("os", "architecture", "variant"):
            if not getattr(image, key):
                setattr(image, key, getattr(old, key))
        if old == image:
            return "unchanged"
    values = (repo, image.digest, image.media_type, int(image.is_index), image.size, image.os,
              image.architecture, image.variant, oci.body(image))  # fmt: skip
    if old is None:
        await tx.execute(
            f"INSERT INTO images (repo, {_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
            *values,
        )
        return "created"
    await tx.execute(
        "UPDATE images SET media_type = $3, is_index = $4, size = $5, os = $6, architecture = $7, variant = $8,"
        " body = $9 WHERE repo = $1 AND digest = $2",
        *values,
    )
    return "updated"


async def _platforms(conn: Conn, repo: str, image: oci.Image, depth: int = 0) -> list[dict[str, Any]]:
    """The platform entries of an index, nested indexes flattened (as far as they were imported)."""
    out: list[dict[str, Any]] = []
    for child in image.children:
        if child.get("mediaType") in oci.INDEXES:
            nested = await get(conn, repo, child["digest"]) if depth < oci.MAX_DEPTH else None
            if nested is not None:
                out += await _platforms(conn, repo, nested, depth + 1)
        else:
            out.append(child)
    return out


def _usable(arch: str) -> bool:
    return arch not in ("", "unknown")


async def _lookup(ctx: Context, repo: str, digest: str) -> oci.Image:
    validate.uid(repo, "repo_uid")
    validate.digest(digest)
    image = await get(ctx.rt.db, repo, digest)
    if image is None:
        raise errors.not_found(RESOURCE, f"{repo}@{digest}")
    return image


@rpc(SERVICE + "GetArchitectures")
async def get_architectures(req: GetArchitecturesRequest, ctx: Context) -> Architectures:
    image = await _lookup(ctx, req.repo_uid, req.digest)
    if not image.is_index:
        return Architectures(architectures=[image.architecture] if _usable(image.architecture) else [])
    seen: list[str] = []
    for child in await _platforms(ctx.rt.db, req.repo_uid, image):
        arch = child.get("architecture", "")
        if _usable(arch) and arch not in seen:
            seen.append(arch)
    return Architectures(architectures=seen)


@rpc(SERVICE + "GetSize")
async def get_size(req: GetSizeRequest, ctx: Context) -> Size:
    image = await _lookup(ctx, req.repo_uid, req.digest)
    if len(req.architecture) > 64:
        raise errors.invalid_argument("architecture", "architecture must be at most 64 characters")
    if not image.is_index:
        if req.architecture and req.architecture != image.architecture:
            raise errors.not_found(RESOURCE, f"{req.repo_uid}@{req.digest} for architecture {req.architecture}")
        return Size(size=str(image.size), architecture=image.architecture)
    arch = req.architecture or "amd64"
    for child in await _platforms(ctx.rt.db, req.repo_uid, image):
        if child.get("architecture") == arch:
            found = await get(ctx.rt.db, req.repo_uid, child["digest"])
            if found is None:
                raise errors.not_found(
                    RESOURCE, f"{req.repo_uid}@{child['digest']} (the {arch} manifest of {req.digest})"
                )
            return Size(size=str(found.size), architecture=arch)
    raise errors.not_found(RESOURCE, f"{req.repo_uid}@{req.digest} for architecture {arch}")


async def size_of(conn: Conn, repo: str, digest: str) -> int:
    """The size GetSize answers with no architecture: a manifest's own, an index's amd64 manifest's (else
    its first imported platform manifest's); 0 when none is known."""
    image = await get(conn, repo, digest)
    if image is None:
        return 0
    if not image.is_index:
        return image.size
    children = await _platforms(conn, repo, image)
    children.sort(key=lambda c: c.get("architecture") != "amd64")
    for child in children:
        found = await get(conn, repo, child["digest"])
        if found is not None and _usable(found.architecture or child.get("architecture", "")):
            return found.size
    return 0


async def tagged_digests(conn: Conn, repo: str, tags: list[str]) -> list[str]:
    """The digests that `tags` name in `repo` and, for an index, its platform manifests' (as far as
    imported): every digest whose SBOM describes the tagged image."""
    found: list[str] = []
    for digest in await queries.tag_digests(conn, repo, tags):
        found.append(digest)
        image = await get(conn, repo, digest)
        if image is not None and image.is_index:
            found += [child["digest"] for child in await _platforms(conn, repo, image)]
    return list(dict.fromkeys(found))
