"""/iam/v1/group_invites (chainguard.platform.iam.GroupInvites) over iam/group_invites.py.

`id` for `uid`, `role` (the role's id) for `roleUid` on create, `expiration` for `expirationTime`,
`createdAt` for `createTime`; the invite's role is the v1 Role, its capabilities by their friendly names.
The invite code is answered once, by Create, as v2 does; List (StoredGroupInvite) has no code. The List
filter's `group` lists the invites of that group (`uidp.children_of`), `id` one invite, `keyId` v2's key filter.

`CreateWithGroup` stays unserved: it has no HTTP binding and no documented behaviour in the contract or the
reference beyond its name and annotations (an unscoped create that would also make the group); v2 has no such
operation to adapt, and guessing one would be a second copy of the group and invite rules.
"""

from __future__ import annotations

from platform_api.auth import capabilities
from platform_api.gen.records import iam_v2 as v2
from platform_api.gen.records._base import Empty
from platform_api.gen.records.common import UIDPFilter
from platform_api.gen.records.iam import (
    DeleteGroupInviteRequest,
    GroupInvite,
    GroupInviteFilter,
    GroupInviteList,
    GroupInviteRequest,
    Role,
    StoredGroupInvite,
)
from platform_api.iam import group_invites
from platform_api.service import v1
from platform_api.service.context import Context, rpc

SERVICE = "chainguard.platform.iam.GroupInvites."
NAMES = {"id": "uid", "expiration": "expiration_time", "created_at": "create_time"}


def role_of(role: v2.GroupInviteRole | None) -> Role | None:
    if role is None:
        return None
    names = [capabilities.FRIENDLY.get(c, c) for c in role.capabilities]
    return Role(id=role.uid, name=role.name, description=role.description, capabilities=names)


def stored(inv: v2.GroupInvite) -> StoredGroupInvite:
    return v1.convert(inv, StoredGroupInvite, NAMES, role=role_of(inv.role))


@rpc(SERVICE + "Create")
async def create(req: GroupInviteRequest, ctx: Context) -> GroupInvite:
    given = v2.GroupInvite(role_uid=req.role, email=req.email, ttl=req.ttl, single_use=req.single_use)
    ask = v2.CreateGroupInviteRequest(parent=req.group, group_invite=given)
    made = await v1.call(ctx, group_invites.create_group_invite, ask)
    # The one answer that carries the code, as v2's CreateGroupInvite.
    return v1.convert(made, GroupInvite, NAMES, role=role_of(made.role))


@rpc(SERVICE + "List")
async def list_(req: GroupInviteFilter, ctx: Context) -> GroupInviteList:
    uidp = UIDPFilter(children_of=req.group) if req.group else None
    ask = v2.ListGroupInvitesRequest(uidp=v1.uidp_of(uidp, req.id), key_id=req.key_id)
    return GroupInviteList(items=await v1.every(ctx, group_invites.list_group_invites, ask, "group_invites", stored))


@rpc(SERVICE + "Delete")
async def delete(req: DeleteGroupInviteRequest, ctx: Context) -> Empty:
    return await v1.call(ctx, group_invites.delete_group_invite, v2.DeleteGroupInviteRequest(uid=req.id))
