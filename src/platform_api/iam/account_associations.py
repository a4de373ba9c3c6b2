"""IAM account associations: /iam/v2/accountAssociations (AccountAssociationsService).

One association per group, whose uid is the group's uid: it links the group to accounts of cloud
providers (AWS account, Google project, Azure tenant and applications, GitHub App installations). It goes
with its group when the group is deleted.

CheckAccountAssociation would exchange credentials live with the provider, which a self-hosted deployment
without provider credentials cannot do: it answers UNIMPLEMENTED.
"""

from __future__ import annotations

from msgspec import structs

from platform_api.core import clock, errors, patterns, uidp, validate
from platform_api.gen.records._base import Empty
from platform_api.gen.records.iam_v2 import (
    AccountAssociation,
    CreateAccountAssociationRequest,
    DeleteAccountAssociationRequest,
    GetAccountAssociationRequest,
    ListAccountAssociationsRequest,
    ListAccountAssociationsResponse,
    UpdateAccountAssociationRequest,
)
from platform_api.iam import groups
from platform_api.outbox import outbox
from platform_api.service import crud, listing
from platform_api.service.context import Context, rpc
from platform_api.store.db import Conn

SERVICE = "chainguard.platform.iam.v2.AccountAssociationsService."
RESOURCE = "chainguard.platform.iam.v2.AccountAssociation"
ASSOCIATIONS = crud.Resource("account_associations", AccountAssociation, RESOURCE, outbox.emit)
# The reference's default order is `group asc`: the group is the uid here.
TABLE = listing.Table("account_associations", order_keys={**listing.STANDARD_ORDER_KEYS, "group": "uid"})
UPDATABLE = frozenset({"name", "description", "amazon", "google", "azure", "github"})


def _int64(value: str) -> bool:
    magnitude = value.removeprefix("-")
    return len(magnitude) <= 19 and patterns.digits(magnitude) and -(2**63) <= int(value) < 2**63


def _check(a: AccountAssociation) -> None:
    validate.name(a.name)
    validate.description(a.description)
    if a.amazon is not None and not (len(a.amazon.account) == 12 and patterns.digits(a.amazon.account)):
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


def _columns(assoc: AccountAssociation) -> dict[str, str]:
    return {"name": assoc.name}


async def _fetch(conn: Conn, uid: str, lock: bool = False) -> AccountAssociation:
    return await ASSOCIATIONS.get(conn, uid, lock=lock)


async def delete_of_group(tx: Conn, group: str) -> None:
    """A group's association (its uid is the group's) goes with the group."""
    await ASSOCIATIONS.delete_where(tx, "uid", group)


@rpc(SERVICE + "CreateAccountAssociation")
async def create_account_association(req: CreateAccountAssociationRequest, ctx: Context) -> AccountAssociation:
    given = req.account_association or AccountAssociation()
    now = clock.now()
    assoc = structs.replace(given, uid=req.parent, create_time=now, update_time=now)
    _check(assoc)
    return await ASSOCIATIONS.create_rpc(
        ctx, assoc, uidp.parent(assoc.uid),
        require=lambda tx: groups.require(tx, req.parent, "parent"),
        columns={"name": assoc.name},
        conflict=errors.already_exists(RESOURCE, req.parent, "this group already has an account association"),
    )  # fmt: skip


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
    return await ASSOCIATIONS.update_rpc(ctx, patch, req.update_mask, UPDATABLE, check=_check, columns=_columns)


@rpc(SERVICE + "DeleteAccountAssociation")
async def delete_account_association(req: DeleteAccountAssociationRequest, ctx: Context) -> Empty:
    # Idempotent: deleting an association that does not exist succeeds.
    await ASSOCIATIONS.delete_rpc(ctx, req, missing_ok=True)
    return Empty()
