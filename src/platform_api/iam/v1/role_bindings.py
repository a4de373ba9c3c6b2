"""/iam/v1/rolebindings (chainguard.platform.iam.RoleBindings) over iam/role_bindings.py: a v1 binding names
its identity, group and role by id (`identity`, `group`, `role`) where v2 takes `identityUid`/`roleUid` and
answers them hydrated. The group of a binding is its parent: a `group` sent that is not the parent (Create,
CreateBatch) or not the binding's group (Update, which cannot move a binding) is refused, INVALID_ARGUMENT.

CreateBatch (`POST /iam/v1/rolebindings/batch/<parent>`, the body a JSON array of bindings) is v2's
BatchCreateRoleBindings (all or none, at most 25). List answers the v1 `Binding` view from v2's hydrated one:
the group's `id`/`name`/`description`, the role's `id`/`name`/`description` and its `capabilities` (friendly
names, read through v2's ListRoles, so only where the caller may list that role: a built-in role always),
the identity's e-mail and claim-match issuer and subject where v2 shows them; `emailUnverified` is not kept
(zero value). Delete is v2's (idempotent: deleting a binding already gone answers `{}`)."""

from __future__ import annotations

from platform_api.core import errors, uidp
from platform_api.gen.records import iam_v2 as v2
from platform_api.gen.records._base import Empty
from platform_api.gen.records.common import UIDPFilter
from platform_api.gen.records.iam import (
    CreateRoleBindingBatchRequest,
    CreateRoleBindingRequest,
    DeleteRoleBindingRequest,
    Group,
    Role,
    RoleBinding,
    RoleBindingBatch,
    RoleBindingFilter,
    RoleBindingList,
    RoleBindingList_Binding,
)
from platform_api.iam import role_bindings, roles
from platform_api.iam.v1 import roles as v1_roles
from platform_api.service import v1
from platform_api.service.context import Context, rpc

SERVICE = "chainguard.platform.iam.RoleBindings."
CHUNK = 1000  # uidp.ids per ListRoles call (the List input limit)


def to_v1(rb: v2.RoleBinding) -> RoleBinding:
    return RoleBinding(
        id=rb.uid,
        identity=rb.identity.uid if rb.identity else rb.identity_uid,
        group=rb.group.uid if rb.group else uidp.parent(rb.uid),
        role=rb.role.uid if rb.role else rb.role_uid,
    )


def _v2(rb: RoleBinding, group: str, field: str) -> v2.RoleBinding:
    if rb.group and rb.group != group:
        raise errors.invalid_argument(f"{field}group", f"a binding's group is {group or 'its parent'}")
    return v2.RoleBinding(uid=rb.id, identity_uid=rb.identity, role_uid=rb.role)


async def _capabilities(ctx: Context, found: list[v2.RoleBinding]) -> dict[str, list[str]]:
    """Role uid -> friendly capability names, of the bound roles the caller may list (v2's ListRoles)."""
    uids = sorted({rb.role.uid for rb in found if rb.role and rb.role.uid})
    out: dict[str, list[str]] = {}
    for i in range(0, len(uids), CHUNK):
        ask = v2.ListRolesRequest(uidp=UIDPFilter(ids=uids[i : i + CHUNK]))
        for role in await v1.every(ctx, roles.list_roles, ask, "roles"):
            out[role.uid] = v1_roles.friendly(list(role.capabilities))
    return out


def _listed(rb: v2.RoleBinding, capabilities: dict[str, list[str]]) -> RoleBindingList_Binding:
    ident = rb.identity or v2.RoleBindingIdentity()
    g, r = rb.group or v2.RoleBindingGroup(), rb.role or v2.RoleBindingRole()
    return RoleBindingList_Binding(
        id=rb.uid,
        group=Group(id=g.uid, name=g.name, description=g.description),
        identity=ident.uid,
        role=Role(id=r.uid, name=r.name, description=r.description, capabilities=capabilities.get(r.uid, [])),
        email=ident.email,
        claim_match_issuer=ident.issuer,
        claim_match_subject=ident.subject,
        created_at=rb.create_time,
    )


@rpc(SERVICE + "Create")
async def create(req: CreateRoleBindingRequest, ctx: Context) -> RoleBinding:
    rb = _v2(req.role_binding or RoleBinding(), req.parent, "role_binding.")
    rb.uid = ""  # assigned by the service, as in v2
    made = await v1.call(
        ctx, role_bindings.create_role_binding, v2.CreateRoleBindingRequest(parent=req.parent, role_binding=rb)
    )
    return to_v1(made)


@rpc(SERVICE + "CreateBatch")
async def create_batch(req: CreateRoleBindingBatchRequest, ctx: Context) -> RoleBindingBatch:
    asks = []
    for i, given in enumerate(req.role_bindings):
        rb = _v2(given, req.parent, f"role_bindings[{i}].")
        rb.uid = ""
        asks.append(v2.CreateRoleBindingRequest(parent=req.parent, role_binding=rb))
    made = await v1.call(
        ctx,
        role_bindings.batch_create_role_bindings,
        v2.BatchCreateRoleBindingsRequest(parent=req.parent, requests=asks),
    )
    return RoleBindingBatch(role_bindings=[to_v1(rb) for rb in made.role_bindings])


@rpc(SERVICE + "Update")
async def update(req: RoleBinding, ctx: Context) -> RoleBinding:
    rb = _v2(req, uidp.parent(req.id), "")
    ask = v2.UpdateRoleBindingRequest(role_binding=rb, update_mask=v1.full_mask(role_bindings.UPDATABLE))
    return to_v1(await v1.call(ctx, role_bindings.update_role_binding, ask))


@rpc(SERVICE + "List")
async def list_(req: RoleBindingFilter, ctx: Context) -> RoleBindingList:
    ask = v2.ListRoleBindingsRequest(uidp=v1.uidp_of(req.uidp, req.id))
    found = await v1.every(ctx, role_bindings.list_role_bindings, ask, "role_bindings")
    capabilities = await _capabilities(ctx, found)
    return RoleBindingList(items=[_listed(rb, capabilities) for rb in found])


@rpc(SERVICE + "Delete")
async def delete(req: DeleteRoleBindingRequest, ctx: Context) -> Empty:
    return await v1.call(ctx, role_bindings.delete_role_binding, v2.DeleteRoleBindingRequest(uid=req.id))
