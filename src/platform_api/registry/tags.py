"""Registry tags: /registry/v2/tags (TagsService). A tag belongs to one repo; create is an upsert by name."""

from __future__ import annotations

import re

from platform_api.core import clock, errors, uidp, validate
from platform_api.events import outbox
from platform_api.gen.records._base import Empty
from platform_api.gen.records.registry_v2 import (
    CreateTagRequest,
    DeleteTagRequest,
    GetTagRequest,
    ListTagsRequest,
    ListTagsResponse,
    Tag,
)
from platform_api.registry import repos
from platform_api.service import listing, storage
from platform_api.service.context import Context, rpc
from platform_api.store import rows
from platform_api.store.db import Conn

SERVICE = "chainguard.platform.registry.v2.TagsService."
RESOURCE = "chainguard.platform.registry.v2.Tag"
TABLE = listing.Table("tags")
# Tag kinds listed only on request (v2's include_* flags default to false).
REFERRER, DATED, EPOCH = 1, 2, 4
_DATED = re.compile(r".*-20\d{6}")
_EPOCH = re.compile(r".*-r\d+")


def kind(name: str) -> int:
    k = 0
    if name.startswith("sha256-"):
        k |= REFERRER
    if _DATED.fullmatch(name):
        k |= DATED
    if _EPOCH.fullmatch(name):
        k |= EPOCH
    return k


@rpc(SERVICE + "CreateTag")
async def create_tag(req: CreateTagRequest, ctx: Context) -> Tag:
    validate.uid(req.parent, "parent")
    given = req.tag or Tag()
    validate.tag_name(given.name)
    validate.digest(given.digest)
    async with ctx.rt.db.transaction() as tx:
        # Locking the repo serializes writers of its tags: the upsert below cannot race.
        await repos.fetch(tx, req.parent, lock=True)
        tag, _ = await upsert(tx, ctx, req.parent, given.name, given.digest, given.deprecated)
        return tag


async def upsert(
    tx: Conn, ctx: Context, parent: str, name: str, digest: str, deprecated: bool = False
) -> tuple[Tag, str]:
    """Create the tag `name` under repo `parent`, or point it at `digest`, inside `tx`; emits the event of
    `ctx`'s method for a change. Returns the tag and "created", "updated" or "unchanged". The caller has
    validated the values and locked the repo (`repos.fetch(tx, parent, lock=True)`)."""
    now = clock.now()
    row = await tx.fetchrow("SELECT body FROM tags WHERE parent = $1 AND name = $2" + rows.for_update(tx), parent, name)
    if row is None:
        tag = Tag(uid=uidp.new_child(parent), name=name, digest=digest, deprecated=deprecated,
                  create_time=now, update_time=now)  # fmt: skip
        await tx.execute(
            "INSERT INTO tags (uid, parent, name, digest, kind, create_time, update_time, body)"
            " VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
            tag.uid, parent, tag.name, tag.digest, kind(tag.name), now, now, rows.body(tag),
        )  # fmt: skip
        await outbox.emit(tx, ctx, tag)
        return tag, "created"
    tag = rows.decode(Tag, row["body"])
    if tag.digest == digest and tag.deprecated == deprecated:
        return tag, "unchanged"
    tag.digest, tag.deprecated, tag.update_time = digest, deprecated, now
    await tx.execute(
        "UPDATE tags SET digest = $2, update_time = $3, body = $4 WHERE uid = $1",
        tag.uid, tag.digest, now, rows.body(tag),
    )  # fmt: skip
    await outbox.emit(tx, ctx, tag)
    return tag, "updated"


@rpc(SERVICE + "GetTag")
async def get_tag(req: GetTagRequest, ctx: Context) -> Tag:
    return await storage.get(ctx.rt.db, "tags", Tag, RESOURCE, req.uid)


@rpc(SERVICE + "ListTags")
async def list_tags(req: ListTagsRequest, ctx: Context) -> ListTagsResponse:
    where = listing.Where()
    listing.add_uidp_filter(where, req.uidp)
    if req.name:
        where.eq("name", req.name)
    if req.digest:
        where.eq("digest", req.digest)
    if req.updated_since:
        where.add(f"update_time > {where.p(req.updated_since)}")
    hidden = (0 if req.include_referrers else REFERRER) | (0 if req.include_dates else DATED)
    where.hide_kinds(hidden | (0 if req.include_epochs else EPOCH))
    page = await listing.page(ctx, TABLE, where, req)
    return listing.response(ListTagsResponse, "tags", Tag, page)


@rpc(SERVICE + "DeleteTag")
async def delete_tag(req: DeleteTagRequest, ctx: Context) -> Empty:
    validate.uid(req.uid)
    async with ctx.rt.db.transaction() as tx:
        if not await tx.execute("DELETE FROM tags WHERE uid = $1", req.uid):
            raise errors.not_found(RESOURCE, req.uid)
        await outbox.emit(tx, ctx, req)
    return Empty()
