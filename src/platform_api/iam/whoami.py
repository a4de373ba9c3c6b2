"""WhoAmI (`GET /auth/v1/ok`): what the caller's access token says and what it may do.

`{issuer, subject, audience[], expiry, issuedAt, capabilities: [{group: {id, name, description}, role: {id,
name, description, capabilities}, capabilities: [names]}], email, profile: {name}}`: one entry per role binding
of the caller and per session grant its token carries (an external group mapping's role, for this login
only), as far as the token reaches: at the token's scopes where they lie below the grant, none outside them,
and the role's capabilities within the token's `cap` (an entry left with none is not shown); the group and
role as the v1 messages show them. Bounded: at most MAX_ENTRIES entries (RESOURCE_EXHAUSTED
beyond, which no real identity reaches).
"""

from __future__ import annotations

import msgspec

from platform_api.auth import authz
from platform_api.auth import capabilities as caps
from platform_api.auth.authz import Principal
from platform_api.core import clock, errors
from platform_api.gen.records._base import Empty
from platform_api.gen.records.auth import Profile, WhoAmI, WhoAmI_Capability
from platform_api.gen.records.iam import Group, Role
from platform_api.iam import groups, identities, queries, roles
from platform_api.service.context import Context, rpc
from platform_api.store.db import Conn

MAX_ENTRIES = 1000


async def whoami(db: Conn, principal: Principal) -> WhoAmI:
    claims = principal.claims
    raw = claims.raw if claims is not None else {}
    pairs = await queries.binding_roles(db, principal.subject)
    if claims is not None:
        pairs += [p for p in claims.grants if p not in pairs]
    if len(pairs) > MAX_ENTRIES:
        raise errors.answer_too_large(MAX_ENTRIES, "capability entries", "narrow the token with scopes")
    # What this token may do: each grant where it holds (the identity's home and the token's scopes clip it),
    # with the capabilities the token's `cap` leaves; nothing of groups or roles beyond that.
    placed = sorted({(at, role) for group, role in pairs for at in principal.reach(group)})
    group_bodies = await groups.bodies(db, {g for g, _ in placed})
    role_bodies = await roles.bodies(db, {r for _, r in placed})
    names = await roles.capabilities_of(db, {r for _, r in placed})
    entries = []
    for group, role in placed:
        if group not in group_bodies or role not in role_bodies:
            continue  # deleted since: nothing held through it
        usable = caps.mask(n for n in names.get(role, "").split(",") if n) & principal.limit
        if not usable:
            continue
        g, r = msgspec.json.decode(group_bodies[group]), msgspec.json.decode(role_bodies[role])
        # Friendly names (`repo.list`), as tokens, v1 roles and chainctl name them.
        held = [caps.FRIENDLY.get(n, n) for n in caps.names(usable)]
        entries.append(
            WhoAmI_Capability(
                group=Group(id=group, name=g.get("name", ""), description=g.get("description", "")),
                role=Role(id=role, name=r.get("name", ""), description=r.get("description", ""), capabilities=held),
                capabilities=held,
            )
        )
    identity = await identities.find(db, principal.subject)
    aud = raw.get("aud")
    return WhoAmI(
        issuer=str(raw.get("iss", "")),
        subject=principal.subject,
        audience=[aud] if isinstance(aud, str) else [str(a) for a in aud or []],
        expiry=clock.from_epoch(float(raw["exp"])) if "exp" in raw else None,
        issued_at=clock.from_epoch(float(raw["iat"])) if "iat" in raw else None,
        capabilities=entries,
        email=identity.email if identity is not None else "",
        profile=Profile(name=identity.name) if identity is not None and identity.name else None,
    )


@rpc("chainguard.platform.auth.Auth.Validate")
async def validate(request: Empty, ctx: Context) -> WhoAmI:
    return await whoami(ctx.rt.db, authz.caller(ctx))
