"""`bootstrap`, `token`, `grant`, `keys`: the operator's way in, with the database: the first organization and
owner, tokens from the stored signing keys, grants no caller can pass on, and the signing keys themselves."""

from __future__ import annotations

import sys
from typing import Any

from platform_api.auth import issuer, keys
from platform_api.cli.common import (
    Invocation,
    database_option,
    emit,
    group_option,
    group_uid,
    issuer_options,
    output_format,
    with_database,
)
from platform_api.core import errors
from platform_api.iam import identities
from platform_api.signin import bootstrap
from platform_api.store.db import Database


def register(sub: Any) -> None:
    boot = sub.add_parser("bootstrap", help="create the first organization and owner; print a token for it")
    boot.set_defaults(run=bootstrap_command)
    database_option(boot)
    issuer_options(boot)
    boot.add_argument("--org-name", default="my-org", help="name of the first organization (default my-org)")
    boot.add_argument("--upstream-issuer", default="", help="let the owner also log in with tokens of this issuer")
    boot.add_argument("--upstream-subject", default="", help="... carrying this subject")
    # --format, its older name, kept for the scripts that use it (`--format env`).
    output_format(boot, "env", aliases=["--format"])

    tok = sub.add_parser("token", help="mint an access token for an identity, from the stored signing keys")
    tok.set_defaults(run=token_command)
    database_option(tok)
    issuer_options(tok)
    tok.add_argument("--identity", required=True, help="identity uid (the token's subject)")
    tok.add_argument("--ttl", type=int, default=3600, help="lifetime in seconds (default 3600)")

    grant = sub.add_parser(
        "grant",
        help="bind an identity at a group to a role of the given capabilities (created if the group lacks it)",
        description="The operator's grant, with the database: what no caller can pass on (nobody grants a"
        " capability they do not hold), e.g. advisories.create, advisories.update, advisories.delete,"
        " advisories.approve for the v1 advisory authoring calls. Prints {role, binding, createdRole}.",
    )
    grant.set_defaults(run=grant_command)
    database_option(grant)
    group_option(grant, "the group where the role lives and is bound")
    grant.add_argument("--identity", required=True, help="identity uid to bind")
    grant.add_argument("--role-name", required=True, help="the group's role to bind (created if missing)")
    grant.add_argument("capabilities", nargs="+", help="capability names, friendly (advisories.create) or enum")
    output_format(grant)

    keys_parser = sub.add_parser("keys", help="manage the issuer's signing keys")
    actions = keys_parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    rotate = actions.add_parser("rotate", help="start signing with a new key; the old ones keep verifying")
    listing = actions.add_parser("ls", aliases=["list"], help="the keys, with their creation and retirement times")
    for p in (rotate, listing):
        p.set_defaults(run=keys_command)
        database_option(p)
        output_format(p)


def bootstrap_command(inv: Invocation) -> None:
    """`bootstrap`: the first organization and its owner (or the existing owner), with a fresh token."""
    out = with_database(inv.settings, lambda db, _: _bootstrap(db, inv))
    print(("created" if out.pop("created") else "already bootstrapped; existing") + " owner", file=sys.stderr)
    if inv.args.output == "env":
        # Exported: the README's next steps run programs (the Python client, platformctl) that read them.
        print(f"export ORG={out['organization']}\nexport ME={out['identity']}\nexport TOKEN={out['token']}")
    else:
        emit(out, inv.args.output)


def token_command(inv: Invocation) -> None:
    """`token`: prints an access token for an identity, signed with the stored keys (the token alone: no -o)."""
    print(with_database(inv.settings, lambda db, _: _token(db, inv)))


def grant_command(inv: Invocation) -> None:
    """`grant`: the operator binds an identity to a role of any capabilities (iam.bootstrap.grant)."""
    ns = inv.args

    async def run(db: Database, _: list[str]) -> dict[str, Any]:
        group = await group_uid(db, ns.group)
        return await bootstrap.grant(db, group, ns.identity, ns.role_name, ns.capabilities)

    emit(with_database(inv.settings, run), ns.output)


def keys_command(inv: Invocation) -> None:
    """`keys rotate|ls`: starts signing with a new key, or lists the keys."""
    emit(with_database(inv.settings, lambda db, _: _keys(db, inv.args.action)), inv.args.output)


async def _bootstrap(db: Database, inv: Invocation) -> dict[str, Any]:
    """Creates (or finds) the owner under the issuer the server last started with, unless one is given."""
    ns = inv.args
    url = await issuer.issuer_of(db, inv.settings, inv.explicit_url)
    audience = inv.settings.audience or url
    return await bootstrap.bootstrap(db, url, audience, ns.org_name, ns.upstream_issuer, ns.upstream_subject)


async def _token(db: Database, inv: Invocation) -> str:
    """Mints a token for an existing identity (an unknown one is a not-found error)."""
    ns = inv.args
    if not await identities.exists(db, ns.identity):
        raise errors.not_found("chainguard.platform.iam.v2.Identity", ns.identity)
    url = await issuer.issuer_of(db, inv.settings, inv.explicit_url)
    return await issuer.mint(db, url, inv.settings.audience or url, ns.identity, ns.ttl)


async def _keys(db: Database, action: str) -> Any:
    """rotate: the new signing key's id; ls: every key with its creation and retirement times."""
    if action == "rotate":
        return {"signing": await keys.create(db)}
    rows = await keys.listing(db)
    return [{"kid": r["kid"], "createTime": r["create_time"], "retireTime": r["retire_time"] or None} for r in rows]
