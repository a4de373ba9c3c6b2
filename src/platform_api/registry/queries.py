"""The registry's tables, `repos` and `tags`, and all SQL on them.

Ownership rule (every domain): each table has one owning module in its domain package, and only that module
has SQL on it (including the generic statements `service.crud.Resource`, `storage.get` and `listing` build
from the owner's declaration); every other module, of this domain or another, calls the owner's functions.
A resource module (`<domain>/<collection>.py`) owns its table when no other module needs it; tables that
several modules work with (here: a repo's delete removes its tags, tags are created through the repo) belong
to the domain's `queries.py`.
"""

from __future__ import annotations

from platform_api.core import clock, uidp
from platform_api.gen.records.registry_v2 import Repo, Tag
from platform_api.iam import groups
from platform_api.outbox import outbox
from platform_api.service import crud, listing
from platform_api.store import rows
from platform_api.store.db import Conn

REPO = "chainguard.platform.registry.v2.Repo"
TAG = "chainguard.platform.registry.v2.Tag"
REPO_NAMES = crud.UniqueName("repos", REPO, "a repo", "in this group")
REPOS = crud.Resource("repos", Repo, REPO, outbox.emit, REPO_NAMES)
TAGS = crud.Resource("tags", Tag, TAG, outbox.emit)
REPOS_TABLE = listing.Table("repos")
TAGS_TABLE = listing.Table("tags")
groups.register_child_table("repos", "repos")


async def repo_readme(conn: Conn, uid: str) -> str | None:
    """The repo's readme (None: no such repo)."""
    content: str | None = await conn.fetchval("SELECT readme FROM repos WHERE uid = $1", uid)
    return content


async def set_repo_readme(tx: Conn, repo: Repo, content: str) -> None:
    await tx.execute(
        "UPDATE repos SET readme = $2, update_time = $3, body = $4 WHERE uid = $1",
        repo.uid, content, repo.update_time, rows.body(repo),
    )  # fmt: skip


async def tag_by_name(tx: Conn, parent: str, name: str) -> Tag | None:
    """The tag `name` of repo `parent`, locked until the transaction ends."""
    body = await tx.fetchval(
        "SELECT body FROM tags WHERE parent = $1 AND name = $2" + rows.for_update(tx), parent, name
    )
    return None if body is None else rows.decode(Tag, body)


async def insert_tag(tx: Conn, parent: str, name: str, digest: str, deprecated: bool, kind: int) -> Tag:
    now = clock.now()
    tag = Tag(uid=uidp.new_child(parent), name=name, digest=digest, deprecated=deprecated,
              create_time=now, update_time=now)  # fmt: skip
    await tx.execute(
        "INSERT INTO tags (uid, parent, name, digest, kind, create_time, update_time, body)"
        " VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        tag.uid, parent, tag.name, tag.digest, kind, now, now, rows.body(tag),
    )  # fmt: skip
    return tag


async def update_tag(tx: Conn, tag: Tag) -> None:
    """The tag's digest, deprecation and update_time as the record has them."""
    await tx.execute(
        "UPDATE tags SET digest = $2, update_time = $3, body = $4 WHERE uid = $1",
        tag.uid, tag.digest, tag.update_time, rows.body(tag),
    )  # fmt: skip


async def tag_digests(conn: Conn, repo: str, names: list[str]) -> list[str]:
    """The digests the tags `names` of `repo` point at (tags that do not exist are left out)."""
    found = await conn.fetch("SELECT digest FROM tags WHERE parent = $1 AND name = ANY($2)", repo, names)
    return [r["digest"] for r in found]


async def repos_named(conn: Conn, name: str) -> list[str]:
    """The uids of the repos called `name` (in any group; the caller filters by what it may see)."""
    return [r["uid"] for r in await conn.fetch("SELECT uid FROM repos WHERE name = $1 ORDER BY uid", name)]


async def repo_exists(conn: Conn, uid: str) -> bool:
    return await conn.fetchval("SELECT 1 FROM repos WHERE uid = $1", uid) is not None
