"""`serve`, `dispatch`, `migrate`: the server (both listeners, the one public port in front of them with
`--port`, the event dispatcher), the dispatcher alone, and the database's migrations."""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import socket
import sys
import tempfile
from typing import Any

from platform_api.api import fd_budget, front_process
from platform_api.cli.common import (
    CliError,
    Invocation,
    database_option,
    emit,
    issuer_options,
    output_format,
    with_database,
)
from platform_api.core import logs, parent
from platform_api.core.settings import Settings
from platform_api.ctl.exit_codes import GENERIC
from platform_api.events import dispatcher
from platform_api.iam import account_association_check
from platform_api.signin import login
from platform_api.store import connect_failure, db
from platform_api.store.db import Database

# HTTP: a connection that has not sent a whole request head this long after connecting or after its last
# answer is closed (Granian's header-read timeout, its default; Granian allows at most 60 s). A shorter
# `idle_timeout` lowers it.
HTTP_IDLE_MAX = 30.0


def register(sub: Any) -> None:
    serve = sub.add_parser("serve", help="run the HTTP/JSON and gRPC server")
    _serve_options(serve)

    disp = sub.add_parser("dispatch", help="deliver outbox events to subscriptions (the dispatcher alone)")
    disp.set_defaults(run=dispatch_command)
    database_option(disp)
    issuer_options(disp)
    disp.add_argument(
        "--insecure-allow-loopback",
        action="store_true",
        default=None,
        help="DEVELOPMENT ONLY: allow webhook sinks on loopback addresses",
    )

    mig = sub.add_parser("migrate", help="apply pending database migrations and exit")
    mig.set_defaults(run=migrate_command)
    database_option(mig)
    output_format(mig)


def _serve_options(serve: argparse.ArgumentParser) -> None:
    """serve's: listeners, issuers, the browser login (iam/login.py), then the limits and the events'."""
    serve.set_defaults(run=serve_command)
    database_option(serve)
    issuer_options(serve)
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
    _limit_options(serve)
    serve.add_argument(
        "--no-dispatcher",
        action="store_true",
        help="do not deliver events from this process (run `platform-api dispatch`); env PLATFORM_API_DISPATCHER",
    )
    account_association_check.arguments(serve)


def _limit_options(serve: argparse.ArgumentParser) -> None:
    """serve's rates and bursts, and who may ask to join an organization how often."""
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
    """`migrate`: applies pending migrations and prints their names (`{"applied": [...]}`)."""

    async def applied_only(db: Database, applied: list[str]) -> list[str]:
        """Nothing to do beyond the migrations `with_database` applies."""
        return applied

    emit({"applied": with_database(inv.settings, applied_only)}, inv.args.output)


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
            raise CliError(f"cannot listen on {host}:{port}: {e.strerror or e} (another server?)") from None


async def _reachable(settings: Settings) -> None:
    """Opens the database and closes it: `CannotConnect` when it cannot be opened."""
    conn = await db.connect(settings.database_url, sqlite_synchronous=settings.sqlite_synchronous)
    await conn.close()


def _serve(settings: Settings, workers: int) -> None:
    # Imported here, for `serve` alone: the other commands never load the HTTP server.
    from granian.constants import HTTPModes, Interfaces, Loops
    from granian.http import HTTP1Settings
    from granian.server import Server

    _refuse_taken_ports(settings)
    # The workers open the database in their start-up; one that cannot would die with a traceback, be started
    # again and die again (Granian's crash loop). Opened once here first, a failure is one line and exit 8.
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
    where = connect_failure.safe_url(settings.database_url)  # never its password
    print(
        f"platform-api: {listeners}, database {where}, issuer {settings.issuer}"
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
        raise SystemExit(GENERIC)
