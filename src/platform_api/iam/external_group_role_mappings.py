"""IAM external group role mappings: /iam/v2/externalGroupRoleMappings (ExternalGroupRoleMappingsService).

A mapping lives under an identity provider and says: a user logging in through that provider whose token
carries the external group `externalGroupId` (in the provider's groups claim) receives `roleUid` at
`scope` for that session. `scope` is the provider's group or a group below it. Mappings are immutable
(delete and recreate), unique on (provider, external group, role, scope), and nobody maps a role carrying
capabilities they do not hold at its scope.
"""

from __future__ import annotations

from platform_api.auth import authz
from platform_api.core import clock, errors, uidp, validate
from platform_api.gen.records._base import Empty
from platform_api.gen.records.iam_v2 import (
    BatchDeleteExternalGroupRoleMappingsRequest,
    BatchDeleteExternalGroupRoleMappingsResponse,
    CreateExternalGroupRoleMappingRequest,
    DeleteExternalGroupRoleMappingRequest,
    ExternalGroupRoleMapping,
    GetExternalGroupRoleMappingRequest,
    ListExternalGroupRoleMappingsRequest,
    ListExternalGroupRoleMappingsResponse,
)
from platform_api.iam import groups, identity_providers, queries, roles
from platform_api.outbox import outbox
from platform_api.service import listing
from platform_api.service.context import Context, rpc
from platform_api.store.db import Conn

SERVICE = "chainguard.platform.iam.v2.ExternalGroupRoleMappingsService."
RESOURCE = "chainguard.platform.iam.v2.ExternalGroupRoleMapping"
TABLE = queries.MAPPINGS_TABLE
MAX_BATCH = 1000


async def grants_for(conn: Conn, idp_uid: str, external_groups: list[str]) -> list[tuple[str, str]]:
    """(scope group uid, role uid) for every mapping of the provider naming one of `external_groups`."""
    return await queries.mapping_grants(conn, idp_uid, external_groups)


async def _fetch(conn: Conn, uid: str) -> ExternalGroupRoleMapping:
    return await queries.MAPPINGS.get(conn, uid)


@rpc(SERVICE + "CreateExternalGroupRoleMapping")
async def create_external_group_role_mapping(
    req: CreateExternalGroupRoleMappingRequest, ctx: Context
) -> ExternalGroupRoleMapping:
    given = req.external_group_role_mapping or ExternalGroupRoleMapping()
    validate.text(given.external_group_id, "external_group_id", required=True, limit=1024)
    if not given.scope:
        raise errors.invalid_argument("scope", "scope is required")
    validate.uid(given.scope, "scope")
    now = clock.now()
    mapping = ExternalGroupRoleMapping(
        uid=uidp.new_child(req.parent),
        identity_provider_uid=req.parent,
        external_group_id=given.external_group_id,
        role_uid=given.role_uid,
        scope=given.scope,
        create_time=now,
        update_time=now,
    )
    async with ctx.rt.db.transaction() as tx:
        # Locked: the provider cannot be deleted under a mapping being created for it.
        await identity_providers.fetch(tx, req.parent, lock=True)
        idp_group = uidp.parent(req.parent)
        if not uidp.is_ancestor_or_self(idp_group, mapping.scope):
            raise errors.invalid_argument("scope", "scope must be the identity provider's group or a group below it")
        await groups.require(tx, mapping.scope, "scope")
        role = await roles.usable_at(tx, mapping.role_uid, mapping.scope)
        authz.caller(ctx).check_grantable(roles.role_mask(role), mapping.scope)
        await queries.insert_mapping(tx, mapping, req.parent)
        await outbox.emit(tx, ctx, mapping)
    return mapping


@rpc(SERVICE + "GetExternalGroupRoleMapping")
async def get_external_group_role_mapping(
    req: GetExternalGroupRoleMappingRequest, ctx: Context
) -> ExternalGroupRoleMapping:
    return await _fetch(ctx.rt.db, req.uid)


@rpc(SERVICE + "ListExternalGroupRoleMappings")
async def list_external_group_role_mappings(
    req: ListExternalGroupRoleMappingsRequest, ctx: Context
) -> ListExternalGroupRoleMappingsResponse:
    where = listing.filters(req, identity_provider_uid="parent")
    return await listing.answer(
        ctx,
        TABLE,
        where,
        req,
        ListExternalGroupRoleMappingsResponse,
        "external_group_role_mappings",
        ExternalGroupRoleMapping,
    )


@rpc(SERVICE + "DeleteExternalGroupRoleMapping")
async def delete_external_group_role_mapping(req: DeleteExternalGroupRoleMappingRequest, ctx: Context) -> Empty:
    async with ctx.rt.db.transaction() as tx:
        await _fetch(tx, req.uid)
        await queries.MAPPINGS.delete(tx, req.uid)
        await outbox.emit(tx, ctx, req)
    return Empty()


@rpc(SERVICE + "BatchDeleteExternalGroupRoleMappings")
async def batch_delete_external_group_role_mappings(
    req: BatchDeleteExternalGroupRoleMappingsRequest, ctx: Context
) -> BatchDeleteExternalGroupRoleMappingsResponse:
    if not 1 <= len(req.names) <= MAX_BATCH:
        raise errors.invalid_argument("names", f"between 1 and {MAX_BATCH} names are required")
    for i, name in enumerate(req.names):
        validate.uid(name, f"names[{i}]")
        if uidp.parent(name) != req.parent:
            raise errors.invalid_argument(f"names[{i}]", "every name must be a mapping of the batch's parent")
    deleted = []
    async with ctx.rt.db.transaction() as tx:
        await identity_providers.fetch(tx, req.parent, lock=True)
        for name in dict.fromkeys(req.names):  # in request order, each once
            mapping = await queries.take_mapping(tx, name)
            if mapping is not None:  # already gone: skipped
                deleted.append(mapping)
        result = BatchDeleteExternalGroupRoleMappingsResponse(parent=req.parent, external_group_role_mappings=deleted)
        if deleted:
            await outbox.emit(tx, ctx, result)
    return result
