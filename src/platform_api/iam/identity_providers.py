"""IAM identity providers: /iam/v2/identityProviders (IdentityProvidersService).

An identity provider is an organization's own OIDC SSO: users logging in through it are granted its
`defaultRole` at its group on first login, plus the roles its external group mappings name for the groups
their token carries. The OIDC client secret is write-only: stored apart from the returned body, never
answered by any RPC; `fetch` gives it to the token-exchange code.
"""

from __future__ import annotations

from msgspec import UNSET, structs

from platform_api.auth import matching
from platform_api.core import clock, errors, fieldmask, listing, uidp, validate
from platform_api.core.service import Context, rpc
from platform_api.events import outbox
from platform_api.gen.records._base import Empty
from platform_api.gen.records.iam_v2 import (
    CreateIdentityProviderRequest,
    DeleteIdentityProviderRequest,
    GetIdentityProviderRequest,
    IdentityProvider,
    ListIdentityProvidersRequest,
    ListIdentityProvidersResponse,
    UpdateIdentityProviderRequest,
)
from platform_api.iam import groups, roles
from platform_api.store import rows
from platform_api.store.db import Conn

SERVICE = "platform.iam.v2.IdentityProvidersService."
RESOURCE = "platform.iam.v2.IdentityProvider"
TABLE = listing.Table("identity_providers")
UPDATABLE = frozenset({"name", "description", "default_role", "oidc"})
SECRET_PATH = ["oidc", "client_secret"]
# The default of the correlation rule; unspecified means the same.
_SUB_RULE = "CORRELATION_RULE_SUB_EQUALS_EXTERNAL_ID"
_UNSPECIFIED_RULE = "CORRELATION_RULE_UNSPECIFIED"
# Tables whose rows live under an identity provider and go with it.
ATTACHMENTS: list[tuple[str, str]] = [("external_group_role_mappings", "parent")]


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
    idp = rows.decode(IdentityProvider, row[0])
    if row[1] and idp.oidc is not None:
        idp.oidc.client_secret = row[1]
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
    ctx.caller.check_grantable(roles.role_mask(role), group)


def _conflict(name: str) -> errors.ApiError:
    return errors.already_exists(RESOURCE, "", f"an identity provider named {name!r} already exists in this group")


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
    result = public(idp)
    async with ctx.rt.db.transaction() as tx:
        await groups.require(tx, req.parent, "parent")
        await _check_default_role(tx, ctx, idp, req.parent)
        await rows.unique_write(
            tx, _conflict(idp.name),
            "INSERT INTO identity_providers (uid, parent, name, create_time, update_time, body, default_role,"
            " client_secret) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
            idp.uid, req.parent, idp.name, now, now, rows.body(result), idp.default_role, _secret(idp),
        )  # fmt: skip
        await outbox.emit(tx, ctx, result)
    return result


@rpc(SERVICE + "GetIdentityProvider")
async def get_identity_provider(req: GetIdentityProviderRequest, ctx: Context) -> IdentityProvider:
    return public(await fetch(ctx.rt.db, req.uid))


@rpc(SERVICE + "ListIdentityProviders")
async def list_identity_providers(req: ListIdentityProvidersRequest, ctx: Context) -> ListIdentityProvidersResponse:
    where = listing.Where()
    listing.add_uidp_filter(where, req.uidp)
    if req.name is not UNSET:
        where.eq("name", req.name)
    page = await listing.page(ctx, TABLE, where, req)
    return ListIdentityProvidersResponse(
        identity_providers=[rows.decode(IdentityProvider, b) for b in page.bodies],
        next_page_token=page.next_page_token,
        total_count=str(page.total_count),
        skipped=page.skipped,
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
            return public(current)
        group = uidp.parent(idp.uid)
        if idp.default_role != current.default_role:
            await _check_default_role(tx, ctx, idp, group)
        idp.update_time = clock.now()
        result = public(idp)
        await rows.unique_write(
            tx, _conflict(idp.name),
            "UPDATE identity_providers SET name = $2, update_time = $3, body = $4, default_role = $5,"
            " client_secret = $6 WHERE uid = $1",
            idp.uid, idp.name, idp.update_time, rows.body(result), idp.default_role, _secret(idp),
        )  # fmt: skip
        await outbox.emit(tx, ctx, result)
    return result


@rpc(SERVICE + "DeleteIdentityProvider")
async def delete_identity_provider(req: DeleteIdentityProviderRequest, ctx: Context) -> Empty:
    async with ctx.rt.db.transaction() as tx:
        await fetch(tx, req.uid, lock=True)
        for table, column in ATTACHMENTS:
            await tx.execute(f"DELETE FROM {table} WHERE {column} = $1", req.uid)
        await tx.execute("DELETE FROM identity_providers WHERE uid = $1", req.uid)
        await outbox.emit(tx, ctx, req)
    return Empty()
