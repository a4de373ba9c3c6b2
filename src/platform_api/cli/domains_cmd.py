"""`domains verify|challenge|check|ls|rm|requests`: an organization's e-mail domains (signin/domains.py) and the
access requests made to it."""

from __future__ import annotations

from typing import Any

from platform_api.cli.common import (
    CliError,
    Invocation,
    database_option,
    emit,
    group_option,
    group_uid,
    output_format,
    with_database,
)
from platform_api.ctl import exit_codes
from platform_api.signin import domains
from platform_api.store.db import Database

# (action, aliases, help): the verbs and their aliases are platformctl's (ls/list, rm/delete).
ACTIONS: tuple[tuple[str, list[str], str], ...] = (
    ("verify", [], "verify a domain for an organization on the operator's word (no DNS)"),
    ("challenge", [], "print the DNS TXT record that proves a domain (platform-api-verification=<token>)"),
    ("check", [], "resolve the domain's TXT records; verify it when the challenge's record is there"),
    ("ls", ["list"], "list domains (of one organization with --group)"),
    ("rm", ["delete"], "remove a domain (verified or not) from an organization"),
    ("requests", [], "list the access requests to an organization, newest first"),
)
_LISTINGS = ("ls", "list", "requests")


def register(sub: Any) -> None:
    dom = sub.add_parser("domains", help="e-mail domains of organizations (joining by e-mail domain)")
    acts = dom.add_subparsers(dest="action", required=True, metavar="ACTION")
    for action, aliases, text in ACTIONS:
        one = acts.add_parser(action, aliases=aliases, help=text, description=text)
        one.set_defaults(run=domains_command, verb=action)
        database_option(one)
        group_option(one, "the organization", required=action != "ls")
        if action not in _LISTINGS:
            # Not `domain`: that is a setting's name, which the invocation would take the flag for.
            one.add_argument("--domain", dest="email_domain", required=True, help="e.g. example.com")
        if action in ("verify", "challenge", "check"):
            one.add_argument("--blocked-email-domains", help="as serve's: domains refused besides the built-in list")
        if action == "check":
            one.add_argument("--nameserver", action="append", help="resolve with this server (repeatable; default:"
                             " the system's resolver)")  # fmt: skip
            one.add_argument("--dns-port", type=int, default=53, help="the name servers' port (default 53)")
            one.add_argument("--dns-timeout", type=float, default=domains.DNS_TIMEOUT, help="seconds (default 5)")
        output_format(one)


def domains_command(inv: Invocation) -> None:
    """`domains ...`: prints the domain(s) or requests; a refusal is one line (exit 1; 5 for what is not there)."""
    ns = inv.args
    blocked = domains.blocked_domains(inv.settings.blocked_email_domains)

    async def run(database: Database, _: list[str]) -> Any:
        group = await group_uid(database, ns.group) if ns.group else ""
        if ns.verb == "verify":
            return await domains.verify(database, group, ns.email_domain, blocked)
        if ns.verb == "challenge":
            return await domains.challenge(database, group, ns.email_domain, blocked)
        if ns.verb == "check":
            resolve = domains.dns_resolver(ns.nameserver or [], ns.dns_port, ns.dns_timeout)
            return await domains.check(database, group, ns.email_domain, blocked, resolve)
        if ns.verb == "rm":
            if not await domains.remove(database, group, ns.email_domain):
                raise CliError(f"no domain {ns.email_domain} at {ns.group}", exit_codes.NOT_FOUND)
            return {}
        if ns.verb == "requests":
            return await domains.requests(database, group)
        return await domains.listing(database, group)

    try:
        found = with_database(inv.settings, run)
    except domains.DomainError as e:
        raise CliError(str(e)) from None
    emit(found, ns.output)
