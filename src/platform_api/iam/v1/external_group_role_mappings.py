"""/iam/v1/externalGroupRoleMappings (chainguard.platform.iam.ExternalGroupRoleMappings) over
iam/external_group_role_mappings.py.

`id` for `uid`, `identityProviderUidp` for `identityProviderUid`, `roleUidp` for `roleUid`, `createdAt` for
`createTime`; Create's `parentId` and BatchDelete's `parentId`/`ids` for v2's `parent`/`names`, its answer's
`items` for `externalGroupRoleMappings`. Get takes `uid` as the contract has it. On Create the mapping's
`id`, `identityProviderUidp` and `createdAt` are output only (the provider is `parentId`), as in v2.
"""

from __future__ import annotations

from platform_api.gen.records import iam_v2 as v2
from platform_api.gen.records._base import Empty
from platform_api.gen.records.iam import (
    BatchDeleteExternalGroupRoleMappingsRequest,
    BatchDeleteExternalGroupRoleMappingsResponse,
    CreateExternalGroupRoleMappingRequest,
    DeleteExternalGroupRoleMappingRequest,
    ExternalGroupRoleMapping,
    ExternalGroupRoleMappingFilter,
    ExternalGroupRoleMappingList,
    GetExternalGroupRoleMappingRequest,
)
from platform_api.iam import external_group_role_mappings
from platform_api.service import v1
from platform_api.service.context import Context, rpc

SERVICE = "chainguard.platform.iam.ExternalGroupRoleMappings."
NAMES = {"id": "uid", "identity_provider_uidp": "identity_provider_uid", "role_uidp": "role_uid",
         "created_at": "create_time"}  # fmt: skip


def to_v1(m: v2.ExternalGroupRoleMapping) -> ExternalGroupRoleMapping:
    return v1.convert(m, ExternalGroupRoleMapping, NAMES)


@rpc(SERVICE + "Create")
async def create(req: CreateExternalGroupRoleMappingRequest, ctx: Context) -> ExternalGroupRoleMapping:
    given = req.mapping or ExternalGroupRoleMapping()
    mapping = v2.ExternalGroupRoleMapping(
        external_group_id=given.external_group_id, role_uid=given.role_uidp, scope=given.scope
    )
    ask = v2.CreateExternalGroupRoleMappingRequest(parent=req.parent_id, external_group_role_mapping=mapping)
    return to_v1(await v1.call(ctx, external_group_role_mappings.create_external_group_role_mapping, ask))


@rpc(SERVICE + "Get")
async def get(req: GetExternalGroupRoleMappingRequest, ctx: Context) -> ExternalGroupRoleMapping:
    ask = v2.GetExternalGroupRoleMappingRequest(uid=req.uid)
    return to_v1(await v1.call(ctx, external_group_role_mappings.get_external_group_role_mapping, ask))


@rpc(SERVICE + "List")
async def list_(req: ExternalGroupRoleMappingFilter, ctx: Context) -> ExternalGroupRoleMappingList:
    ask = v2.ListExternalGroupRoleMappingsRequest(uidp=req.uidp, identity_provider_uid=req.identity_provider_uidp)
    found = await v1.every(
        ctx, external_group_role_mappings.list_external_group_role_mappings, ask, "external_group_role_mappings", to_v1
    )
    return ExternalGroupRoleMappingList(items=found)


@rpc(SERVICE + "Delete")
async def delete(req: DeleteExternalGroupRoleMappingRequest, ctx: Context) -> Empty:
    ask = v2.DeleteExternalGroupRoleMappingRequest(uid=req.id)
    return await v1.call(ctx, external_group_role_mappings.delete_external_group_role_mapping, ask)


@rpc(SERVICE + "BatchDelete")
async def batch_delete(
    req: BatchDeleteExternalGroupRoleMappingsRequest, ctx: Context
) -> BatchDeleteExternalGroupRoleMappingsResponse:
    ask = v2.BatchDeleteExternalGroupRoleMappingsRequest(parent=req.parent_id, names=req.ids)
    done = await v1.call(ctx, external_group_role_mappings.batch_delete_external_group_role_mappings, ask)
    items = [to_v1(m) for m in done.external_group_role_mappings]
    return BatchDeleteExternalGroupRoleMappingsResponse(parent_id=done.parent, items=items)
