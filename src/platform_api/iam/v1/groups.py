"""/iam/v1/groups (chainguard.platform.iam.Groups) over iam/groups.py (its joining calls are
signin/v1/joining.py's): `id` for `uid`; the v1-only facts (`resourceLimits`, `verified`, `kind`, `status`) are
not kept here and answer their zero values, and a limit sent is refused rather than dropped."""

from __future__ import annotations

from platform_api.core import errors
from platform_api.gen.records import iam_v2 as v2
from platform_api.gen.records._base import Empty
from platform_api.gen.records.iam import (
    CreateGroupRequest,
    DeleteGroupRequest,
    Group,
    GroupFilter,
    GroupList,
)
from platform_api.iam import groups
from platform_api.service import v1
from platform_api.service.context import Context, rpc

SERVICE = "chainguard.platform.iam.Groups."
ID = {"id": "uid"}


def to_v1(group: v2.Group) -> Group:
    return v1.convert(group, Group, ID)


def _v2(group: Group) -> v2.Group:
    if group.resource_limits:
        raise errors.invalid_argument("group.resource_limits", "resource limits are not kept by this service")
    return v1.convert(group, v2.Group, {"uid": "id"})


@rpc(SERVICE + "Create")
async def create(req: CreateGroupRequest, ctx: Context) -> Group:
    made = await v1.call(
        ctx, groups.create_group, v2.CreateGroupRequest(parent=req.parent, group=_v2(req.group or Group()))
    )
    return to_v1(made)


@rpc(SERVICE + "Update")
async def update(req: Group, ctx: Context) -> Group:
    mask = v1.full_mask(groups.UPDATABLE)
    done = await v1.call(ctx, groups.update_group, v2.UpdateGroupRequest(group=_v2(req), update_mask=mask))
    return to_v1(done)


@rpc(SERVICE + "List")
async def list_(req: GroupFilter, ctx: Context) -> GroupList:
    ask = v2.ListGroupsRequest(uidp=v1.uidp_of(req.uidp, req.id), name=req.name)
    return GroupList(items=await v1.every(ctx, groups.list_groups, ask, "groups", to_v1))


@rpc(SERVICE + "Delete")
async def delete(req: DeleteGroupRequest, ctx: Context) -> Empty:
    return await v1.call(ctx, groups.delete_group, v2.DeleteGroupRequest(uid=req.id))
