"""IAM identity providers: /iam/v2/identityProviders (IdentityProvidersService).

An identity provider is an organization's own OIDC SSO: users logging in through it are granted its
`defaultRole` at its group on first login, plus the roles its external group mappings name for the groups
their token carries. The OIDC client secret is write-only: stored apart from the returned body, never
answered by any RPC; `fetch` gives it to the token-exchange code.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

from msgspec import structs

from platform_api.auth import authz, capabilities, matching
from platform_api.core import clock, errors, fieldmask, uidp, validate
from platform_api.gen.records._base import Empty
from platform_api.gen.records.iam_v2 import (
    CreateIdentityProviderRequest,
    DeleteIdentityProviderRequest,
    GenerateScimTokenRequest,
    GenerateScimTokenResponse,
    GetIdentityProviderRequest,
    IdentityProvider,
    IdentityProvider_SCIM,
    ListIdentityProvidersRequest,
    ListIdentityProvidersResponse,
    RegenerateScimTokenRequest,
    RegenerateScimTokenResponse,
    RevokeScimTokenRequest,
    RevokeScimTokenResponse,
    SetScimEnabledRequest,
    SetScimEnabledResponse,
    UpdateIdentityProviderRequest,
)
from platform_api.iam import groups, queries, roles
from platform_api.outbox import outbox
from platform_api.service import crud, listing
from platform_api.service.context import Context, rpc
from platform_api.store import rows
from platform_api.store.db import Conn

SERVICE = "chainguard.platform.iam.v2.IdentityProvidersService."
RESOURCE = "chainguard.platform.iam.v2.IdentityProvider"
NAMES = crud.UniqueName("identity_providers", RESOURCE, "an identity provider", "in this group")
IDPS = crud.Resource("identity_providers", IdentityProvider, RESOURCE, outbox.emit, NAMES)
TABLE = listing.Table("identity_providers")
UPDATABLE = frozenset({"name", "description", "default_role", "oidc"})
SECRET_PATH = ["oidc", "client_secret"]
# The default of the correlation rule; unspecified means the same.
_SUB_RULE = "CORRELATION_RULE_SUB_EQUALS_EXTERNAL_ID"
_UNSPECIFIED_RULE = "CORRELATION_RULE_UNSPECIFIED"


def public(idp: IdentityProvider) -> IdentityProvider:
    """The provider as the API shows it: without the client secret."""
    if idp.oidc is None or not idp.oidc.client_secret:
        return idp
    return structs.replace(idp, oidc=structs.replace(idp.oidc, client_secret=""))


def _secret(idp: IdentityProvider) -> str:
    return idp.oidc.client_secret if idp.oidc is not None else ""


async def fetch(conn: Conn, uid: str, lock: bool = False) -> IdentityProvider:
    """The provider including its client secret (for the token exchange: issuer, client id and secret,
    groups claim, default role; its group is `uidp.parent(uid)`)."""
    validate.uid(uid)
    sql = "SELECT body, client_secret FROM identity_providers WHERE uid = $1" + (rows.for_update(conn) if lock else "")
    row = await conn.fetchrow(sql, uid)
    if row is None:
        raise errors.not_found(RESOURCE, uid)
    idp = rows.decode(IdentityProvider, row["body"])
    if row["client_secret"] and idp.oidc is not None:
        idp.oidc.client_secret = row["client_secret"]
    return idp


def _check(idp: IdentityProvider, ctx: Context) -> None:
    validate.name(idp.name)
    validate.description(idp.description)
    oidc = idp.oidc
    if oidc is None:
        raise errors.invalid_argument("oidc", "oidc is required")
    if not oidc.issuer:
        raise errors.invalid_argument("oidc.issuer", "oidc.issuer is required")
    oidc.issuer = matching.normalize_issuer(oidc.issuer)
    if len(oidc.issuer) > 2048 or not matching.url_allowed(oidc.issuer, ctx.rt.settings.insecure_allow_loopback):
        raise errors.invalid_argument("oidc.issuer", "oidc.issuer must be an https:// URL")
    validate.text(oidc.client_id, "oidc.client_id", required=True, limit=1024)
    validate.text(oidc.client_secret, "oidc.client_secret", limit=4096)
    if not oidc.client_secret and not oidc.pkce_enabled:
        raise errors.invalid_argument(
            "oidc.client_secret", "at least one of oidc.client_secret and oidc.pkce_enabled is required"
        )
    for i, scope in enumerate(oidc.additional_scopes):
        if not scope or len(scope) > 256 or any(c.isspace() or not c.isprintable() for c in scope):
            raise errors.invalid_argument(f"oidc.additional_scopes[{i}]", "a scope is 1-256 printable characters")
    validate.text(oidc.groups_claim, "oidc.groups_claim", limit=256)


async def _check_default_role(tx: Conn, ctx: Context, idp: IdentityProvider, group: str) -> None:
    role = await roles.usable_at(tx, idp.default_role, group, "default_role")
    # The default role is a promise of role bindings: nobody promises more than they hold.
    authz.caller(ctx).check_grantable(roles.role_mask(role), group)


async def _obtainable(tx: Conn, idp: IdentityProvider) -> dict[str, int]:
    """What a login through `idp` can obtain: its default role at its group, and every role its external group
    mappings hand out at their scopes."""
    group = uidp.parent(idp.uid)
    found = await roles.held_through(tx, await queries.mapping_roles(tx, idp.uid))
    out = {group: roles.role_mask(await roles.usable_at(tx, idp.default_role, group, "default_role"))}
    for scope, names in found:
        out[scope] = out.get(scope, 0) | capabilities.mask(names.split(","))
    return out


@rpc(SERVICE + "CreateIdentityProvider")
async def create_identity_provider(req: CreateIdentityProviderRequest, ctx: Context) -> IdentityProvider:
    given = req.identity_provider or IdentityProvider()
    now = clock.now()
    idp = IdentityProvider(
        uid=uidp.new_child(req.parent),
        name=given.name,
        description=given.description,
        default_role=given.default_role,
        oidc=given.oidc,
        create_time=now,
        update_time=now,
    )
    _check(idp, ctx)
    stored = public(idp)
    result = structs.replace(
        stored, scim=IdentityProvider_SCIM(endpoint_url=endpoint_url(ctx, idp.uid), credential_state=_state(None, now))
    )
    async with ctx.rt.db.transaction() as tx:
        await groups.require(tx, req.parent, "parent")
        await _check_default_role(tx, ctx, idp, req.parent)
        await IDPS.insert(
            tx, stored, req.parent, name=idp.name, default_role=idp.default_role, client_secret=_secret(idp)
        )
        await outbox.emit(tx, ctx, result)
    return result


@rpc(SERVICE + "GetIdentityProvider")
async def get_identity_provider(req: GetIdentityProviderRequest, ctx: Context) -> IdentityProvider:
    return await _with_scim(ctx.rt.db, ctx, await fetch(ctx.rt.db, req.uid))


@rpc(SERVICE + "ListIdentityProviders")
async def list_identity_providers(req: ListIdentityProvidersRequest, ctx: Context) -> ListIdentityProvidersResponse:
    where = listing.filters(req, name="name")
    return await listing.answer(
        ctx, TABLE, where, req, ListIdentityProvidersResponse, "identity_providers", IdentityProvider
    )


def _same_rule(a: str, b: str) -> bool:
    return (a if a != _UNSPECIFIED_RULE else _SUB_RULE) == (b if b != _UNSPECIFIED_RULE else _SUB_RULE)


@rpc(SERVICE + "UpdateIdentityProvider")
async def update_identity_provider(req: UpdateIdentityProviderRequest, ctx: Context) -> IdentityProvider:
    patch = req.identity_provider or IdentityProvider()
    # Only a mask the caller wrote that names the secret may clear it; otherwise an empty secret keeps it.
    paths = fieldmask.parse(req.update_mask, IdentityProvider)
    may_clear = not ctx.mask_inferred and paths is not None and SECRET_PATH in paths
    async with ctx.rt.db.transaction() as tx:
        current = await fetch(tx, patch.uid, lock=True)
        # Copies: the checks below normalize in place.
        idp = structs.replace(fieldmask.apply(current, patch, req.update_mask, UPDATABLE))
        if idp.oidc is not None and current.oidc is not None:
            idp.oidc = structs.replace(idp.oidc)
            if not idp.oidc.client_secret and not may_clear:
                idp.oidc.client_secret = current.oidc.client_secret
            # Immutable: restating it (or leaving it out) is a no-op, changing it is refused.
            rule, was = idp.oidc.correlation_rule, current.oidc.correlation_rule
            if rule == _UNSPECIFIED_RULE or _same_rule(rule, was):
                idp.oidc.correlation_rule = was
            else:
                raise errors.invalid_argument("oidc.correlation_rule", "oidc.correlation_rule cannot be changed")
        _check(idp, ctx)
        if idp == current:
            return await _with_scim(tx, ctx, current)
        group = uidp.parent(idp.uid)
        if idp.default_role != current.default_role:
            await _check_default_role(tx, ctx, idp, group)
        if idp.oidc != current.oidc:
            # Whoever decides which tokens log in through the provider can log in with everything it hands out.
            authz.caller(ctx).check_obtainable(
                await _obtainable(tx, idp), "changing how users log in through this identity provider would hand over"
            )
        idp.update_time = clock.now()
        stored = public(idp)
        await IDPS.update(tx, stored, name=idp.name, default_role=idp.default_role, client_secret=_secret(idp))
        result = await _with_scim(tx, ctx, stored)
        await outbox.emit(tx, ctx, result)
    return result


async def any_in_group(conn: Conn, group: str) -> bool:
    return await IDPS.any_where(conn, "parent", group)


async def role_is_default(conn: Conn, role: str) -> bool:
    return await IDPS.any_where(conn, "default_role", role)


@rpc(SERVICE + "DeleteIdentityProvider")
async def delete_identity_provider(req: DeleteIdentityProviderRequest, ctx: Context) -> Empty:
    async with ctx.rt.db.transaction() as tx:
        await fetch(tx, req.uid, lock=True)
        await queries.delete_mappings_of(tx, req.uid)
        await tx.execute("DELETE FROM scim_credentials WHERE idp_uid = $1", req.uid)
        await IDPS.delete(tx, req.uid)
        await outbox.emit(tx, ctx, req)
    return Empty()


# ------------------------------------------------------------------------------------------------- SCIM
#
# SCIM provisioning credentials: one bearer token per provider, answered once and stored as
# SHA-256; a rotation keeps the previous token valid for an overlap. SCIM starts disabled; enabling it needs
# at least two owners of the organization, so that provisioning cannot lock everyone out.

DAY = 24 * 3600.0
DEFAULT_TOKEN_TTL = 365 * DAY
MAX_TOKEN_TTL = 2 * 365 * DAY
DEFAULT_OVERLAP = 3600.0
MAX_OVERLAP = DAY
MIN_OWNERS_FOR_SCIM = 2
_SCIM_COLUMNS = "enabled, token_hash, expire_time, previous_hash, previous_expire_time, revoke_time, etag"


def _scim_prefix(ctx: Context) -> str:
    return "cgscim_" if ctx.rt.settings.compat_strings == "reference" else "pascim_"


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def endpoint_url(ctx: Context, idp_uid: str) -> str:
    """Where the provider's SCIM client would send provisioning requests (derived, never stored)."""
    return f"{ctx.rt.settings.issuer}/scim/v2/{idp_uid}"


def _state(row: Any, now: str) -> str:
    if row is None:
        return "CREDENTIAL_STATE_NOT_ISSUED"
    token_hash, expire, previous = row["token_hash"], row["expire_time"], row["previous_hash"]
    previous_expire, revoked = row["previous_expire_time"], row["revoke_time"]
    if not token_hash:
        return "CREDENTIAL_STATE_REVOKED" if revoked else "CREDENTIAL_STATE_NOT_ISSUED"
    if expire and expire <= now:
        return "CREDENTIAL_STATE_EXPIRED"
    if previous and previous_expire > now:
        return "CREDENTIAL_STATE_ROTATING"
    return "CREDENTIAL_STATE_LIVE"


async def _scim_row(conn: Conn, idp_uid: str, lock: bool = False) -> Any:
    sql = f"SELECT {_SCIM_COLUMNS} FROM scim_credentials WHERE idp_uid = $1" + (rows.for_update(conn) if lock else "")
    return await conn.fetchrow(sql, idp_uid)


async def _with_scim(conn: Conn, ctx: Context, idp: IdentityProvider) -> IdentityProvider:
    """The provider as Get shows it: without secret, with its SCIM status."""
    row = await _scim_row(conn, idp.uid)
    now = clock.now()
    scim = IdentityProvider_SCIM(endpoint_url=endpoint_url(ctx, idp.uid), credential_state=_state(row, now))
    if row is not None:
        scim.enabled, scim.etag = bool(row["enabled"]), row["etag"]
        scim.token_expire_time = (row["expire_time"] or None) if row["token_hash"] else None
        previous_expire = row["previous_expire_time"]
        scim.previous_token_expire_time = previous_expire if row["previous_hash"] and previous_expire > now else None
    return structs.replace(public(idp), scim=scim)


def _token_expiry(expire_time: str | None, never_expires: bool, now: str) -> str:
    """The new token's expiration ('' = never): default one year, at most two years."""
    if expire_time and never_expires:
        raise errors.invalid_argument("expire_time", "set at most one of expire_time and never_expires")
    if never_expires:
        return ""
    start = clock.to_epoch(now)
    if not expire_time:
        return clock.from_epoch(start + DEFAULT_TOKEN_TTL)
    if expire_time <= now:
        raise errors.invalid_argument("expire_time", "expire_time must be in the future")
    if clock.to_epoch(expire_time) > start + MAX_TOKEN_TTL:
        raise errors.invalid_argument("expire_time", "expire_time must be at most two years from now")
    return expire_time


def _check_etag(row: Any, etag: str) -> None:
    if not etag:
        raise errors.invalid_argument("etag", "etag is required: the scim.etag of GetIdentityProvider")
    if etag != row["etag"]:
        raise errors.ApiError(
            errors.ABORTED, "Aborted: the SCIM configuration changed since this etag was read; read it again"
        )


async def _require_scim(tx: Conn, uid: str) -> Any:
    await fetch(tx, uid, lock=True)
    row = await _scim_row(tx, uid, lock=True)
    if row is None:
        raise errors.not_found(RESOURCE + ".SCIM", uid)
    return row


async def scim_token_valid(conn: Conn, idp_uid: str, token: str) -> bool:
    """For the SCIM server: whether `token` currently authenticates provisioning for this provider."""
    row = await _scim_row(conn, idp_uid)
    if row is None or not row["enabled"] or not token:
        return False
    digest, now = _hash(token), clock.now()
    current_hash, expire = row["token_hash"], row["expire_time"]
    previous_hash, previous_expire = row["previous_hash"], row["previous_expire_time"]
    current = current_hash and secrets.compare_digest(digest, current_hash) and (not expire or expire > now)
    previous = previous_hash and secrets.compare_digest(digest, previous_hash) and previous_expire > now
    return bool(current or previous)


async def _set_token(
    tx: Conn, uid: str, token_hash: str, expire: str, previous: str, previous_expire: str, etag: str, now: str
) -> None:
    """A new current token (and the previous one, while it overlaps); not revoked."""
    await tx.execute(
        "UPDATE scim_credentials SET token_hash = $2, expire_time = $3, previous_hash = $4,"
        " previous_expire_time = $5, revoke_time = '', etag = $6, update_time = $7 WHERE idp_uid = $1",
        uid, token_hash, expire, previous, previous_expire, etag, now,
    )  # fmt: skip


@rpc(SERVICE + "GenerateScimToken")
async def generate_scim_token(req: GenerateScimTokenRequest, ctx: Context) -> GenerateScimTokenResponse:
    uid = req.identity_provider_uid
    now = clock.now()
    expire = _token_expiry(req.expire_time, req.never_expires, now)
    token = _scim_prefix(ctx) + secrets.token_hex(32)
    etag = secrets.token_hex(8)
    async with ctx.rt.db.transaction() as tx:
        await fetch(tx, uid, lock=True)
        row = await _scim_row(tx, uid, lock=True)
        if row is None:
            # New SCIM configurations start disabled.
            await tx.execute(
                "INSERT INTO scim_credentials (idp_uid, token_hash, expire_time, etag, create_time, update_time)"
                " VALUES ($1, $2, $3, $4, $5, $6)",
                uid, _hash(token), expire, etag, now, now,
            )  # fmt: skip
        elif row["token_hash"]:
            raise errors.failed_precondition(
                "SCIM_TOKEN_EXISTS", "a SCIM token already exists: regenerate or revoke it", subject=uid
            )
        else:  # revoked: a new token, the enabled flag as it was
            await _set_token(tx, uid, _hash(token), expire, "", "", etag, now)
        result = GenerateScimTokenResponse(
            token=token,
            endpoint_url=endpoint_url(ctx, uid),
            expire_time=expire or None,
            identity_provider_uid=uid,
            etag=etag,
        )
        await outbox.emit(tx, ctx, structs.replace(result, token=""))
    return result


@rpc(SERVICE + "RegenerateScimToken")
async def regenerate_scim_token(req: RegenerateScimTokenRequest, ctx: Context) -> RegenerateScimTokenResponse:
    uid = req.identity_provider_uid
    now = clock.now()
    overlap = DEFAULT_OVERLAP if req.overlap is None else min(validate.seconds(req.overlap, "overlap"), MAX_OVERLAP)
    expire = _token_expiry(req.expire_time, req.never_expires, now)
    token = _scim_prefix(ctx) + secrets.token_hex(32)
    etag = secrets.token_hex(8)
    async with ctx.rt.db.transaction() as tx:
        row = await _require_scim(tx, uid)
        _check_etag(row, req.etag)
        previous = previous_expire = ""
        # The current token, if still valid, keeps working for the overlap (never beyond its own expiry).
        if row["token_hash"] and (not row["expire_time"] or row["expire_time"] > now) and overlap > 0:
            previous = row["token_hash"]
            previous_expire = clock.from_epoch(clock.to_epoch(now) + overlap)
            if row["expire_time"] and row["expire_time"] < previous_expire:
                previous_expire = row["expire_time"]
        await _set_token(tx, uid, _hash(token), expire, previous, previous_expire, etag, now)
        result = RegenerateScimTokenResponse(
            token=token,
            endpoint_url=endpoint_url(ctx, uid),
            expire_time=expire or None,
            identity_provider_uid=uid,
            etag=etag,
            previous_token_expire_time=previous_expire or None,
            requested_overlap=validate.format_duration(overlap),
        )
        await outbox.emit(tx, ctx, structs.replace(result, token=""))
    return result


@rpc(SERVICE + "RevokeScimToken")
async def revoke_scim_token(req: RevokeScimTokenRequest, ctx: Context) -> RevokeScimTokenResponse:
    uid = req.identity_provider_uid
    now = clock.now()
    etag = secrets.token_hex(8)
    async with ctx.rt.db.transaction() as tx:
        row = await _require_scim(tx, uid)
        await tx.execute(
            "UPDATE scim_credentials SET token_hash = '', expire_time = '', previous_hash = '',"
            " previous_expire_time = '', revoke_time = $2, etag = $3, update_time = $2 WHERE idp_uid = $1",
            uid, now, etag,
        )  # fmt: skip
        result = RevokeScimTokenResponse(
            identity_provider_uid=uid, etag=etag, enabled=bool(row["enabled"]), revoke_time=now
        )
        await outbox.emit(tx, ctx, result)
    return result


@rpc(SERVICE + "SetScimEnabled")
async def set_scim_enabled(req: SetScimEnabledRequest, ctx: Context) -> SetScimEnabledResponse:
    uid = req.identity_provider_uid
    async with ctx.rt.db.transaction() as tx:
        row = await _require_scim(tx, uid)
        _check_etag(row, req.etag)
        if bool(row["enabled"]) == req.enabled:
            return SetScimEnabledResponse(identity_provider_uid=uid, enabled=req.enabled, etag=row["etag"])
        if req.enabled:
            org = uidp.root(uid)
            if await queries.count_bound(tx, org, capabilities.OWNER.uid) < MIN_OWNERS_FOR_SCIM:
                raise errors.failed_precondition(
                    "INSUFFICIENT_OWNERS",
                    f"enabling SCIM needs at least {MIN_OWNERS_FOR_SCIM} owners bound at the organization",
                    subject=org,
                )
        etag = secrets.token_hex(8)
        await tx.execute(
            "UPDATE scim_credentials SET enabled = $2, etag = $3, update_time = $4 WHERE idp_uid = $1",
            uid, int(req.enabled), etag, clock.now(),
        )  # fmt: skip
        result = SetScimEnabledResponse(identity_provider_uid=uid, enabled=req.enabled, etag=etag)
        await outbox.emit(tx, ctx, result)
    return result
