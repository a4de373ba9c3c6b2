"""Registry images (ImagesService): the facts `import oci` recorded per repo and digest.

GetArchitectures of an image index: the architectures of its entries (nested indexes flattened, entries
with no or an "unknown" architecture, e.g. attestations, left out), in index order without repeats. Of a
single-platform manifest: its one architecture (none when its platform is unknown).
GetSize: config + layers of the manifest for `architecture` (default amd64) in the index; of a manifest
digest, its own size when `architecture` is empty or its own. NOT_FOUND for an unknown digest, an
architecture the index does not have, or a platform manifest that was not imported.

An index's platform entries are flattened when it is imported (`oci.flatten`), so these reads cost a
bounded number of queries whatever the nesting. What an import could not flatten (a nested index imported
after its parent, rows recorded before imports flattened) is resolved at read time by a walk of the stored
indexes, level by level (one IN query per level), each distinct digest once, at most READ_WALK indexes and
READ_STEPS entries; beyond it the read is FAILED_PRECONDITION until the index is imported again.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from platform_api.core import errors, validate
from platform_api.gen.records.registry_v2 import Architectures, GetArchitecturesRequest, GetSizeRequest, Size
from platform_api.registry import oci, queries
from platform_api.service.context import Context, rpc
from platform_api.store.db import Conn, Row

SERVICE = "chainguard.platform.registry.v2.ImagesService."
RESOURCE = "chainguard.platform.registry.v2.Image"
_COLUMNS = "digest, media_type, is_index, size, os, architecture, variant, body"
# What a read may walk of the stored indexes to finish a flattening that their import could not do.
READ_WALK = 1_000  # nested indexes
READ_STEPS = 100_000  # entries stepped through


def _image(row: Row) -> oci.Image:
    facts = json.loads(row["body"])
    return oci.Image(digest=row["digest"], media_type=row["media_type"], is_index=bool(row["is_index"]),
                     size=int(row["size"]), os=row["os"], architecture=row["architecture"],
                     variant=row["variant"], config=facts.get("config", ""),
                     layers=facts.get("layers", []), children=facts.get("children", []),
                     platforms=facts.get("platforms"))  # fmt: skip


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


async def forget(tx: Conn, repo: str, digest: str) -> bool:
    """Drop what `repo` records of `digest` (the registry deleted it); whether there was a record."""
    return bool(await tx.execute("DELETE FROM images WHERE repo = $1 AND digest = $2", repo, digest))


def _entries(facts: dict[str, Any]) -> list[dict[str, Any]]:
    """An index row's entries as `Image.entries` gives them, from its body alone."""
    found: list[dict[str, Any]] = facts["children"] if facts.get("platforms") is None else facts["platforms"]
    return found


async def flatten(tx: Conn, repo: str, content: dict[str, oci.Image]) -> None:
    """Set `platforms` of the indexes of one input before `put`: nested indexes from the input itself, or
    recorded before in `repo` (walked as `stored_entries`, at most oci.MAX_DOCUMENTS). oci.TooWide past a cap."""
    nested = [e["digest"] for image in content.values() for e in image.children if oci.is_index(e)]
    outside = [d for d in nested if d not in content]
    stored = await stored_entries(tx, repo, outside, oci.MAX_DOCUMENTS, frozenset(content)) if outside else {}
    oci.flatten_all(content, stored, oci.Steps(oci.MAX_FLATTEN_STEPS))


async def stored_entries(
    conn: Conn, repo: str, digests: Iterable[str], limit: int, skip: frozenset[str] = frozenset()
) -> dict[str, list[dict[str, Any]]]:
    """The entries (`Image.entries`) of the indexes among `digests` recorded in `repo`, and of the indexes
    their entries still name unflattened, level by level: one query per level, each distinct
    digest once, none of `skip`. oci.TooWide beyond `limit` digests."""
    lists: dict[str, list[dict[str, Any]]] = {}
    frontier = [d for d in dict.fromkeys(digests) if d not in skip]
    seen = set(frontier)
    while frontier:
        if len(seen) > limit:
            raise oci.TooWide(f"more than {limit} nested indexes to walk")
        sql = "SELECT digest, body FROM images WHERE repo = $1 AND is_index = 1 AND digest = ANY($2)"
        found = await conn.fetch(sql, repo, frontier)
        frontier = []
        for r in found:
            entries = lists[r["digest"]] = _entries(json.loads(r["body"]))
            for e in entries:
                if oci.is_index(e) and e["digest"] not in seen and e["digest"] not in skip:
                    seen.add(e["digest"])
                    frontier.append(e["digest"])
    return lists


async def platforms(conn: Conn, repo: str, indexes: list[oci.Image]) -> dict[str, list[dict[str, Any]]]:
    """Per index: its platform manifests' entries (nested indexes flattened as far as they were imported),
    each digest once, in index order. The rest of a flattening their import left is walked once for all."""
    pending = [e["digest"] for image in indexes for e in image.entries() if oci.is_index(e)]
    lists: dict[str, list[dict[str, Any]]] = {}
    out: dict[str, list[dict[str, Any]]] = {}
    try:
        if pending:
            lists = await stored_entries(conn, repo, pending, READ_WALK)
        steps = oci.Steps(READ_STEPS)
        for image in indexes:
            # Rows from before imports flattened may repeat a digest: flatten them too.
            done = not lists and image.platforms is not None
            flat = image.entries() if done else oci.flatten(image.entries(), lists.get, steps)
            out[image.digest] = [e for e in flat if not oci.is_index(e)]
    except oci.TooWide as e:
        subject = f"{repo}@{indexes[0].digest}" if len(indexes) == 1 else repo
        raise errors.failed_precondition(
            "INDEX_NOT_FLATTENED", f"the index is too wide to flatten on read ({e}): import it again", subject
        ) from None
    return out


async def _images(conn: Conn, repo: str, digests: list[str]) -> dict[str, oci.Image]:
    """The images among `digests` recorded in `repo` (one query)."""
    sql = f"SELECT {_COLUMNS} FROM images WHERE repo = $1 AND digest = ANY($2)"
    return {r["digest"]: _image(r) for r in await conn.fetch(sql, repo, list(dict.fromkeys(digests)))}


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
    for child in (await platforms(ctx.rt.db, req.repo_uid, [image]))[image.digest]:
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
    for child in (await platforms(ctx.rt.db, req.repo_uid, [image]))[image.digest]:
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
    children = (await platforms(conn, repo, [image]))[digest]
    children.sort(key=lambda c: c.get("architecture") != "amd64")
    found = await _images(conn, repo, [c["digest"] for c in children])
    for child in children:
        manifest = found.get(child["digest"])
        if manifest is not None and _usable(manifest.architecture or child.get("architecture", "")):
            return manifest.size
    return 0


async def tagged_digests(conn: Conn, repo: str, tags: list[str], limit: int) -> list[str]:
    """The digests that `tags` name in `repo` and, for an index, its platform manifests' (as far as
    imported): every digest whose SBOM describes the tagged image, each once. At most `limit` + 1 (more
    than `limit` found). Queries: the tags', the tagged images' and, only for what their imports left
    unflattened, one per level of the walk."""
    found = dict.fromkeys(await queries.tag_digests(conn, repo, tags))
    indexes = [i for i in (await _images(conn, repo, list(found))).values() if i.is_index]
    flat = await platforms(conn, repo, indexes)
    for image in indexes:
        found.update(dict.fromkeys(child["digest"] for child in flat[image.digest]))
        if len(found) > limit:
            break
    return list(found)[: limit + 1]


async def count_in(conn: Conn, repos: list[str]) -> int:
    """How many images (manifests and indexes) `import oci` recorded in the repos `repos`."""
    if not repos:
        return 0
    return int(await conn.fetchval("SELECT COUNT(*) FROM images WHERE repo = ANY($1)", repos) or 0)
