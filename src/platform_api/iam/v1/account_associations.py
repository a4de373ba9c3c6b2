"""/iam/v1/account_associations (chainguard.platform.iam.GroupAccountAssociations) over
iam/account_associations.py: keyed by `group` (the association's uid is its group's uid in v2 too).

The AWS, Google, Azure and GitHub blocks map one to one. The Chainguard service bindings (`chainguard`)
are not kept by v2: they answer empty, and a write sending any binding is refused (INVALID_ARGUMENT on
`chainguard.service_bindings`) rather than dropped. v1 has no create/update times. The List filter's
`group` is the association's uid; `name` is v2's name filter. `Check` is v2's CheckAccountAssociation
(`accountType` GOOGLE/AMAZON/AZURE for `providerType`; `ready` Ready/NotReady for `status`).
"""

from __future__ import annotations

from platform_api.core import errors
from platform_api.gen.records import iam_v2 as v2
from platform_api.gen.records._base import Empty
from platform_api.gen.records.iam import (
    AccountAssociations,
    AccountAssociations_Amazon,
    AccountAssociations_Azure,
    AccountAssociations_GitHub,
    AccountAssociations_Google,
    AccountAssociationsCheckRequest,
    AccountAssociationsFilter,
    AccountAssociationsList,
    AccountAssociationsStatus,
    DeleteAccountAssociationsRequest,
)
from platform_api.iam import account_association_check, account_associations
from platform_api.service import v1
from platform_api.service.context import Context, rpc

SERVICE = "chainguard.platform.iam.GroupAccountAssociations."


def to_v1(a: v2.AccountAssociation) -> AccountAssociations:
    return v1.convert(
        a,
        AccountAssociations,
        {"group": "uid"},
        amazon=v1.nested(a.amazon, AccountAssociations_Amazon),
        google=v1.nested(a.google, AccountAssociations_Google),
        azure=v1.nested(a.azure, AccountAssociations_Azure),
        github=v1.nested(a.github, AccountAssociations_GitHub),
    )


def _v2(a: AccountAssociations) -> v2.AccountAssociation:
    if a.chainguard is not None and a.chainguard.service_bindings:
        raise errors.invalid_argument(
            "chainguard.service_bindings", "Chainguard service bindings are not kept by this service"
        )
    return v1.convert(
        a,
        v2.AccountAssociation,
        {"uid": "group"},
        amazon=v1.nested(a.amazon, v2.AccountAssociation_Amazon),
        google=v1.nested(a.google, v2.AccountAssociation_Google),
        azure=v1.nested(a.azure, v2.AccountAssociation_Azure),
        github=v1.nested(a.github, v2.AccountAssociation_GitHub),
    )


@rpc(SERVICE + "Create")
async def create(req: AccountAssociations, ctx: Context) -> AccountAssociations:
    ask = v2.CreateAccountAssociationRequest(parent=req.group, account_association=_v2(req))
    return to_v1(await v1.call(ctx, account_associations.create_account_association, ask))


@rpc(SERVICE + "Update")
async def update(req: AccountAssociations, ctx: Context) -> AccountAssociations:
    mask = v1.full_mask(account_associations.UPDATABLE)
    ask = v2.UpdateAccountAssociationRequest(account_association=_v2(req), update_mask=mask)
    return to_v1(await v1.call(ctx, account_associations.update_account_association, ask))


@rpc(SERVICE + "List")
async def list_(req: AccountAssociationsFilter, ctx: Context) -> AccountAssociationsList:
    ask = v2.ListAccountAssociationsRequest(uidp=v1.uidp_of(None, req.group, "group"), name=req.name)
    found = await v1.every(ctx, account_associations.list_account_associations, ask, "account_associations", to_v1)
    return AccountAssociationsList(items=found)


@rpc(SERVICE + "Delete")
async def delete(req: DeleteAccountAssociationsRequest, ctx: Context) -> Empty:
    return await v1.call(
        ctx, account_associations.delete_account_association, v2.DeleteAccountAssociationRequest(uid=req.group)
    )


@rpc(SERVICE + "Check")
async def check(req: AccountAssociationsCheckRequest, ctx: Context) -> AccountAssociationsStatus:
    kind = "UNSPECIFIED" if req.account_type == "UNKNOWN" else req.account_type
    ask = v2.CheckAccountAssociationRequest(uid=req.group, provider_type=f"ACCOUNT_PROVIDER_TYPE_{kind}")
    got = await v1.call(ctx, account_association_check.check_account_association, ask)
    ready = {"CHECK_STATUS_READY": "Ready", "CHECK_STATUS_NOT_READY": "NotReady"}.get(got.status, "UNKNOWN")
    return AccountAssociationsStatus(ready=ready, reason=got.reason, message=got.message)
