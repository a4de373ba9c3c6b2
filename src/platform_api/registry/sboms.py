"""The packages of an image's SBOM, per (repo, digest), and the document as imported: written by `import sbom`,
read by whoever joins packages to advisories (`packages`) and by the v1 GetSbom and GetRawSbom (`get`). SBOMs
imported before migration 0014 have no document (`Stored.raw` None)."""

from __future__ import annotations

import hashlib
from typing import NamedTuple

from platform_api.core import clock
from platform_api.store.db import Conn

# Digests per `packages` call (one IN list).
MAX_DIGESTS = 1000


class Package(NamedTuple):
    name: str
    version: str
    purl: str


class Change(NamedTuple):
    """What `put` did to the packages recorded: added, removed, kept; and the SBOM's own outcome."""

    added: int
    removed: int
    kept: int
    outcome: str  # created | updated | unchanged


def fingerprint(packages: list[Package]) -> str:
    h = hashlib.sha256()
    for p in packages:
        h.update("\x00".join(p).encode() + b"\x01")
    return h.hexdigest()


class Stored(NamedTuple):
    """An SBOM as recorded: its format, when it was imported, the document (None: imported before the
    documents were kept)."""

    format: str
    import_time: str
    raw: bytes | None


async def put(tx: Conn, repo: str, digest: str, fmt: str, packages: list[Package], raw: bytes | None = None) -> Change:
    """Record the SBOM of image `digest` in `repo` as exactly `packages` (sorted, unique) from the document
    `raw` (None: no document is kept): only the difference to what is recorded is written."""
    sha, raw_sha = fingerprint(packages), None if raw is None else hashlib.sha256(raw).hexdigest()
    old = await tx.fetchrow(
        "SELECT format, packages_sha256, raw_sha256 FROM sboms WHERE repo = $1 AND digest = $2", repo, digest
    )
    if old is not None and (old["format"], old["packages_sha256"], old["raw_sha256"]) == (fmt, sha, raw_sha):
        return Change(0, 0, len(packages), "unchanged")
    found = await tx.fetch(
        "SELECT name, version, purl FROM sbom_packages WHERE repo = $1 AND digest = $2", repo, digest
    )
    have = {Package(r["name"], r["version"], r["purl"]) for r in found}
    want = set(packages)
    gone = sorted(have - want)
    new = sorted(want - have)
    for p in gone:
        await tx.execute(
            "DELETE FROM sbom_packages WHERE repo = $1 AND digest = $2 AND name = $3 AND version = $4 AND purl = $5",
            repo, digest, *p,
        )  # fmt: skip
    await tx.executemany(
        "INSERT INTO sbom_packages (repo, digest, name, version, purl) VALUES ($1, $2, $3, $4, $5)",
        [(repo, digest, *p) for p in new],
    )
    now = clock.now()
    if old is None:
        await tx.execute(
            "INSERT INTO sboms (repo, digest, format, packages_sha256, import_time, raw, raw_sha256)"
            " VALUES ($1, $2, $3, $4, $5, $6, $7)",
            repo, digest, fmt, sha, now, raw, raw_sha,
        )  # fmt: skip
        return Change(len(new), 0, len(want & have), "created")
    await tx.execute(
        "UPDATE sboms SET format = $3, packages_sha256 = $4, import_time = $5, raw = $6, raw_sha256 = $7"
        " WHERE repo = $1 AND digest = $2",
        repo, digest, fmt, sha, now, raw, raw_sha,
    )  # fmt: skip
    return Change(len(new), len(gone), len(want & have), "updated")


async def packages(conn: Conn, repo_uid: str, digests: list[str]) -> list[Package]:
    """The packages recorded in the SBOMs of `digests` (images of repo `repo_uid`), unique, sorted by name,
    version, purl. At most MAX_DIGESTS digests (ValueError beyond: the caller bounds its request)."""
    if not digests:
        return []
    if len(digests) > MAX_DIGESTS:
        raise ValueError(f"at most {MAX_DIGESTS} digests")
    found = await conn.fetch(
        "SELECT DISTINCT name, version, purl FROM sbom_packages WHERE repo = $1 AND digest = ANY($2)"
        " ORDER BY name, version, purl",
        repo_uid, digests,
    )  # fmt: skip
    return [Package(r["name"], r["version"], r["purl"]) for r in found]


async def get(conn: Conn, repo: str, digest: str) -> Stored | None:
    """The SBOM recorded for image `digest` in `repo`, with its document (None: no SBOM is recorded)."""
    found = await conn.fetchrow(
        "SELECT format, import_time, raw FROM sboms WHERE repo = $1 AND digest = $2", repo, digest
    )
    if found is None:
        return None
    return Stored(found["format"], found["import_time"], None if found["raw"] is None else bytes(found["raw"]))
