"""IAM role bindings: /iam/v2/roleBindings (RoleBindingsService). A binding grants a role to an identity
at a group and everything below it, effective on the next request.

Responses are hydrated with the identity, group and role. Nobody binds a role carrying capabilities
they do not hold at that group; an identity confined to a group is bound only inside it; a custom role
is bound only at its group or below.
"""

from __future__ import annotations

from typing import Any

from platform_api.auth import authz
from platform_api.auth import capabilities as caps
from platform_api.core import clock, errors, fieldmask, uidp, validate
from platform_api.gen.records._base import Empty
from platform_api.gen.records.iam_v2 import (
    BatchCreateRoleBindingsRequest,
    BatchCreateRoleBindingsResponse,
    CreateRoleBindingRequest,
    DeleteRoleBindingRequest,
    GetRoleBindingRequest,
    Group,
    Identity,
    ListRoleBindingsRequest,
    ListRoleBindingsResponse,
    Role,
    RoleBinding,
    RoleBindingGroup,
    RoleBindingIdentity,
    RoleBindingRole,
    UpdateRoleBindingRequest,
)
from platform_api.iam import groups, identities, queries, roles
from platform_api.outbox import outbox
from platform_api.service import listing
from platform_api.service.context import Context, rpc
from platform_api.store import rows
from platform_api.store.db import Conn

SERVICE = "chainguard.platform.iam.v2.RoleBindingsService."
RESOURCE = "chainguard.platform.iam.v2.RoleBinding"
TABLE = queries.ROLE_BINDINGS_TABLE
UPDATABLE = frozenset({"identity_uid", "role_uid"})
MAX_BATCH = 25


async def _identity_bindable(conn: Conn, ctx: Context, identity_uid: str, group: str) -> None:
    """The identity may be named in a binding at `group` by this caller. Whatever is out of the caller's
    reach answers exactly like an identity that does not exist: its existence is not ours to tell."""
    if not identity_uid:
        raise errors.invalid_argument("identity_uid", "identity_uid is required")
    validate.uid(identity_uid, "identity_uid")
    home = uidp.parent(identity_uid)
    if not home:
        # A user identity (root-level uid) may be bound before its first login (its uid comes from
        # lookupIdentity): bindings wait for it. A caller confined to a group reaches nothing outside it,
        # users included, registered or not.
        if uidp.parent(ctx.subject):
            raise errors.not_found(identities.RESOURCE, identity_uid)
        return
    if (
        not uidp.is_ancestor_or_self(home, group)
        or not authz.caller(ctx).held_at(identity_uid)
        or not await identities.exists(conn, identity_uid)
    ):
        raise errors.not_found(identities.RESOURCE, identity_uid)


async def _checked(tx: Conn, ctx: Context, group: str, identity_uid: str, role_uid: str) -> None:
    await _identity_bindable(tx, ctx, identity_uid, group)
    role = await roles.usable_at(tx, role_uid, group)
    authz.caller(ctx).check_grantable(roles.role_mask(role), group)


_SEE_IDENTITY = caps.mask(["CAP_IAM_IDENTITY_LIST"])


def _known(ctx: Context, identity: Identity, binding: RoleBinding) -> bool:
    if identity.uid == ctx.subject:
        return True
    if uidp.parent(identity.uid):
        return authz.caller(ctx).holds(_SEE_IDENTITY, identity.uid)
    # Logged in since it was bound (or the binding last changed): the user has come to use it.
    since = binding.update_time or binding.create_time
    return bool(since) and (identity.last_seen_time or "") >= (since or "")


async def hydrate(conn: Conn, ctx: Context, stored: list[RoleBinding]) -> list[RoleBinding]:
    """Bindings as the API shows them: identity, group and role objects instead of input-only uids.

    The identity's details (name, e-mail, issuer, subject) only where the caller may know them: its own; an
    identity living under a group, where the caller may read it (GetIdentity's capability at its uid); a
    user identity (root-level), once it has logged in while holding the binding. A user may be bound by
    uid before it registers (lookupIdentity), so binding a uid answers the same whether that user exists or
    not, and shows nobody's name or e-mail to whoever merely knows the uid."""
    if not stored:
        return []

    ids = await identities.bodies(conn, {b.identity_uid for b in stored})
    grps = await groups.bodies(conn, {uidp.parent(b.uid) for b in stored})
    rls = await roles.bodies(conn, {b.role_uid for b in stored})
    out = []
    for b in stored:
        ident = ids.get(b.identity_uid)
        grp = grps.get(uidp.parent(b.uid))
        role = rls.get(b.role_uid)
        view: dict[str, Any] = {"uid": b.identity_uid}
        if ident:
            identity = rows.decode(Identity, ident)
            if _known(ctx, identity, b):
                view = identities.binding_view(identity)
        g = rows.decode(Group, grp) if grp else Group(uid=uidp.parent(b.uid))
        r = rows.decode(Role, role) if role else Role(uid=b.role_uid)
        out.append(
            RoleBinding(
                uid=b.uid,
                identity=RoleBindingIdentity(**view),
                group=RoleBindingGroup(uid=g.uid, name=g.name, description=g.description),
                role=RoleBindingRole(uid=r.uid, name=r.name, description=r.description),
                create_time=b.create_time,
                update_time=b.update_time,
            )
        )
    return out


async def _fetch(conn: Conn, uid: str, lock: bool = False) -> RoleBinding:
    return await queries.ROLE_BINDINGS.get(conn, uid, lock=lock)


@rpc(SERVICE + "CreateRoleBinding")
async def create_role_binding(req: CreateRoleBindingRequest, ctx: Context) -> RoleBinding:
    given = req.role_binding or RoleBinding()
    async with ctx.rt.db.transaction() as tx:
        await groups.require(tx, req.parent, "parent")
        await _checked(tx, ctx, req.parent, given.identity_uid, given.role_uid)
        rb = await queries.insert_role_binding(tx, req.parent, given.identity_uid, given.role_uid, clock.now())
        (result,) = await hydrate(tx, ctx, [rb])
        await outbox.emit(tx, ctx, result)
    ctx.rt.grants_changed()
    return result


@rpc(SERVICE + "BatchCreateRoleBindings")
async def batch_create_role_bindings(
    req: BatchCreateRoleBindingsRequest, ctx: Context
) -> BatchCreateRoleBindingsResponse:
    if not 1 <= len(req.requests) <= MAX_BATCH:
        raise errors.invalid_argument("requests", f"between 1 and {MAX_BATCH} requests are required")
    wanted: list[tuple[str, str]] = []
    for i, sub in enumerate(req.requests):
        if sub.parent and sub.parent != req.parent:
            raise errors.invalid_argument(f"requests[{i}].parent", "every request must have the batch's parent")
        rb = sub.role_binding or RoleBinding()
        role_uid = rb.role_uid or req.role_uid
        if req.role_uid and rb.role_uid and rb.role_uid != req.role_uid:
            raise errors.invalid_argument(f"requests[{i}].role_binding.role_uid", "differs from the batch's role_uid")
        wanted.append((rb.identity_uid, role_uid))
    now = clock.now()
    async with ctx.rt.db.transaction() as tx:
        await groups.require(tx, req.parent, "parent")
        created = []
        for identity_uid, role_uid in wanted:
            await _checked(tx, ctx, req.parent, identity_uid, role_uid)
            created.append(await queries.insert_role_binding(tx, req.parent, identity_uid, role_uid, now))
        result = BatchCreateRoleBindingsResponse(role_bindings=await hydrate(tx, ctx, created))
        await outbox.emit(tx, ctx, result, subject=req.parent)
    ctx.rt.grants_changed()
    return result


@rpc(SERVICE + "GetRoleBinding")
async def get_role_binding(req: GetRoleBindingRequest, ctx: Context) -> RoleBinding:
    (result,) = await hydrate(ctx.rt.db, ctx, [await _fetch(ctx.rt.db, req.uid)])
    return result


@rpc(SERVICE + "ListRoleBindings")
async def list_role_bindings(req: ListRoleBindingsRequest, ctx: Context) -> ListRoleBindingsResponse:
    where = listing.filters(req, identity="identity_uid", group="parent", role="role_uid")
    page = await listing.page(ctx, TABLE, where, req)
    found = await hydrate(ctx.rt.db, ctx, [rows.decode(RoleBinding, b) for b in page.bodies])
    return listing.response(ListRoleBindingsResponse, "role_bindings", RoleBinding, page, found)


@rpc(SERVICE + "UpdateRoleBinding")
async def update_role_binding(req: UpdateRoleBindingRequest, ctx: Context) -> RoleBinding:
    patch = req.role_binding or RoleBinding()
    async with ctx.rt.db.transaction() as tx:
        current = await _fetch(tx, patch.uid, lock=True)
        rb = fieldmask.apply(current, patch, req.update_mask, UPDATABLE)
        if (rb.identity_uid, rb.role_uid) != (current.identity_uid, current.role_uid):
            group = uidp.parent(rb.uid)
            await _checked(tx, ctx, group, rb.identity_uid, rb.role_uid)
            rb.update_time = clock.now()
            await queries.update_role_binding(tx, rb)
        (result,) = await hydrate(tx, ctx, [rb])
        if rb != current:
            await outbox.emit(tx, ctx, result)
    ctx.rt.grants_changed()
    return result


@rpc(SERVICE + "DeleteRoleBinding")
async def delete_role_binding(req: DeleteRoleBindingRequest, ctx: Context) -> Empty:
    # Idempotent (AIP-135): deleting a binding that is already gone succeeds.
    await queries.ROLE_BINDINGS.delete_rpc(ctx, req, missing_ok=True)
    ctx.rt.grants_changed()
    return Empty()
