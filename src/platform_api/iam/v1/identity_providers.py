"""/iam/v1/identityProviders (chainguard.platform.iam.IdentityProviders) over iam/identity_providers.py.

`id` for `uid`, `identityProviderId` for `identityProviderUid`; v1 has no create/update times. Every field of
the v1 provider is kept by v2, so nothing is refused. The OIDC client secret stays write-only as in v2: no
answer carries it, and a PUT that leaves `oidc.clientSecret` empty keeps the stored secret (a v1 client
never reads it back, so it cannot restate it); `scim` is output only and ignored on writes, as in v2.
A SCIM token is answered once, by Generate/RegenerateScimToken, exactly as the v2 twin does.
"""

from __future__ import annotations

from platform_api.gen.records import iam_v2 as v2
from platform_api.gen.records._base import Empty
from platform_api.gen.records.iam import (
    CreateIdentityProviderRequest,
    DeleteIdentityProviderRequest,
    GenerateScimTokenRequest,
    GenerateScimTokenResponse,
    IdentityProvider,
    IdentityProvider_OIDC,
    IdentityProvider_SCIM,
    IdentityProviderFilter,
    IdentityProviderList,
    RegenerateScimTokenRequest,
    RegenerateScimTokenResponse,
    RevokeScimTokenRequest,
    RevokeScimTokenResponse,
    SetScimEnabledRequest,
    SetScimEnabledResponse,
)
from platform_api.iam import identity_providers
from platform_api.service import v1
from platform_api.service.context import Context, rpc

SERVICE = "chainguard.platform.iam.IdentityProviders."
ID = {"id": "uid"}
IDP_ID = {"identity_provider_id": "identity_provider_uid"}
IDP_UID = {"identity_provider_uid": "identity_provider_id"}


def to_v1(idp: v2.IdentityProvider) -> IdentityProvider:
    return v1.convert(
        idp,
        IdentityProvider,
        ID,
        oidc=v1.nested(identity_providers.public(idp).oidc, IdentityProvider_OIDC),
        scim=v1.nested(idp.scim, IdentityProvider_SCIM),
    )


def _v2(idp: IdentityProvider) -> v2.IdentityProvider:
    # `scim` is output only (v2 ignores it on writes): not passed on.
    oidc = v1.nested(idp.oidc, v2.IdentityProvider_OIDC)
    return v1.convert(idp, v2.IdentityProvider, {"uid": "id"}, oidc=oidc, scim=None)


@rpc(SERVICE + "Create")
async def create(req: CreateIdentityProviderRequest, ctx: Context) -> IdentityProvider:
    ask = v2.CreateIdentityProviderRequest(
        parent=req.parent_id, identity_provider=_v2(req.identity_provider or IdentityProvider())
    )
    return to_v1(await v1.call(ctx, identity_providers.create_identity_provider, ask))


@rpc(SERVICE + "Update")
async def update(req: IdentityProvider, ctx: Context) -> IdentityProvider:
    # The full mask names `oidc`, not `oidc.client_secret`: an empty secret keeps the stored one (v2's rule).
    mask = v1.full_mask(identity_providers.UPDATABLE)
    ask = v2.UpdateIdentityProviderRequest(identity_provider=_v2(req), update_mask=mask)
    return to_v1(await v1.call(ctx, identity_providers.update_identity_provider, ask))


@rpc(SERVICE + "List")
async def list_(req: IdentityProviderFilter, ctx: Context) -> IdentityProviderList:
    ask = v2.ListIdentityProvidersRequest(uidp=v1.uidp_of(req.uidp, req.id), name=req.name)
    return IdentityProviderList(
        items=await v1.every(ctx, identity_providers.list_identity_providers, ask, "identity_providers", to_v1)
    )


@rpc(SERVICE + "Delete")
async def delete(req: DeleteIdentityProviderRequest, ctx: Context) -> Empty:
    return await v1.call(ctx, identity_providers.delete_identity_provider, v2.DeleteIdentityProviderRequest(uid=req.id))


@rpc(SERVICE + "GenerateScimToken")
async def generate_scim_token(req: GenerateScimTokenRequest, ctx: Context) -> GenerateScimTokenResponse:
    ask = v1.convert(req, v2.GenerateScimTokenRequest, IDP_UID)
    return v1.convert(
        await v1.call(ctx, identity_providers.generate_scim_token, ask), GenerateScimTokenResponse, IDP_ID
    )


@rpc(SERVICE + "RegenerateScimToken")
async def regenerate_scim_token(req: RegenerateScimTokenRequest, ctx: Context) -> RegenerateScimTokenResponse:
    ask = v1.convert(req, v2.RegenerateScimTokenRequest, IDP_UID)
    return v1.convert(
        await v1.call(ctx, identity_providers.regenerate_scim_token, ask), RegenerateScimTokenResponse, IDP_ID
    )


@rpc(SERVICE + "RevokeScimToken")
async def revoke_scim_token(req: RevokeScimTokenRequest, ctx: Context) -> RevokeScimTokenResponse:
    ask = v1.convert(req, v2.RevokeScimTokenRequest, IDP_UID)
    return v1.convert(await v1.call(ctx, identity_providers.revoke_scim_token, ask), RevokeScimTokenResponse, IDP_ID)


@rpc(SERVICE + "SetScimEnabled")
async def set_scim_enabled(req: SetScimEnabledRequest, ctx: Context) -> SetScimEnabledResponse:
    ask = v1.convert(req, v2.SetScimEnabledRequest, IDP_UID)
    return v1.convert(await v1.call(ctx, identity_providers.set_scim_enabled, ask), SetScimEnabledResponse, IDP_ID)
