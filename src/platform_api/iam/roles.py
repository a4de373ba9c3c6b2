"""IAM roles: /iam/v2/roles (RolesService). Built-in roles live at the root (bare 40-hex uid, readable by
every caller, never changed through the API); custom roles live under a group and may be bound there
and below. Nobody creates or widens a role beyond the capabilities they hold at its group.
"""

from __future__ import annotations

from collections.abc import Collection

from platform_api.auth import authz
from platform_api.auth import capabilities as caps
from platform_api.core import clock, errors, uidp, validate
from platform_api.gen.records._base import Empty
from platform_api.gen.records.iam_v2 import (
    CreateRoleRequest,
    DeleteRoleRequest,
    GetRoleRequest,
    ListRolesRequest,
    ListRolesResponse,
    Role,
    UpdateRoleRequest,
)
from platform_api.iam import groups
from platform_api.outbox import outbox
from platform_api.service import crud, listing
from platform_api.service.cascade import Cascades
from platform_api.service.context import Context, rpc
from platform_api.store import rows
from platform_api.store.db import Conn

SERVICE = "chainguard.platform.iam.v2.RolesService."
RESOURCE = "chainguard.platform.iam.v2.Role"
NAMES = crud.UniqueName("roles", RESOURCE, "a role", "in this group")
ROLES = crud.Resource("roles", Role, RESOURCE, outbox.emit, NAMES)
TABLE = listing.Table("roles", public_root_rows=True)
UPDATABLE = frozenset({"name", "description", "capabilities"})


async def seed_builtin(db: Conn) -> None:
    """Create or refresh the built-in roles (their capability sets follow the code)."""
    now = clock.now()
    for b in caps.BUILTIN_ROLES:
        names = caps.names(b.capabilities)
        role = Role(uid=b.uid, name=b.name, description=b.description, capabilities=list(names),
                    create_time=now, update_time=now)  # fmt: skip
        row = await db.fetchrow("SELECT capabilities, body FROM roles WHERE uid = $1", b.uid)
        if row is None:
            # Any conflict: workers starting together on a new database insert the same rows, and PostgreSQL
            # may report the clash on (parent, name) rather than on uid.
            await db.execute(
                "INSERT INTO roles (uid, parent, name, create_time, update_time, body, capabilities)"
                " VALUES ($1, '', $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING",
                b.uid, b.name, now, now, rows.body(role), ",".join(names),
            )  # fmt: skip
        elif row["capabilities"] != ",".join(names):
            stored = rows.decode(Role, row["body"])
            role.create_time = stored.create_time
            await db.execute(
                "UPDATE roles SET capabilities = $2, update_time = $3, body = $4 WHERE uid = $1",
                b.uid, ",".join(names), now, rows.body(role),
            )  # fmt: skip


async def bodies(conn: Conn, uids: set[str]) -> dict[str, str]:
    """uid -> stored body of the roles among `uids` that exist."""
    return await rows.bodies(conn, "roles", uids)


async def capabilities_of(conn: Conn, uids: Collection[str]) -> dict[str, str]:
    """Each of the roles' comma-separated capability names (roles that do not exist are left out)."""
    found = await conn.fetch("SELECT uid, capabilities FROM roles WHERE uid = ANY($1)", sorted(uids))
    return {r["uid"]: r["capabilities"] for r in found}


async def held_through(conn: Conn, pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """(group, capability names) of (group, role uid) pairs (role bindings, group mappings)."""
    names = await capabilities_of(conn, {role for _, role in pairs})
    return [(group, names[role]) for group, role in pairs if role in names]


async def fetch(conn: Conn, uid: str, lock: bool = False) -> Role:
    return await ROLES.get(conn, uid, lock=lock)


def role_mask(role: Role) -> int:
    return caps.mask(role.capabilities)


async def usable_at(conn: Conn, role_uid: str, group: str, field: str = "role_uid") -> Role:
    """The role, if it may be bound at `group`: built-in, or a custom role of that group or an ancestor."""
    if not role_uid:
        raise errors.invalid_argument(field, f"{field} is required")
    validate.uid(role_uid, field)
    body = await conn.fetchval("SELECT body FROM roles WHERE uid = $1", role_uid)
    parent = uidp.parent(role_uid)
    if body is None or (parent and not uidp.is_ancestor_or_self(parent, group)):
        raise errors.not_found(RESOURCE, role_uid)
    return rows.decode(Role, body)


async def named(conn: Conn, group: str, name: str) -> Role | None:
    """The custom role of `group` called `name`, if there is one."""
    body = await conn.fetchval("SELECT body FROM roles WHERE parent = $1 AND name = $2", group, name)
    return None if body is None else rows.decode(Role, body)


def check(role: Role) -> None:
    validate.name(role.name)
    validate.description(role.description)
    if not role.capabilities:
        raise errors.invalid_argument("capabilities", "a role needs at least one capability")
    if "UNKNOWN" in role.capabilities:
        raise errors.invalid_argument("capabilities", "UNKNOWN is not a capability")
    internal = sorted(caps.INTERNAL_ONLY.intersection(role.capabilities))
    if internal and "CAP_INTERNAL" not in role.capabilities:
        # Internal capabilities are the operator's own: a role holding them must say so by holding CAP_INTERNAL.
        raise errors.invalid_argument(
            "capabilities", f"{', '.join(internal)} are internal-only: a role holding them must also hold CAP_INTERNAL"
        )


@rpc(SERVICE + "CreateRole")
async def create_role(req: CreateRoleRequest, ctx: Context) -> Role:
    given = req.role or Role()
    now = clock.now()
    role = Role(
        uid=uidp.new_child(req.parent),
        name=given.name,
        description=given.description,
        capabilities=caps.canonical(given.capabilities),
        create_time=now,
        update_time=now,
    )
    check(role)
    authz.caller(ctx).check_grantable(role_mask(role), req.parent)
    async with ctx.rt.db.transaction() as tx:
        await groups.require(tx, req.parent, "parent")
        await ROLES.insert(tx, role, req.parent, name=role.name, capabilities=",".join(role.capabilities))
        await outbox.emit(tx, ctx, role)
    return role


@rpc(SERVICE + "GetRole")
async def get_role(req: GetRoleRequest, ctx: Context) -> Role:
    validate.uid(req.uid)
    parent = uidp.parent(req.uid)
    # Built-in roles are public facts; a custom role is visible where its group's roles may be listed.
    if parent:
        authz.caller(ctx).require(ctx.required, parent, RESOURCE, req.uid)
    return await fetch(ctx.rt.db, req.uid)


@rpc(SERVICE + "ListRoles")
async def list_roles(req: ListRolesRequest, ctx: Context) -> ListRolesResponse:
    where = listing.filters(req, name="name")
    return await listing.answer(ctx, TABLE, where, req, ListRolesResponse, "roles", Role)


@rpc(SERVICE + "UpdateRole")
async def update_role(req: UpdateRoleRequest, ctx: Context) -> Role:

    def checked(role: Role) -> None:
        role.capabilities = caps.canonical(role.capabilities)
        check(role)

    async def grantable(tx: Conn, current: Role, role: Role) -> None:
        authz.caller(ctx).check_grantable(role_mask(role) & ~role_mask(current), uidp.parent(role.uid))

    role = await ROLES.update_rpc(
        ctx, req.role or Role(), req.update_mask, UPDATABLE, check=checked, before=grantable, check_name=False,
        columns=lambda r: {"name": r.name, "capabilities": ",".join(r.capabilities)},
    )  # fmt: skip
    ctx.rt.grants_changed()
    return role


async def any_in_group(conn: Conn, group: str) -> bool:
    return await ROLES.any_where(conn, "parent", group)


@rpc(SERVICE + "DeleteRole")
async def delete_role(req: DeleteRoleRequest, ctx: Context) -> Empty:
    """Refused while anything still names the role (bindings, invites, mappings, providers' default role:
    service.cascade)."""
    async with ctx.rt.db.transaction() as tx:
        await fetch(tx, req.uid, lock=True)
        users = await ctx.rt.part(Cascades).blocking(tx, "role", req.uid)
        if users:
            raise errors.failed_precondition(
                "RESOURCE_IN_USE", f"cannot delete a role that is still bound ({users[0]})", subject=req.uid
            )
        await ROLES.delete(tx, req.uid)
        await outbox.emit(tx, ctx, req)
    ctx.rt.grants_changed()
    return Empty()
