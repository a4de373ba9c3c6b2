"""First-run setup, local tokens and operator grants, for the command line: `platform-api bootstrap`,
`token` and `grant`.

Bootstrap creates, on a database without an owner, the first organization and an owner identity bound to
it, and mints a token for that identity. The identity is root-level (not confined to a group), so it may
also create further organizations. Running bootstrap again finds the existing owner instead of creating
a second one.
"""

from __future__ import annotations

import secrets
from typing import Any

from platform_api.auth import capabilities, matching
from platform_api.auth.issuer import mint
from platform_api.auth.tokens import ACCESS_TOKEN_SECONDS
from platform_api.core import clock, errors, uidp, validate
from platform_api.gen.records.iam_v2 import Group, Identity, Role
from platform_api.gen.records.iam_v2 import Identity_ClaimMatch as ClaimMatch
from platform_api.iam import groups, identities, queries, roles
from platform_api.store.db import Conn, Database


async def _existing_owner(db: Conn) -> tuple[str, str] | None:
    return await queries.first_root_binding(db, capabilities.OWNER.uid)


async def bootstrap(
    db: Database,
    issuer: str,
    audience: str,
    org_name: str,
    upstream_issuer: str = "",
    upstream_subject: str = "",
    ttl: int = ACCESS_TOKEN_SECONDS,
) -> dict[str, Any]:
    """{"organization", "identity", "token", "created"}."""
    validate.name(org_name, "org_name")
    await roles.seed_builtin(db)
    found = await _existing_owner(db)
    created = found is None
    if found is None:
        now = clock.now()
        org = Group(uid=secrets.token_hex(20), name=org_name, description="created by platform-api bootstrap",
                    create_time=now, update_time=now)  # fmt: skip
        if upstream_issuer and upstream_subject:
            uid = matching.user_uid(upstream_issuer, upstream_subject)
            relation = ClaimMatch(issuer=matching.normalize_issuer(upstream_issuer), subject=upstream_subject)
        else:
            uid, relation = secrets.token_hex(20), None
        owner = Identity(uid=uid, name="bootstrap-owner", description="first owner, created by platform-api bootstrap",
                         claim_match=relation, last_seen_time=now, create_time=now, update_time=now)  # fmt: skip
        async with db.transaction() as tx:
            if await _existing_owner(tx) is not None:
                raise errors.ApiError(errors.ABORTED, "another bootstrap ran concurrently; run it again")
            await groups.insert(tx, org, "")
            await identities.insert(tx, owner, "")
            await queries.insert_role_binding(tx, org.uid, owner.uid, capabilities.OWNER.uid, now)
        found = (org.uid, owner.uid)
    org_uid, identity_uid = found
    token = await mint(db, issuer, audience, identity_uid, ttl)
    return {"organization": org_uid, "identity": identity_uid, "token": token, "created": created}


_BUILTIN_NAMES = frozenset(name.casefold() for name in capabilities.BUILTIN_BY_NAME)


async def grant(db: Database, group: str, identity: str, role_name: str, names: list[str]) -> dict[str, Any]:
    """Bind `identity` at `group` to the group's role `role_name`, holding exactly the capabilities `names`
    (created if the group has no role of that name). The operator's way, with the database, to grant what no
    caller can pass on: nobody may grant a capability they do not hold, and no built-in role holds the
    advisory authoring ones (the vendor's internal tooling). A built-in role's name (in any
    case) is refused. As bootstrap, it emits no event.

    {"role", "binding", "createdRole"}."""
    validate.uid(group, "group")
    validate.uid(identity, "identity")
    if role_name.strip().casefold() in _BUILTIN_NAMES:
        # A custom role named like a built-in one would read, in every listing of bindings, as that role.
        raise errors.invalid_argument("role_name", f"{role_name!r} is the name of a built-in role: name another")
    bad = capabilities.unknown(names)
    if bad:
        raise errors.invalid_argument("capabilities", f"unknown capabilities: {', '.join(bad[:5])}")
    now = clock.now()
    role = Role(uid=uidp.new_child(group), name=role_name, description="created by platform-api grant",
                capabilities=capabilities.canonical(names), create_time=now, update_time=now)  # fmt: skip
    roles.check(role)
    async with db.transaction() as tx:
        await groups.require(tx, group, "group")
        if not await identities.exists(tx, identity):
            raise errors.not_found(identities.RESOURCE, identity)
        found = await roles.named(tx, group, role_name)
        if found is not None and sorted(found.capabilities) != sorted(role.capabilities):
            raise errors.already_exists(
                roles.RESOURCE, role_name, f"the group's role {role_name} holds other capabilities: name another"
            )
        if found is None:
            await roles.ROLES.insert(tx, role, group, name=role.name, capabilities=",".join(role.capabilities))
        bound = await queries.insert_role_binding(tx, group, identity, (found or role).uid, now)
    return {"role": (found or role).uid, "binding": bound.uid, "createdRole": found is None}
