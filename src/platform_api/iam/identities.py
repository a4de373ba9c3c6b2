"""IAM identities: /iam/v2/identities (IdentitiesService).

Assumable identities live under a group (`<group>/<16 hex>`) and are confined to its subtree; they are
assumed through token exchange by an upstream token their `claimMatch` accepts or their `staticKeys`
verify. User identities are root-level, with a uid derived from the upstream (issuer, subject)
(`lookupIdentity` tells it in advance so bindings can be made before the first login).
"""

from __future__ import annotations

from typing import Any

from platform_api.auth import authz, matching
from platform_api.core import clock, errors, fieldmask, uidp, validate
from platform_api.gen.records._base import Empty
from platform_api.gen.records.iam_v2 import (
    CreateIdentityRequest,
    DeleteIdentityRequest,
    GetIdentityRequest,
    Identity,
    IdentityMetadata,
    ListIdentitiesRequest,
    ListIdentitiesResponse,
    LookupIdentityRequest,
    LookupIdentityResponse,
    UpdateIdentityMetadataRequest,
    UpdateIdentityRequest,
)
from platform_api.iam import groups, queries, roles
from platform_api.outbox import outbox
from platform_api.service import crud, listing
from platform_api.service.cascade import Cascades
from platform_api.service.context import Context, rpc
from platform_api.store import rows
from platform_api.store.db import Conn

SERVICE = "chainguard.platform.iam.v2.IdentitiesService."
RESOURCE = "chainguard.platform.iam.v2.Identity"
TABLE = listing.Table("identities")
UPDATABLE = frozenset({"name", "description", "company", "claim_match", "static_keys"})
NONE, CLAIM_MATCH, STATIC = 0, 1, 2
_KINDS = {"RELATIONSHIP_TYPE_CLAIM_MATCH": CLAIM_MATCH, "RELATIONSHIP_TYPE_STATIC": STATIC}


def kind(identity: Identity) -> int:
    if identity.claim_match is not None:
        return CLAIM_MATCH
    return STATIC if identity.static_keys is not None else NONE


def check(identity: Identity, ctx: Context) -> Identity:
    """Validated, with static keys normalized (expiration defaulted and capped)."""
    validate.name(identity.name)
    validate.description(identity.description)
    validate.description(identity.company, "company")
    if identity.claim_match is not None and identity.static_keys is not None:
        raise errors.invalid_argument("relationship", "set exactly one of claim_match and static_keys")
    if identity.claim_match is None and identity.static_keys is None:
        raise errors.invalid_argument("relationship", "one of claim_match and static_keys is required")
    loopback = ctx.rt.settings.insecure_allow_loopback
    if identity.claim_match is not None:
        matching.check_claim_match(identity.claim_match)
        issuer = identity.claim_match.issuer
        if isinstance(issuer, str) and issuer:
            issuer = matching.normalize_issuer(issuer)
            if not matching.url_allowed(issuer, loopback):
                raise errors.invalid_argument("claim_match.issuer", "issuer must be an https:// URL")
            identity.claim_match.issuer = issuer
    if identity.static_keys is not None:
        identity.static_keys = matching.check_static_keys(identity.static_keys)
    return identity


IDENTITIES = crud.Resource("identities", Identity, RESOURCE, outbox.emit)


def _columns(identity: Identity) -> dict[str, Any]:
    issuer, subject = match_keys(identity)
    return {"name": identity.name, "kind": kind(identity), "match_issuer": issuer, "match_subject": subject}


async def fetch(conn: Conn, uid: str, lock: bool = False) -> Identity:
    return await IDENTITIES.get(conn, uid, lock=lock)


# This module owns the identities table (see iam/queries.py for the rule): the token exchange, role
# bindings, authorization and the CLI read it through these.


async def exists(conn: Conn, uid: str) -> bool:
    return await conn.fetchval("SELECT 1 FROM identities WHERE uid = $1", uid) is not None


async def find(conn: Conn, uid: str) -> Identity | None:
    """The identity, or None."""
    body = await conn.fetchval("SELECT body FROM identities WHERE uid = $1", uid)
    return None if body is None else rows.decode(Identity, body)


async def matching_keys(conn: Conn, issuer: str, subject: str, limit: int) -> list[Identity]:
    """Identities whose relationship may accept a token of `issuer` and `subject` (exactly or by pattern),
    by uid, at most `limit`."""
    found = await conn.fetch(
        "SELECT body FROM identities WHERE match_issuer IN ($1, '*') AND match_subject IN ($2, '*')"
        f" ORDER BY uid LIMIT {int(limit)}",
        issuer, subject,
    )  # fmt: skip
    return [rows.decode(Identity, r["body"]) for r in found]


async def save_body(tx: Conn, identity: Identity) -> None:
    """Store the record's fields that no index holds (last_seen_time, company)."""
    await tx.execute("UPDATE identities SET body = $2 WHERE uid = $1", identity.uid, rows.body(identity))


async def bodies(conn: Conn, uids: set[str]) -> dict[str, str]:
    """uid -> stored body of those that exist."""
    return await rows.bodies(conn, "identities", uids)


def match_keys(identity: Identity) -> tuple[str, str]:
    """The (issuer, subject) an upstream token must carry to be accepted, '*' where a pattern decides."""
    cm, sk = identity.claim_match, identity.static_keys
    if cm is not None:
        return (cm.issuer if isinstance(cm.issuer, str) and cm.issuer else "*",
                cm.subject if isinstance(cm.subject, str) and cm.subject else "*")  # fmt: skip
    if sk is not None:
        return sk.issuer, sk.subject
    return "", ""


async def insert(conn: Conn, identity: Identity, parent: str) -> None:
    issuer, subject = match_keys(identity)
    await IDENTITIES.insert(
        conn, identity, parent, conflict=errors.already_exists(RESOURCE, identity.uid, "the identity already exists"),
        name=identity.name, kind=kind(identity), match_issuer=issuer, match_subject=subject,
    )  # fmt: skip


@rpc(SERVICE + "CreateIdentity")
async def create_identity(req: CreateIdentityRequest, ctx: Context) -> Identity:
    given = req.identity or Identity()
    now = clock.now()
    identity = Identity(
        uid=uidp.new_child(req.parent),
        name=given.name,
        description=given.description,
        company=given.company,
        claim_match=given.claim_match,
        static_keys=given.static_keys,
        last_seen_time=now,
        create_time=now,
        update_time=now,
    )
    identity = check(identity, ctx)
    async with ctx.rt.db.transaction() as tx:
        await groups.require(tx, req.parent, "parent")
        await insert(tx, identity, req.parent)
        await outbox.emit(tx, ctx, identity)
    return identity


@rpc(SERVICE + "GetIdentity")
async def get_identity(req: GetIdentityRequest, ctx: Context) -> Identity:
    return await fetch(ctx.rt.db, req.uid)


@rpc(SERVICE + "ListIdentities")
async def list_identities(req: ListIdentitiesRequest, ctx: Context) -> ListIdentitiesResponse:
    where = listing.filters(req, name="name")
    if req.relationship_type in _KINDS:
        where.eq("kind", _KINDS[req.relationship_type])
    return await listing.answer(ctx, TABLE, where, req, ListIdentitiesResponse, "identities", Identity)


@rpc(SERVICE + "UpdateIdentity")
async def update_identity(req: UpdateIdentityRequest, ctx: Context) -> Identity:
    patch = req.identity or Identity()

    def checked(identity: Identity) -> None:
        # The relationship is a oneof: setting one member clears the other.
        if patch.claim_match is not None and identity.claim_match is not None and identity.static_keys is not None:
            identity.static_keys = None
        elif patch.static_keys is not None and identity.static_keys is not None and identity.claim_match is not None:
            identity.claim_match = None
        check(identity, ctx)

    async def relationship(tx: Conn, current: Identity, identity: Identity) -> None:
        if (identity.claim_match, identity.static_keys) != (current.claim_match, current.static_keys):
            # Changing who can act as an identity is acting as it: it needs everything the identity holds.
            bound = await roles.held_through(tx, await queries.binding_roles(tx, identity.uid))
            held = authz.grants_of(identity.uid, bound)
            authz.caller(ctx).check_obtainable(held, "changing how this identity logs in would hand over")

    return await IDENTITIES.update_rpc(
        ctx, patch, req.update_mask, UPDATABLE, check=checked, before=relationship, columns=_columns
    )


async def any_in_group(conn: Conn, group: str) -> bool:
    return await IDENTITIES.any_where(conn, "parent", group)


@rpc(SERVICE + "DeleteIdentity")
async def delete_identity(req: DeleteIdentityRequest, ctx: Context) -> Empty:
    """What names the identity (its role bindings, its refresh tokens: service.cascade) goes with it."""
    async with ctx.rt.db.transaction() as tx:
        await fetch(tx, req.uid, lock=True)
        await ctx.rt.part(Cascades).remove(tx, "identity", req.uid)
        await IDENTITIES.delete(tx, req.uid)
        await outbox.emit(tx, ctx, req)
    ctx.rt.grants_changed()
    return Empty()


@rpc(SERVICE + "LookupIdentity")
async def lookup_identity(req: LookupIdentityRequest, ctx: Context) -> LookupIdentityResponse:
    if not req.issuer:
        raise errors.invalid_argument("issuer", "issuer is required")
    if not req.subject:
        raise errors.invalid_argument("subject", "subject is required")
    return LookupIdentityResponse(uid=matching.user_uid(req.issuer, req.subject))


@rpc(SERVICE + "UpdateIdentityMetadata")
async def update_identity_metadata(req: UpdateIdentityMetadataRequest, ctx: Context) -> IdentityMetadata:
    patch = req.identity_metadata or IdentityMetadata()
    async with ctx.rt.db.transaction() as tx:
        identity = await fetch(tx, ctx.subject, lock=True)
        current = IdentityMetadata(uid=identity.uid, name=identity.name, company=identity.company)
        # Only `company` is kept; the reference's marketing fields are not ours to store.
        updated = fieldmask.apply(current, patch, req.update_mask, frozenset({"company"}))
        validate.description(updated.company, "company")
        if updated.company != identity.company:
            identity.company = updated.company
            identity.update_time = clock.now()
            await tx.execute(
                "UPDATE identities SET update_time = $2, body = $3 WHERE uid = $1",
                identity.uid, identity.update_time, rows.body(identity),
            )  # fmt: skip
    return IdentityMetadata(uid=identity.uid, name=identity.name, company=identity.company)


def binding_view(identity: Identity) -> dict[str, Any]:
    """The identity as a role binding shows it: issuer and subject from its relationship."""
    issuer = subject = ""
    if identity.claim_match is not None:
        issuer = identity.claim_match.issuer or identity.claim_match.issuer_pattern or ""  # type: ignore[assignment]
        subject = identity.claim_match.subject or identity.claim_match.subject_pattern or ""  # type: ignore[assignment]
    elif identity.static_keys is not None:
        issuer, subject = identity.static_keys.issuer, identity.static_keys.subject
    return {"uid": identity.uid, "name": identity.name, "description": identity.description,
            "subject": subject, "issuer": issuer, "email": identity.email}  # fmt: skip
