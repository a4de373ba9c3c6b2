"""IAM group invites: /iam/v2/groupInvites (GroupInvitesService), redeemed at POST /auth/v1/register.

An invite is an unguessable code (256 random bits) that, presented by an authenticated identity before its
expiration, binds the invite's role to that identity at the invite's group. The code is answered once, by
CreateGroupInvite; only its SHA-256 is stored. `keyId` is a short public handle to tell invites apart.
An invite may be single-use and may be bound to an e-mail address. Nobody invites into a role carrying
capabilities they do not hold at that group; redemption needs no capability (the creator was checked).
"""

from __future__ import annotations

import hashlib
import secrets

from msgspec import structs

from platform_api.auth import authz
from platform_api.core import clock, errors, uidp, validate
from platform_api.gen.records._base import Empty
from platform_api.gen.records.iam_v2 import (
    CreateGroupInviteRequest,
    DeleteGroupInviteRequest,
    GetGroupInviteRequest,
    GroupInvite,
    GroupInviteRole,
    ListGroupInvitesRequest,
    ListGroupInvitesResponse,
    Role,
)
from platform_api.iam import groups, queries, roles
from platform_api.outbox import outbox
from platform_api.service import crud, listing
from platform_api.service.context import Context, rpc
from platform_api.store import rows
from platform_api.store.db import Conn, Database

SERVICE = "chainguard.platform.iam.v2.GroupInvitesService."
RESOURCE = "chainguard.platform.iam.v2.GroupInvite"
INVITES = crud.Resource("group_invites", GroupInvite, RESOURCE, outbox.emit)
TABLE = listing.Table(
    "group_invites",
    order_keys={"uid": "uid", "created_at": "create_time", "updated_at": "update_time", "key_id": "key_id"},
    default_order="created_at desc",
)
CODE_PREFIX = "painv_"
MAX_TTL = 30 * 24 * 3600.0


def code_hash(code: str) -> str:
    return hashlib.sha256(code.encode()).hexdigest()


def _role_view(role: Role) -> GroupInviteRole:
    return GroupInviteRole(uid=role.uid, name=role.name, description=role.description, capabilities=role.capabilities)


async def hydrate(conn: Conn, stored: list[GroupInvite]) -> list[GroupInvite]:
    """Invites as the API shows them: with their role (absent if the role no longer exists)."""
    wanted = {i.role_uid for i in stored}
    found = await roles.bodies(conn, wanted)
    out = []
    for inv in stored:
        body = found.get(inv.role_uid)
        out.append(structs.replace(inv, role=_role_view(rows.decode(Role, body)) if body else None))
    return out


async def _fetch(conn: Conn, uid: str, lock: bool = False) -> GroupInvite:
    return await INVITES.get(conn, uid, lock=lock)


@rpc(SERVICE + "CreateGroupInvite")
async def create_group_invite(req: CreateGroupInviteRequest, ctx: Context) -> GroupInvite:
    given = req.group_invite or GroupInvite()
    ttl = validate.duration(given.ttl, "ttl", MAX_TTL)
    if given.email:
        validate.email(given.email)
    now = clock.now()
    code = CODE_PREFIX + secrets.token_urlsafe(32)
    stored = GroupInvite(
        uid=uidp.new_child(req.parent),
        role_uid=given.role_uid,
        email=given.email,
        expiration_time=clock.from_epoch(clock.to_epoch(now) + ttl),
        single_use=given.single_use,
        key_id=secrets.token_hex(8),
        create_time=now,
        update_time=now,
    )
    async with ctx.rt.db.transaction() as tx:
        await groups.require(tx, req.parent, "parent")
        role = await roles.usable_at(tx, stored.role_uid, req.parent)
        authz.caller(ctx).check_grantable(roles.role_mask(role), req.parent)
        await INVITES.insert(
            tx, stored, req.parent, role_uid=stored.role_uid, key_id=stored.key_id, code_hash=code_hash(code),
            email=stored.email, expire_time=stored.expiration_time, single_use=int(stored.single_use),
        )  # fmt: skip
        result = structs.replace(stored, role=_role_view(role), code=code)
        # The event carries the invite without its code.
        await outbox.emit(tx, ctx, structs.replace(result, code=""))
    return result


@rpc(SERVICE + "GetGroupInvite")
async def get_group_invite(req: GetGroupInviteRequest, ctx: Context) -> GroupInvite:
    (result,) = await hydrate(ctx.rt.db, [await _fetch(ctx.rt.db, req.uid)])
    return result


@rpc(SERVICE + "ListGroupInvites")
async def list_group_invites(req: ListGroupInvitesRequest, ctx: Context) -> ListGroupInvitesResponse:
    where = listing.filters(req, key_id="key_id")
    page = await listing.page(ctx, TABLE, where, req)
    found = await hydrate(ctx.rt.db, [rows.decode(GroupInvite, b) for b in page.bodies])
    return listing.response(ListGroupInvitesResponse, "group_invites", GroupInvite, page, found)


@rpc(SERVICE + "DeleteGroupInvite")
async def delete_group_invite(req: DeleteGroupInviteRequest, ctx: Context) -> Empty:
    async with ctx.rt.db.transaction() as tx:
        await _fetch(tx, req.uid, lock=True)
        await INVITES.delete(tx, req.uid)
        await outbox.emit(tx, ctx, req)
    return Empty()


async def delete_in_group(tx: Conn, group: str) -> None:
    await INVITES.delete_where(tx, "parent", group)


async def role_is_invited(conn: Conn, role: str) -> bool:
    return await INVITES.any_where(conn, "role_uid", role)


def invalid_code() -> errors.ApiError:
    """Unknown, expired, revoked and spent codes all look the same, so that codes cannot be probed."""
    return errors.not_found(RESOURCE, "invite code")


async def redeem(db: Database, code: str, identity_uid: str, email: str) -> tuple[str, str]:
    """Accept an invite for `identity_uid` (whose verified e-mail is `email`, '' if none): bind the invite's
    role at its group, atomically with spending a single-use invite. Returns (identity uid, group uid).

    The caller invalidates cached authorization afterwards (`access.authorizer.invalidate()`).
    """
    if not code:
        raise errors.invalid_argument("code", "code is required")
    if not code.startswith(CODE_PREFIX) or len(code) > 256:
        raise invalid_code()
    async with db.transaction() as tx:
        row = await tx.fetchrow(
            "SELECT uid, parent, role_uid, email, expire_time, single_use, used_time FROM group_invites"
            " WHERE code_hash = $1" + rows.for_update(tx),
            code_hash(code),
        )
        now = clock.now()
        if row is None or row["expire_time"] <= now or (row["single_use"] and row["used_time"]):
            raise invalid_code()
        uid, group, role_uid, bound_email = row["uid"], row["parent"], row["role_uid"], row["email"]
        if bound_email and bound_email.lower() != email.lower():
            raise errors.permission_denied("this invite is for another e-mail address")
        home = uidp.parent(identity_uid)
        if home and not uidp.is_ancestor_or_self(home, group):
            raise errors.permission_denied("this identity is confined to a group outside the invite's group")
        if not await queries.has_binding(tx, group, identity_uid, role_uid):
            await queries.insert_role_binding(tx, group, identity_uid, role_uid, now)
            if row["single_use"]:
                await tx.execute("UPDATE group_invites SET used_time = $2 WHERE uid = $1", uid, now)
    return identity_uid, group
