"""The command line: `platform-api serve | dispatch | migrate | bootstrap | token | keys | domains | routes | import
<kind>`."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import socket
import sys
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from importlib import metadata
from typing import Any, TypeVar

from platform_api.api import fd_budget, front_process, routes_listing, schema
from platform_api.app import IMPORTERS, create_app
from platform_api.auth import issuer, keys
from platform_api.core import errors, logs, parent
from platform_api.core.errors import ApiError
from platform_api.core.settings import InvalidSetting, Settings
from platform_api.events import dispatcher
from platform_api.iam import account_association_check, identities
from platform_api.registry.dataplane import config as registry_config
from platform_api.service import imports
from platform_api.service.runtime import Runtime
from platform_api.signin import bootstrap, domains, login
from platform_api.store import connect_failure, db
from platform_api.store.db import Database
from platform_api.store.errors import CannotConnect, Unavailable
from platform_api.store.migrate import migrate

T = TypeVar("T")
# HTTP: a connection that has not sent a whole request head this long after connecting or after its last
# answer is closed (Granian's header-read timeout, its default; Granian allows at most 60 s). A shorter
# `idle_timeout` lowers it.
HTTP_IDLE_MAX = 30.0


def _database(p: argparse.ArgumentParser) -> None:
    """--database, which every command takes."""
    p.add_argument(
        "--database",
        dest="database_url",
        help="sqlite:///path (default sqlite:///platform-api.db) or postgresql://...; env PLATFORM_API_DATABASE_URL",
    )


def _issuer(p: argparse.ArgumentParser) -> None:
    """--public-url and --audience, for the commands that issue or check tokens."""
    p.add_argument("--public-url", help="external base URL of this service, the issuer of its tokens")
    p.add_argument("--audience", help="audience of access tokens (default: the public URL)")


def _parser() -> argparse.ArgumentParser:
    """Every command's options; each subparser names the function that runs it (`run`)."""
    parser = argparse.ArgumentParser(prog="platform-api", description="Platform Management API v2 server")
    parser.add_argument("--version", action="version", version=f"platform-api {metadata.version('platform-api')}")
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="run the HTTP/JSON and gRPC server")
    serve.set_defaults(run=serve_command)
    _database(serve)
    _issuer(serve)
    serve.add_argument(
        "--host",
        dest="http_host",
        help="listen address of HTTP and gRPC (default 0.0.0.0); env PLATFORM_API_HTTP_HOST, and "
        "PLATFORM_API_GRPC_HOST for gRPC's alone",
    )
    serve.add_argument(
        "--port",
        type=int,
        help="one public port for HTTP/1.1 JSON and gRPC (h2c), spliced per connection to the two listeners, "
        "which then listen on loopback unless --http-port/--grpc-port are given; env PLATFORM_API_PORT",
    )
    serve.add_argument("--http-port", type=int, help="HTTP/JSON port (default 8080)")
    serve.add_argument("--grpc-port", type=int, help="gRPC port (default 9090)")
    serve.add_argument("--workers", type=int, default=1, help="HTTP worker processes (default 1)")
    serve.add_argument("--no-grpc", action="store_true", help="do not start the gRPC listener")
    serve.add_argument(
        "--trusted-issuer",
        action="append",
        dest="trusted_issuer_list",
        help="upstream OIDC issuer trusted for user logins and invite redemption (repeatable)",
    )
    serve.add_argument(
        "--insecure-allow-loopback",
        action="store_true",
        default=None,
        help="DEVELOPMENT ONLY: allow http:// issuers and webhook sinks on loopback addresses",
    )
    login.arguments(serve)

    serve.add_argument(
        "--sts-rate",
        type=float,
        help="token exchange/registration requests per second per client address and per identity "
        "(default 10, 0 disables); env PLATFORM_API_STS_RATE",
    )
    serve.add_argument(
        "--sts-burst", type=int, help="... and the burst allowed above it (default 60); env PLATFORM_API_STS_BURST"
    )
    serve.add_argument(
        "--anon-rate",
        type=float,
        help="requests per second per client address to the routes that need no token "
        "(default 20, 0 disables); env PLATFORM_API_ANON_RATE",
    )
    serve.add_argument(
        "--anon-burst", type=int, help="... and the burst allowed above it (default 100); env PLATFORM_API_ANON_BURST"
    )
    serve.add_argument(
        "--blocked-email-domains",
        help="comma-separated e-mail domains never eligible to join an organization, added to the built-in"
        " free-mail list; env PLATFORM_API_BLOCKED_EMAIL_DOMAINS",
    )
    serve.add_argument(
        "--access-request-cooldown",
        type=float,
        help="seconds before a caller may ask the same organization for access again (default 86400, 0: no"
        " cool-down); env PLATFORM_API_ACCESS_REQUEST_COOLDOWN",
    )
    serve.add_argument(
        "--no-dispatcher",
        action="store_true",
        help="do not deliver events from this process (run `platform-api dispatch`); env PLATFORM_API_DISPATCHER",
    )
    account_association_check.arguments(serve)

    disp = sub.add_parser("dispatch", help="deliver outbox events to subscriptions (the dispatcher alone)")
    disp.set_defaults(run=dispatch_command)
    _database(disp)
    _issuer(disp)
    disp.add_argument(
        "--insecure-allow-loopback",
        action="store_true",
        default=None,
        help="DEVELOPMENT ONLY: allow webhook sinks on loopback addresses",
    )

    mig = sub.add_parser("migrate", help="apply pending database migrations and exit")
    mig.set_defaults(run=migrate_command)
    _database(mig)

    boot = sub.add_parser("bootstrap", help="create the first organization and owner; print a token for it")
    boot.set_defaults(run=bootstrap_command)
    _database(boot)
    _issuer(boot)
    boot.add_argument("--org-name", default="my-org", help="name of the first organization (default my-org)")
    boot.add_argument("--upstream-issuer", default="", help="let the owner also log in with tokens of this issuer")
    boot.add_argument("--upstream-subject", default="", help="... carrying this subject")
    boot.add_argument("--format", choices=["json", "env"], default="json",
                      help="json (default) or env: `export ORG=...` (ME, TOKEN) lines for a shell's eval")  # fmt: skip

    tok = sub.add_parser("token", help="mint an access token for an identity, from the stored signing keys")
    tok.set_defaults(run=token_command)
    _database(tok)
    _issuer(tok)
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
    _database(grant)
    grant.add_argument("--group", required=True, help="group uid where the role lives and is bound")
    grant.add_argument("--identity", required=True, help="identity uid to bind")
    grant.add_argument("--role-name", required=True, help="the group's role to bind (created if missing)")
    grant.add_argument("capabilities", nargs="+", help="capability names, friendly (advisories.create) or enum")

    keys = sub.add_parser("keys", help="manage the issuer's signing keys")
    keys.set_defaults(run=keys_command)
    _database(keys)
    keys.add_argument("action", choices=["rotate", "list"], help="rotate: new signing key, old ones keep verifying")

    reg = sub.add_parser("registry-config", help=registry_config.HELP, description=registry_config.DESCRIPTION)
    reg.set_defaults(run=registry_config_command)
    _database(reg)
    _issuer(reg)
    registry_config.arguments(reg)

    _domains_parser(sub)

    rts = sub.add_parser("routes", help=routes_listing.HELP, description=routes_listing.HELP)
    rts.set_defaults(run=routes_command)
    routes_listing.arguments(rts)

    imp = sub.add_parser("import", help="import security data from files in their published formats")
    kinds = imp.add_subparsers(dest="kind", required=True)
    for kind, importer in IMPORTERS.items():
        one = kinds.add_parser(kind, help=importer.HELP, description=importer.HELP)
        one.set_defaults(run=import_command, importer=importer)
        _database(one)
        importer.arguments(one)
    return parser


def _domains_parser(sub: Any) -> None:
    """`domains verify|challenge|check|ls|rm|requests`: an organization's e-mail domains (iam/domains.py)."""
    dom = sub.add_parser("domains", help="e-mail domains of organizations (joining by e-mail domain)")
    acts = dom.add_subparsers(dest="action", required=True)
    helps = {
        "verify": "verify a domain for an organization on the operator's word (no DNS)",
        "challenge": "print the DNS TXT record that proves a domain (platform-api-verification=<token>)",
        "check": "resolve the domain's TXT records; verify it when the challenge's record is there",
        "ls": "list domains (of one organization with --group)",
        "rm": "remove a domain (verified or not) from an organization",
        "requests": "list the access requests to an organization, newest first",
    }
    for action, text in helps.items():
        one = acts.add_parser(action, help=text, description=text)
        one.set_defaults(run=domains_command)
        _database(one)
        one.add_argument("--group", required=action != "ls", default="", help="the organization (root group uid)")
        if action not in ("ls", "requests"):
            # Not `domain`: that is a setting's name, which _invocation would take the flag for.
            one.add_argument("--domain", dest="email_domain", required=True, help="e.g. example.com")
        if action in ("verify", "challenge", "check"):
            one.add_argument("--blocked-email-domains", help="as serve's: domains refused besides the built-in list")
        if action == "check":
            one.add_argument("--nameserver", action="append", help="resolve with this server (repeatable; default:"
                             " the system's resolver)")  # fmt: skip
            one.add_argument("--dns-port", type=int, default=53, help="the name servers' port (default 53)")
            one.add_argument("--dns-timeout", type=float, default=domains.DNS_TIMEOUT, help="seconds (default 5)")


@dataclass
class Invocation:
    """What every command starts from: its parsed arguments and the settings they and the environment give."""

    args: argparse.Namespace
    settings: Settings
    overrides: dict[str, Any]  # the settings given as flags (serve's --port keeps these listeners where asked)
    explicit_url: bool  # --public-url or PLATFORM_API_PUBLIC_URL given, rather than the recorded issuer


def _invocation(ns: argparse.Namespace) -> Invocation:
    """Settings from the environment, overridden by the flags given (unset flags leave the environment's)."""
    overrides = {k: v for k, v in vars(ns).items() if k in Settings.__dataclass_fields__ and v is not None}
    if getattr(ns, "trusted_issuer_list", None):
        overrides["trusted_issuers"] = ",".join(ns.trusted_issuer_list)
    if getattr(ns, "login_console_origin_list", None):
        overrides["login_console_origins"] = ",".join(ns.login_console_origin_list)
    if getattr(ns, "no_grpc", False):
        overrides["grpc_enabled"] = False
    if getattr(ns, "no_dispatcher", False):
        overrides["dispatcher"] = False
    settings = Settings.from_env(**overrides)
    explicit_url = "public_url" in overrides or "PLATFORM_API_PUBLIC_URL" in os.environ
    return Invocation(ns, settings, overrides, explicit_url)


def main(argv: list[str] | None = None) -> None:
    """Entry point (`platform-api`): parses the command line and runs the chosen command's function."""
    ns = _parser().parse_args(argv)
    try:
        ns.run(_invocation(ns))
    except (CannotConnect, Unavailable) as e:  # one line (what, where, what to do), not the driver's traceback
        sys.exit(f"{_command(ns)}: {e}")
    except InvalidSetting as e:  # one line naming the setting and what it expects (its text says "platform-api")
        sys.exit(str(e))


def _command(ns: argparse.Namespace) -> str:
    """The command as given, e.g. `platform-api import sbom`, `platform-api domains ls`."""
    words = [ns.command, getattr(ns, "kind", None), getattr(ns, "action", None) if ns.command == "domains" else None]
    return " ".join(["platform-api", *(w for w in words if w)])


def serve_command(inv: Invocation) -> None:
    """`serve`: both listeners (and with --port the one public port in front), the dispatcher, migrations first."""
    settings = inv.settings
    settings.grpc_host = settings.grpc_bind_host  # --host for both listeners unless PLATFORM_API_GRPC_HOST
    if settings.port:
        _internal_listeners(settings, inv.overrides)
    if not inv.explicit_url:
        settings.public_url = f"http://localhost:{settings.port or settings.http_port}"
    _serve(settings, inv.args.workers)


def dispatch_command(inv: Invocation) -> None:
    """`dispatch`: delivers outbox events alone, until stopped."""
    settings = inv.settings
    logs.configure(settings.log_level)
    asyncio.run(dispatcher.run(settings, inv.explicit_url))


def migrate_command(inv: Invocation) -> None:
    """`migrate`: applies pending migrations and prints their names as JSON."""

    async def applied_only(db: Database, applied: list[str]) -> list[str]:
        """Nothing to do beyond the migrations `_with_database` applies."""
        return applied

    print(json.dumps({"applied": _with_database(inv.settings, applied_only)}))


def bootstrap_command(inv: Invocation) -> None:
    """`bootstrap`: the first organization and its owner (or the existing owner), with a fresh token."""
    out = _with_database(inv.settings, lambda db, _: _bootstrap(db, inv))
    print(("created" if out.pop("created") else "already bootstrapped; existing") + " owner", file=sys.stderr)
    if inv.args.format == "env":
        # Exported: the README's next steps run programs (the Python client, platformctl) that read them.
        print(f"export ORG={out['organization']}\nexport ME={out['identity']}\nexport TOKEN={out['token']}")
    else:
        print(json.dumps(out))


def token_command(inv: Invocation) -> None:
    """`token`: prints an access token for an identity, signed with the stored keys."""
    print(_with_database(inv.settings, lambda db, _: _token(db, inv)))


def grant_command(inv: Invocation) -> None:
    """`grant`: the operator binds an identity to a role of any capabilities (iam.bootstrap.grant)."""
    ns = inv.args
    out = _with_database(
        inv.settings, lambda db, _: bootstrap.grant(db, ns.group, ns.identity, ns.role_name, ns.capabilities)
    )
    print(json.dumps(out))


def keys_command(inv: Invocation) -> None:
    """`keys rotate|list`: starts signing with a new key, or lists the keys, as JSON."""
    print(json.dumps(_with_database(inv.settings, lambda db, _: _keys(db, inv.args.action))))


def registry_config_command(inv: Invocation) -> None:
    """`registry-config`: registry.dataplane.config.write with this server's issuer and registry service."""

    async def run(database: Database, _: list[str]) -> dict[str, str]:
        iss = await issuer.issuer_of(database, inv.settings, inv.explicit_url)
        return await registry_config.from_arguments(database, inv.args, inv.settings, iss)

    print(json.dumps(_with_database(inv.settings, run)))


def domains_command(inv: Invocation) -> None:
    """`domains ...`: prints the domain(s) or requests as JSON; a refusal exits 1 with its reason."""
    ns = inv.args
    blocked = domains.blocked_domains(inv.settings.blocked_email_domains)

    async def run(database: Database, _: list[str]) -> Any:
        if ns.action == "verify":
            return await domains.verify(database, ns.group, ns.email_domain, blocked)
        if ns.action == "challenge":
            return await domains.challenge(database, ns.group, ns.email_domain, blocked)
        if ns.action == "check":
            resolve = domains.dns_resolver(ns.nameserver or [], ns.dns_port, ns.dns_timeout)
            return await domains.check(database, ns.group, ns.email_domain, blocked, resolve)
        if ns.action == "rm":
            if not await domains.remove(database, ns.group, ns.email_domain):
                raise domains.DomainError(f"no domain {ns.email_domain} at {ns.group}")
            return {}
        if ns.action == "requests":
            return await domains.requests(database, ns.group)
        return await domains.listing(database, ns.group)

    try:
        print(json.dumps(_with_database(inv.settings, run)))
    except domains.DomainError as e:
        sys.exit(f"platform-api domains {ns.action}: {e}")


def routes_command(inv: Invocation) -> None:
    """`routes`: the app assembled (no database, no listener), its routes listed (api/routes_listing.py)."""
    print(routes_listing.render(routes_listing.lines(create_app(inv.settings)), inv.args.output))


def import_command(inv: Invocation) -> None:
    """`import <kind>`: one importer over one input; prints the JSON summary. Exit 0 when everything was
    applied, 3 when some units were rejected (the summary says which), 1 when the input was refused
    (nothing applied; the message names the file, the place in it and the problem)."""
    importer = inv.args.importer
    progress = imports.Progress(f"import {inv.args.kind}")

    async def run(database: Database, _: list[str]) -> imports.Summary:
        # No page-token key: imports write, they never list.
        rt = Runtime(settings=inv.settings, db=database)
        job = imports.Job(rt, inv.args, progress, lambda name: schema.methods()[name])
        summary: imports.Summary = await importer.run(job)
        return summary

    try:
        summary = _with_database(inv.settings, run)
    except imports.BadInput as e:
        progress.finish()
        print(json.dumps({"error": e.as_json()}))
        sys.exit(f"platform-api import {inv.args.kind}: {e}")
    progress.finish()
    print(json.dumps(summary.as_json()))
    if summary.rejected:
        sys.exit(3)


def _with_database(settings: Settings, work: Callable[[Any, list[str]], Awaitable[T]]) -> T:
    """Connects, applies pending migrations, runs `work(db, applied)`, closes; an API error exits with its message."""

    async def go() -> T:
        database = await db.connect(settings.database_url, sqlite_synchronous=settings.sqlite_synchronous)
        try:
            applied = await migrate(database)
            return await work(database, applied)
        finally:
            await database.close()

    try:
        return asyncio.run(go())
    except Exception as e:
        if isinstance(e, ApiError):
            sys.exit(f"platform-api {' '.join(sys.argv[1:2])}: {e.message}")  # the command's name, not a list
        raise


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
    """rotate: the new signing key's id; list: every key with its creation and retirement times."""
    if action == "rotate":
        return {"signing": await keys.create(db)}
    rows = await keys.listing(db)
    return [{"kid": r["kid"], "createTime": r["create_time"], "retireTime": r["retire_time"] or None} for r in rows]


def _internal_listeners(settings: Settings, overrides: dict[str, Any]) -> None:
    """With `--port`: the HTTP and gRPC listeners not asked for explicitly move to free loopback ports."""
    settings.extra["public_host"] = settings.http_host  # --host: where the front listens
    if "http_port" not in overrides and "PLATFORM_API_HTTP_PORT" not in os.environ:
        settings.http_host, settings.http_port = "127.0.0.1", _free_loopback_port()
    if "grpc_port" not in overrides and "PLATFORM_API_GRPC_PORT" not in os.environ:
        settings.grpc_host, settings.grpc_port = "127.0.0.1", _free_loopback_port()


def _free_loopback_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _limits(settings: Settings, budget: fd_budget.Budget, limit: int) -> str:
    """The start's second line: every listener's connection limits."""
    text = f"{budget.describe()}; idle timeout {settings.idle_timeout:g} s"
    if settings.port:
        text += (
            f"; port {settings.port}: {fd_budget.front_max_connections(limit, settings)} connections, "
            f"{settings.front_max_connections_per_client} per client"
        )
    return text


def _public_host(settings: Settings) -> str:
    return settings.extra.get("public_host", settings.http_host).strip("[]")


def _refuse_taken_ports(settings: Settings) -> None:
    """Exit when another process listens on one of our ports. Granian and gRPC bind with SO_REUSEPORT (for
    their worker processes), so a second server on the same port would start silently and take a share of
    the connections, serving them from its own database."""
    wanted = [(settings.http_host, settings.http_port)]
    if settings.grpc_enabled:
        wanted.append((settings.grpc_host, settings.grpc_port))
    if settings.port:
        wanted.append((_public_host(settings), settings.port))
    for host, port in wanted:
        if not port:
            continue
        try:
            family, kind, proto, _, address = socket.getaddrinfo(
                host.strip("[]") or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
            )[0]
            with socket.socket(family, kind, proto) as probe:
                # REUSEADDR passes a port left in TIME_WAIT by a restart, not one another socket listens on.
                probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                probe.bind(address)
        except OSError as e:
            sys.exit(f"platform-api serve: cannot listen on {host}:{port}: {e.strerror or e} (another server?)")


async def _reachable(settings: Settings) -> None:
    """Opens the database and closes it: `CannotConnect` when it cannot be opened."""
    database = await db.connect(settings.database_url, sqlite_synchronous=settings.sqlite_synchronous)
    await database.close()


def _serve(settings: Settings, workers: int) -> None:
    from granian.constants import HTTPModes, Interfaces, Loops
    from granian.http import HTTP1Settings
    from granian.server import Server

    _refuse_taken_ports(settings)
    # The workers open the database in their start-up; one that cannot would die with a traceback, be started
    # again and die again (Granian's crash loop). Opened once here first, a failure is one line and exit 1.
    asyncio.run(_reachable(settings))
    # Raised before the workers and the front start (they inherit it); each listener gets its share.
    limit = fd_budget.raise_fd_limit()
    budget = fd_budget.split(limit, settings)
    os.environ.update(settings.to_env())
    os.environ[parent.SERVE_PID] = str(os.getpid())  # the workers end with this process (core/parent.py)
    # /metrics sums the worker processes' values, which they write here (prometheus-client's
    # multiprocess mode); a fresh folder per start, so counters begin at zero and stale files never add up.
    metrics_dir = tempfile.mkdtemp(prefix="platform-api-metrics-")
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = metrics_dir
    grpc_at = f"{settings.grpc_host}:{settings.grpc_port}" if settings.grpc_enabled else "off"
    if settings.port:
        listeners = (
            f"port {_public_host(settings)}:{settings.port} (HTTP/1.1 to HTTP {settings.http_host}:"
            f"{settings.http_port}, HTTP/2 prior knowledge to gRPC {grpc_at})"
        )
    else:
        listeners = f"HTTP on {settings.http_host}:{settings.http_port}, gRPC on {grpc_at}"
    database = connect_failure.safe_url(settings.database_url)  # never its password
    print(
        f"platform-api: {listeners}, database {database}, issuer {settings.issuer}"
        + (" (INSECURE loopback issuers/sinks allowed)" if settings.insecure_allow_loopback else ""),
        file=sys.stderr,
    )
    print(f"platform-api: {_limits(settings, budget, limit)}", file=sys.stderr)
    # Granian's timers take milliseconds, within 1..60000.
    http_idle_ms = max(1, int(min(settings.idle_timeout, HTTP_IDLE_MAX) * 1000))
    server = Server(
        "platform_api.app:app_from_env",
        address=settings.http_host,
        port=settings.http_port,
        interface=Interfaces.ASGI,
        workers=workers,
        runtime_threads=settings.http_threads,
        loop=Loops.uvloop,
        factory=True,
        log_level=settings.log_level,  # type: ignore[arg-type]
        backpressure=budget.http,  # connections per worker: the rest wait in the listen queue
        # HTTP/1.1 only: in its `auto` mode Granian holds a connection that sends nothing for ever (no timeout
        # while it waits to tell HTTP/1.1 from HTTP/2), and it has no idle timeout for HTTP/2 at all.
        http=HTTPModes.http1,
        http1_settings=HTTP1Settings(header_read_timeout=http_idle_ms),
        # A worker that dies is started again (its listeners with it; the others serve meanwhile); one that dies
        # again within 5.5 s of that stops the whole server with exit code 1 (Granian's crash-loop rule).
        respawn_failed_workers=True,
    )
    public = None
    try:
        public = front_process.start(settings, _public_host(settings), server) if settings.port else None
        server.serve()
    finally:
        if public is not None:
            public.stop()
        shutil.rmtree(metrics_dir, ignore_errors=True)
    if public is not None and public.failed:
        sys.exit(1)


if __name__ == "__main__":
    main()
