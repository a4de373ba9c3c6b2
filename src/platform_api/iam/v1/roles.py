"""/iam/v1/roles (chainguard.platform.iam.Roles) over iam/roles.py: `id` for `uid`, `parentId` for the
parent. v1 names capabilities by their friendly names (`repo.list`, as tokens and chainctl do) where v2 names
the enum (`CAP_REPO_LIST`): answers carry friendly names; a write takes either, and an unknown name is refused
(INVALID_ARGUMENT naming `capabilities`) rather than dropped. List shows the built-in roles exactly as the v2
List does. The filter's `parent` is `uidp.childrenOf`."""

from __future__ import annotations

import msgspec

from platform_api.auth import capabilities as caps
from platform_api.core import errors
from platform_api.gen.records import iam_v2 as v2
from platform_api.gen.records._base import Empty
from platform_api.gen.records.common import UIDPFilter
from platform_api.gen.records.iam import CreateRoleRequest, DeleteRoleRequest, Role, RoleFilter, RoleList
from platform_api.iam import roles
from platform_api.service import v1
from platform_api.service.context import Context, rpc

SERVICE = "chainguard.platform.iam.Roles."


def friendly(names: list[str]) -> list[str]:
    return [caps.FRIENDLY.get(n, n) for n in names]


def to_v1(role: v2.Role) -> Role:
    return v1.convert(role, Role, {"id": "uid"}, capabilities=friendly(list(role.capabilities)))


def _v2(role: Role, field: str) -> v2.Role:
    unknown = caps.unknown(role.capabilities)
    if unknown:
        raise errors.invalid_argument(f"{field}capabilities", f"unknown capabilities: {', '.join(unknown[:5])}")
    # Enum names for v2 (it canonicalizes and checks the set itself).
    names = [caps.BY_FRIENDLY.get(n, n) for n in role.capabilities]
    return v1.convert(role, v2.Role, {"uid": "id"}, capabilities=names)


@rpc(SERVICE + "Create")
async def create(req: CreateRoleRequest, ctx: Context) -> Role:
    ask = v2.CreateRoleRequest(parent=req.parent_id, role=_v2(req.role or Role(), "role."))
    return to_v1(await v1.call(ctx, roles.create_role, ask))


@rpc(SERVICE + "Update")
async def update(req: Role, ctx: Context) -> Role:
    ask = v2.UpdateRoleRequest(role=_v2(req, ""), update_mask=v1.full_mask(roles.UPDATABLE))
    return to_v1(await v1.call(ctx, roles.update_role, ask))


def _uidp(req: RoleFilter) -> UIDPFilter | None:
    found = v1.uidp_of(req.uidp, req.id)
    if not req.parent:
        return found
    base = found or UIDPFilter()
    if base.children_of and base.children_of != req.parent:
        raise errors.invalid_argument("parent", "parent and uidp.children_of name different groups")
    return msgspec.structs.replace(base, children_of=req.parent)


@rpc(SERVICE + "List")
async def list_(req: RoleFilter, ctx: Context) -> RoleList:
    ask = v2.ListRolesRequest(uidp=_uidp(req), name=req.name)
    return RoleList(items=await v1.every(ctx, roles.list_roles, ask, "roles", to_v1))


@rpc(SERVICE + "Delete")
async def delete(req: DeleteRoleRequest, ctx: Context) -> Empty:
    return await v1.call(ctx, roles.delete_role, v2.DeleteRoleRequest(uid=req.id))
