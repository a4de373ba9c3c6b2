"""/iam/v1/identities (chainguard.platform.iam.Identities) over iam/identities.py: `id` for `uid`,
`parentId` for the parent, `createdAt`/`updatedAt`/`lastSeen` for the v2 times, `static` for `staticKeys`
(its `expiration` for `expirationTime`); `claimMatch` is the same on both sides.

Not kept by v2, so answered as zero values and refused (INVALID_ARGUMENT naming the field) when sent:
`servicePrincipal` and `awsIdentity`. The v2-only `email` and `company` are not shown; a PUT leaves
`company` as it is (v1 cannot name it, so replacing it would erase what a v2 caller set).

Lookup is the v2 LookupIdentity: the uid a user of (issuer, subject) has (or will have at first login), as
an Identity carrying only its `id`, so it tells nothing about whether that user exists."""

from __future__ import annotations

from msgspec import UNSET

from platform_api.core import errors
from platform_api.gen.records import iam_v2 as v2
from platform_api.gen.records._base import Empty
from platform_api.gen.records.iam import (
    CreateIdentityRequest,
    DeleteIdentityRequest,
    Identity,
    Identity_ClaimMatch,
    Identity_StaticKeys,
    IdentityFilter,
    IdentityList,
    LookupRequest,
)
from platform_api.iam import identities
from platform_api.service import v1
from platform_api.service.context import Context, rpc

SERVICE = "chainguard.platform.iam.Identities."
TIMES = {"id": "uid", "created_at": "create_time", "updated_at": "update_time", "last_seen": "last_seen_time"}
# v1 cannot name `company`: a PUT replaces everything else.
MASK = v1.full_mask(identities.UPDATABLE - {"company"})


def to_v1(identity: v2.Identity) -> Identity:
    cm, sk = identity.claim_match, identity.static_keys
    return v1.convert(
        identity, Identity, TIMES,
        claim_match=None if cm is None else v1.convert(cm, Identity_ClaimMatch),
        static=None if sk is None else v1.convert(sk, Identity_StaticKeys, {"expiration": "expiration_time"}),
    )  # fmt: skip


def _v2(identity: Identity, field: str) -> v2.Identity:
    if identity.service_principal not in (UNSET, "UNKNOWN", 0):
        raise errors.invalid_argument(f"{field}service_principal", "service principals are not kept by this service")
    if identity.aws_identity is not None:
        raise errors.invalid_argument(f"{field}aws_identity", "AWS identities are not kept by this service")
    cm, sk = identity.claim_match, identity.static
    return v2.Identity(
        uid=identity.id,
        name=identity.name,
        description=identity.description,
        claim_match=None if cm is None else v1.convert(cm, v2.Identity_ClaimMatch),
        static_keys=None if sk is None else v1.convert(sk, v2.Identity_StaticKeys, {"expiration_time": "expiration"}),
    )


@rpc(SERVICE + "Create")
async def create(req: CreateIdentityRequest, ctx: Context) -> Identity:
    ask = v2.CreateIdentityRequest(parent=req.parent_id, identity=_v2(req.identity or Identity(), "identity."))
    return to_v1(await v1.call(ctx, identities.create_identity, ask))


@rpc(SERVICE + "Update")
async def update(req: Identity, ctx: Context) -> Identity:
    ask = v2.UpdateIdentityRequest(identity=_v2(req, ""), update_mask=MASK)
    return to_v1(await v1.call(ctx, identities.update_identity, ask))


@rpc(SERVICE + "List")
async def list_(req: IdentityFilter, ctx: Context) -> IdentityList:
    ask = v2.ListIdentitiesRequest(uidp=v1.uidp_of(req.uidp, req.id))
    return IdentityList(items=await v1.every(ctx, identities.list_identities, ask, "identities", to_v1))


@rpc(SERVICE + "Lookup")
async def lookup(req: LookupRequest, ctx: Context) -> Identity:
    found = await v1.call(
        ctx, identities.lookup_identity, v2.LookupIdentityRequest(issuer=req.issuer, subject=req.subject)
    )
    return Identity(id=found.uid)


@rpc(SERVICE + "Delete")
async def delete(req: DeleteIdentityRequest, ctx: Context) -> Empty:
    return await v1.call(ctx, identities.delete_identity, v2.DeleteIdentityRequest(uid=req.id))
