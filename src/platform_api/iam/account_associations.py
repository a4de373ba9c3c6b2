"""IAM account associations: /iam/v2/accountAssociations (AccountAssociationsService).

One association per group, whose uid is the group's uid: it links the group to accounts of cloud
providers (AWS account, Google project, Azure tenant and applications, GitHub App installations). It goes
with its group when the group is deleted.

CheckAccountAssociation would exchange credentials live with the provider, which a self-hosted deployment
without provider credentials cannot do: it answers UNIMPLEMENTED.
"""

from __future__ import annotations

import re

from msgspec import structs

from platform_api.core import clock, errors, fieldmask, uidp, validate
from platform_api.events import outbox
from platform_api.gen.records._base import Empty
from platform_api.gen.records.iam_v2 import (
    AccountAssociation,
    CheckAccountAssociationRequest,
    CheckAccountAssociationResponse,
    CreateAccountAssociationRequest,
    DeleteAccountAssociationRequest,
    GetAccountAssociationRequest,
    ListAccountAssociationsRequest,
    ListAccountAssociationsResponse,
    UpdateAccountAssociationRequest,
)
from platform_api.iam import groups
from platform_api.service import listing, storage
from platform_api.service.context import Context, rpc
from platform_api.store import rows
from platform_api.store.db import Conn

SERVICE = "chainguard.platform.iam.v2.AccountAssociationsService."
RESOURCE = "chainguard.platform.iam.v2.AccountAssociation"
# The reference's default order is `group asc`: the group is the uid here.
TABLE = listing.Table("account_associations", order_keys={**listing.STANDARD_ORDER_KEYS, "group": "uid"})
UPDATABLE = frozenset({"name", "description", "amazon", "google", "azure", "github"})
AWS_ACCOUNT = re.compile(r"[0-9]{12}")
INT64 = re.compile(r"-?[0-9]{1,19}")


def _int64(value: str) -> bool:
    return INT64.fullmatch(value) is not None and -(2**63) <= int(value) < 2**63


def _check(a: AccountAssociation) -> None:
    validate.name(a.name)
    validate.description(a.description)
    if a.amazon is not None and not AWS_ACCOUNT.fullmatch(a.amazon.account):
        raise errors.invalid_argument("amazon.account", "amazon.account must be a 12-digit AWS account id")
    if a.google is not None:
        validate.text(a.google.project_id, "google.project_id", required=True, limit=128)
        validate.text(a.google.project_number, "google.project_number", required=True, limit=128)
    if a.azure is not None:
        validate.text(a.azure.tenant_id, "azure.tenant_id", required=True, limit=128)
        if not a.azure.client_ids:
            raise errors.invalid_argument("azure.client_ids", "azure.client_ids is required")
        for component, client_id in a.azure.client_ids.items():
            validate.text(component, "azure.client_ids", required=True, limit=128)
            validate.text(client_id, f"azure.client_ids[{component}]", required=True, limit=128)
    if a.github is not None:
        for app_id, installs in a.github.app_installations.items():
            if not _int64(app_id):
                raise errors.invalid_argument("github.app_installations", "app ids (the map keys) must be int64")
            for i, inst in enumerate(installs.installations):
                field = f"github.app_installations[{app_id}].installations[{i}]"
                if not _int64(inst.installation_id):
                    raise errors.invalid_argument(f"{field}.installation_id", "installation_id must be int64")
                validate.text(inst.name, f"{field}.name", limit=256)


async def _fetch(conn: Conn, uid: str, lock: bool = False) -> AccountAssociation:
    return await storage.get(conn, "account_associations", AccountAssociation, RESOURCE, uid, lock=lock)


@rpc(SERVICE + "CreateAccountAssociation")
async def create_account_association(req: CreateAccountAssociationRequest, ctx: Context) -> AccountAssociation:
    given = req.account_association or AccountAssociation()
    now = clock.now()
    assoc = structs.replace(given, uid=req.parent, create_time=now, update_time=now)
    _check(assoc)
    async with ctx.rt.db.transaction() as tx:
        await groups.require(tx, req.parent, "parent")
        await storage.unique_write(
            tx, errors.already_exists(RESOURCE, req.parent, "this group already has an account association"),
            "INSERT INTO account_associations (uid, parent, name, create_time, update_time, body)"
            " VALUES ($1, $2, $3, $4, $5, $6)",
            assoc.uid, uidp.parent(assoc.uid), assoc.name, now, now, rows.body(assoc),
        )  # fmt: skip
        await outbox.emit(tx, ctx, assoc)
    return assoc


@rpc(SERVICE + "GetAccountAssociation")
async def get_account_association(req: GetAccountAssociationRequest, ctx: Context) -> AccountAssociation:
    return await _fetch(ctx.rt.db, req.uid)


@rpc(SERVICE + "ListAccountAssociations")
async def list_account_associations(
    req: ListAccountAssociationsRequest, ctx: Context
) -> ListAccountAssociationsResponse:
    where = listing.filters(req, name="name")
    return await listing.answer(
        ctx, TABLE, where, req, ListAccountAssociationsResponse, "account_associations", AccountAssociation
    )


@rpc(SERVICE + "UpdateAccountAssociation")
async def update_account_association(req: UpdateAccountAssociationRequest, ctx: Context) -> AccountAssociation:
    patch = req.account_association or AccountAssociation()
    async with ctx.rt.db.transaction() as tx:
        current = await _fetch(tx, patch.uid, lock=True)
        assoc = fieldmask.apply(current, patch, req.update_mask, UPDATABLE)
        _check(assoc)
        if assoc == current:
            return current
        assoc = structs.replace(assoc, update_time=clock.now())
        await tx.execute(
            "UPDATE account_associations SET name = $2, update_time = $3, body = $4 WHERE uid = $1",
            assoc.uid, assoc.name, assoc.update_time, rows.body(assoc),
        )  # fmt: skip
        await outbox.emit(tx, ctx, assoc)
    return assoc


@rpc(SERVICE + "DeleteAccountAssociation")
async def delete_account_association(req: DeleteAccountAssociationRequest, ctx: Context) -> Empty:
    validate.uid(req.uid)
    async with ctx.rt.db.transaction() as tx:
        # Idempotent: deleting an association that does not exist succeeds.
        if await tx.execute("DELETE FROM account_associations WHERE uid = $1", req.uid):
            await outbox.emit(tx, ctx, req)
    return Empty()


@rpc(SERVICE + "CheckAccountAssociation")
async def check_account_association(
    req: CheckAccountAssociationRequest, ctx: Context
) -> CheckAccountAssociationResponse:
    raise errors.ApiError(
        errors.UNIMPLEMENTED,
        "Unimplemented: CheckAccountAssociation needs a live credential exchange with the cloud provider,"
        " which this deployment does not perform",
    )
