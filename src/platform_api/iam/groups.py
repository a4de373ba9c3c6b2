"""IAM groups: /iam/v2/groups (GroupsService). Root organizations have a 40-hex uid, sub-groups
`<parent>/<16 hex>`. A group with any child resource cannot be deleted (RESOURCE_NOT_EMPTY).
"""

from __future__ import annotations

from platform_api.auth import authz, capabilities
from platform_api.core import clock, errors, uidp, validate
from platform_api.gen.records._base import Empty
from platform_api.gen.records.iam_v2 import (
    CreateGroupRequest,
    DeleteGroupRequest,
    GetGroupRequest,
    Group,
    ListGroupsRequest,
    ListGroupsResponse,
    UpdateGroupRequest,
)
from platform_api.iam import queries
from platform_api.outbox import outbox
from platform_api.service import crud, listing
from platform_api.service.cascade import Cascades
from platform_api.service.context import Context, rpc
from platform_api.store import rows
from platform_api.store.db import Conn

SERVICE = "chainguard.platform.iam.v2.GroupsService."
RESOURCE = "chainguard.platform.iam.v2.Group"
NAMES = crud.UniqueName("groups", RESOURCE, "a group", "under this parent")
TABLE = listing.Table("groups")
GROUPS = crud.Resource("groups", Group, RESOURCE, outbox.emit, NAMES)
UPDATABLE = frozenset({"name", "description"})


async def require(conn: Conn, uid: str, field: str = "uid") -> None:
    """The group must exist (NOT_FOUND names it otherwise). Inside a transaction the row is kept until
    commit (a key-share lock: a concurrent delete, which locks the group for update first, waits; other
    creators under the same group do not), so no delete removes the group under a resource created in it.
    """
    validate.uid(uid, field)
    if await conn.fetchval("SELECT 1 FROM groups WHERE uid = $1" + conn.key_share_suffix, uid) is None:
        raise errors.not_found(RESOURCE, uid)


async def exists(conn: Conn, uid: str) -> bool:
    return await conn.fetchval("SELECT 1 FROM groups WHERE uid = $1", uid) is not None


async def named(conn: Conn, parent: str, name: str) -> str | None:
    """The uid of the group called `name` under `parent` ("": the organization called `name`)."""
    uid = await conn.fetchval("SELECT uid FROM groups WHERE parent = $1 AND name = $2", parent, name)
    return None if uid is None else str(uid)


async def named_anywhere(conn: Conn, name: str, limit: int) -> list[str]:
    """The uids of at most `limit` groups called `name`, at any level, in uid order."""
    found = await conn.fetch("SELECT uid FROM groups WHERE name = $1 ORDER BY uid LIMIT $2", name, limit)
    return [str(r["uid"]) for r in found]


async def names(conn: Conn, uids: list[str]) -> dict[str, str]:
    """uid -> name of the groups among `uids` that exist."""
    found = await conn.fetch("SELECT uid, name FROM groups WHERE uid = ANY($1)", uids)
    return {str(r["uid"]): str(r["name"]) for r in found}


async def bodies(conn: Conn, uids: set[str]) -> dict[str, str]:
    """uid -> stored body of the groups among `uids` that exist."""
    return await rows.bodies(conn, "groups", uids)


async def insert(tx: Conn, group: Group, parent: str) -> None:
    await GROUPS.insert(tx, group, parent, name=group.name)


def _check(group: Group) -> None:
    validate.name(group.name)
    validate.description(group.description)


async def _fetch(conn: Conn, uid: str, lock: bool = False) -> Group:
    return await GROUPS.get(conn, uid, lock=lock)


def _authorize_create(ctx: Context, parent: str) -> None:
    """CreateGroup is unscoped: a sub-group needs groups.create at its parent; a new organization needs
    groups.create somewhere, from an identity that is not confined to a group (it becomes the owner)."""
    caller = authz.caller(ctx)
    if parent:
        validate.uid(parent, "parent")
        caller.require(ctx.required, parent, RESOURCE)
        return
    if uidp.parent(caller.subject) or caller.scopes or not caller.visible_roots(ctx.required):
        raise errors.permission_denied("creating an organization needs groups.create held by an unconfined identity")


@rpc(SERVICE + "CreateGroup")
async def create_group(req: CreateGroupRequest, ctx: Context) -> Group:
    _authorize_create(ctx, req.parent)
    given = req.group or Group()
    now = clock.now()
    group = Group(
        uid=uidp.new_child(req.parent) if req.parent else uidp.new_root(),
        name=given.name,
        description=given.description,
        create_time=now,
        update_time=now,
    )
    validate.name(group.name)
    validate.description(group.description)
    async with ctx.rt.db.transaction() as tx:
        if req.parent:
            await require(tx, req.parent, "parent")
        await NAMES.check(tx, req.parent, group.name, group.uid)
        await insert(tx, group, req.parent)
        if not req.parent:
            # The creator owns the new organization.
            await queries.insert_role_binding(tx, group.uid, ctx.subject, capabilities.OWNER.uid, now)
        await outbox.emit(tx, ctx, group)
    if not req.parent:
        ctx.rt.grants_changed()
    return group


@rpc(SERVICE + "GetGroup")
async def get_group(req: GetGroupRequest, ctx: Context) -> Group:
    return await _fetch(ctx.rt.db, req.uid)


@rpc(SERVICE + "ListGroups")
async def list_groups(req: ListGroupsRequest, ctx: Context) -> ListGroupsResponse:
    where = listing.filters(req, name="name")
    return await listing.answer(ctx, TABLE, where, req, ListGroupsResponse, "groups", Group)


@rpc(SERVICE + "UpdateGroup")
async def update_group(req: UpdateGroupRequest, ctx: Context) -> Group:
    return await GROUPS.update_rpc(
        ctx, req.group or Group(), req.update_mask, UPDATABLE, check=_check, columns=lambda g: {"name": g.name}
    )


async def any_in_group(conn: Conn, group: str) -> bool:
    return await GROUPS.any_where(conn, "parent", group)


@rpc(SERVICE + "DeleteGroup")
async def delete_group(req: DeleteGroupRequest, ctx: Context) -> Empty:
    """Refused while anything lives under the group (its sub-groups, then what the domains declare, each
    owner asked: service.cascade); what belongs to the group goes with it."""
    cascades = ctx.rt.part(Cascades)
    async with ctx.rt.db.transaction() as tx:
        await _fetch(tx, req.uid, lock=True)
        children = (["groups"] if await any_in_group(tx, req.uid) else []) + await cascades.blocking(
            tx, "group", req.uid
        )
        if children:
            raise errors.failed_precondition(
                "RESOURCE_NOT_EMPTY", f"cannot delete group with child {children[0]}", subject=req.uid
            )
        await cascades.remove(tx, "group", req.uid)
        await GROUPS.delete(tx, req.uid)
        await outbox.emit(tx, ctx, req)
    ctx.rt.grants_changed()
    return Empty()
