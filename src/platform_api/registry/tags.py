"""Registry tags: /registry/v2/tags (TagsService). A tag belongs to one repo; create is an upsert by name."""

from __future__ import annotations

from platform_api.core import clock, patterns, validate
from platform_api.gen.records._base import Empty
from platform_api.gen.records.registry_v2 import (
    CreateTagRequest,
    DeleteTagRequest,
    GetTagRequest,
    ListTagsRequest,
    ListTagsResponse,
    Tag,
)
from platform_api.outbox import outbox
from platform_api.registry import queries, repos
from platform_api.service import listing
from platform_api.service.context import Context, rpc
from platform_api.store.db import Conn

SERVICE = "chainguard.platform.registry.v2.TagsService."
RESOURCE = queries.TAG
TABLE = queries.TAGS_TABLE
# Tag kinds listed only on request (v2's include_* flags default to false).
REFERRER, DATED, EPOCH = 1, 2, 4


def kind(name: str) -> int:
    k = 0
    if name.startswith("sha256-"):
        k |= REFERRER
    if len(name) >= 9 and name[-9:-6] == "-20" and patterns.only(name[-6:], patterns.DIGITS):  # *-20yymmdd
        k |= DATED
    _, dash_r, epoch = name.rpartition("-r")  # *-rN
    if dash_r and patterns.digits(epoch):
        k |= EPOCH
    return k


@rpc(SERVICE + "CreateTag")
async def create_tag(req: CreateTagRequest, ctx: Context) -> Tag:
    return await write(ctx, req.parent, req.tag or Tag())


async def write(ctx: Context, parent: str, given: Tag, *, digest_optional: bool = False) -> Tag:
    """Create the tag `given.name` under repo `parent`, or set its digest and deprecation (an upsert by name).
    v2 requires a digest. With `digest_optional` (the v1 writes: the vendor's Terraform provider never sends
    one) an empty digest keeps the tag's own, and a new tag without one points nowhere until a push or a write
    with a digest fills it."""
    validate.uid(parent, "parent")
    validate.tag_name(given.name)
    if given.digest or not digest_optional:
        validate.digest(given.digest)
    async with ctx.rt.db.transaction() as tx:
        # Locking the repo serializes writers of its tags: the upsert below cannot race.
        await repos.fetch(tx, parent, lock=True)
        digest = given.digest
        if not digest:
            stored = await queries.tag_by_name(tx, parent, given.name)
            digest = stored.digest if stored is not None else ""
        tag, _ = await upsert(tx, ctx, parent, given.name, digest, given.deprecated)
        return tag


async def upsert(
    tx: Conn, ctx: Context, parent: str, name: str, digest: str, deprecated: bool = False
) -> tuple[Tag, str]:
    """`put`, and the event of `ctx`'s method for a change."""
    tag, outcome = await put(tx, parent, name, digest, deprecated)
    if outcome != "unchanged":
        await outbox.emit(tx, ctx, tag)
    return tag, outcome


async def put(tx: Conn, parent: str, name: str, digest: str, deprecated: bool = False) -> tuple[Tag, str]:
    """Create the tag `name` under repo `parent`, or point it at `digest`, inside `tx`, emitting nothing (the
    caller's: `upsert`, or the registry's data plane). Returns the tag and "created", "updated" or "unchanged".
    The caller has validated the values and locked the repo (`repos.fetch(tx, parent, lock=True)`)."""
    tag = await queries.tag_by_name(tx, parent, name)
    if tag is None:
        return await queries.insert_tag(tx, parent, name, digest, deprecated, kind(name)), "created"
    if tag.digest == digest and tag.deprecated == deprecated:
        return tag, "unchanged"
    tag.digest, tag.deprecated, tag.update_time = digest, deprecated, clock.now()
    await queries.update_tag(tx, tag)
    return tag, "updated"


async def remove(tx: Conn, uid: str) -> bool:
    """Delete the tag `uid` and its history inside `tx`, emitting nothing (the registry's data plane); whether
    there was one."""
    if not await queries.TAGS.delete(tx, uid):
        return False
    await queries.delete_history(tx, uid)
    return True


@rpc(SERVICE + "GetTag")
async def get_tag(req: GetTagRequest, ctx: Context) -> Tag:
    return await queries.TAGS.get(ctx.rt.db, req.uid)


@rpc(SERVICE + "ListTags")
async def list_tags(req: ListTagsRequest, ctx: Context) -> ListTagsResponse:
    where = listing.filters(req, name="name", digest="digest")
    if req.updated_since:
        where.add(f"update_time > {where.p(req.updated_since)}")
    hidden = (0 if req.include_referrers else REFERRER) | (0 if req.include_dates else DATED)
    where.hide_kinds(hidden | (0 if req.include_epochs else EPOCH))
    return await listing.answer(ctx, TABLE, where, req, ListTagsResponse, "tags", Tag)


@rpc(SERVICE + "DeleteTag")
async def delete_tag(req: DeleteTagRequest, ctx: Context) -> Empty:
    await queries.TAGS.delete_rpc(ctx, req, children=(queries.delete_history,))
    return Empty()
