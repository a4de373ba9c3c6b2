"""Assembles the service: storage, the RPC implementations, HTTP/JSON (ASGI) and gRPC listeners."""

from __future__ import annotations

import contextlib
import gc
import logging
from collections.abc import AsyncIterator
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from platform_api import advisory, events, iam, libraries, ping, registry, signin, vulnerabilities
from platform_api.api import grpc_server, http_errors, metrics, openapi, registry_routes, schema, sts_routes, well_known
from platform_api.api.rest import RestApp
from platform_api.auth import discovery, issuer, keys, upstream
from platform_api.auth.access import Access
from platform_api.console import routes as console
from platform_api.core import errors, logs, parent
from platform_api.core.ratelimit import AnonymousLimit
from platform_api.core.settings import Settings
from platform_api.events.dispatcher import Dispatcher
from platform_api.iam import account_association_check, roles
from platform_api.registry.dataplane import content
from platform_api.service import storage, wiring
from platform_api.service.cascade import Cascades
from platform_api.service.methods import MethodInfo
from platform_api.service.runtime import Runtime
from platform_api.service.wiring import Domain
from platform_api.signin import login, sts
from platform_api.store import Unavailable
from platform_api.store import db as store
from platform_api.store.migrate import migrate

log = logging.getLogger(__name__)

# The domains, bottom to top: each may import only those before it (tests/functional/ops/test_import_graph.py
# holds every package to this order). What each contributes is declared in its package (`DOMAIN`).
DOMAINS: tuple[Domain, ...] = (
    ping.DOMAIN,
    iam.DOMAIN,
    signin.DOMAIN,
    libraries.DOMAIN,
    vulnerabilities.DOMAIN,
    registry.DOMAIN,
    events.DOMAIN,
    advisory.DOMAIN,
)
HANDLERS, IMPORTERS, CASCADES = wiring.collect(DOMAINS)


class Service:
    """The runtime one process serves from, and the listeners its lifespan starts and stops."""

    def __init__(self, settings: Settings, methods: list[MethodInfo]) -> None:
        self.settings = settings
        self.rt = Runtime(settings=settings, handlers=HANDLERS, methods={m.full_name: m for m in methods})
        self.rt.add(Cascades(CASCADES))
        # One table for every anonymous request of this process, RPCs (api/dispatch) and documents alike.
        self.rt.add(AnonymousLimit(settings.anon_rate, settings.anon_burst))
        self.openapi = openapi.document(methods, settings.public_url)
        self.grpc: Any = None
        self.dispatcher: Dispatcher | None = None
        # What the operator should fix in the database's settings, found once at start: logged, and in /readyz.
        self.warnings: list[str] = []

    async def start(self) -> None:
        """Storage (migrated), keys, built-in roles, token checks, then the gRPC listener and the dispatcher."""
        rt, settings = self.rt, self.settings
        rt.db = await store.connect(settings.database_url, sqlite_synchronous=settings.sqlite_synchronous)
        applied = await migrate(rt.db)
        if applied:
            log.info("applied migrations: %s", ", ".join(applied))
        self.warnings = await database_warnings(rt.db)
        for warning in self.warnings:
            log.warning("%s", warning)
        await rt.load_secrets()
        await keys.ensure(rt.db)
        await roles.seed_builtin(rt.db)
        await issuer.record_issuer(rt.db, settings.issuer)
        access = Access(rt.db, settings.issuer, settings.token_audience, iam.GRANTS)
        rt.add(access)
        rt.on_grants_changed.append(access.authorizer.invalidate)
        await access.start()
        rt.add(sts.Exchange(rt))
        rt.add(login.Login(rt))
        rt.add(account_association_check.Checker(settings))
        rt.add(upstream.Outbound(content.TIMEOUT_SECONDS, content.CONNECT_SECONDS))
        if settings.grpc_enabled:
            self.grpc = await grpc_server.start(rt, schema.services(), settings.grpc_port, settings.grpc_bind_host)
            log.info("gRPC listening on port %s", self.grpc.bound_port)
        if settings.dispatcher:
            self.dispatcher = Dispatcher(rt.db, settings, access.keys)
            await self.dispatcher.start()
        # What start-up built (modules, the contract's descriptors, caches) lives as long as the process: the
        # collector no longer walks it at every full collection (bench/README.md: GET +3-4%).
        gc.freeze()

    async def stop(self) -> None:
        """The reverse of `start`: listeners first (gRPC drains for up to 5 s), storage last."""
        if self.grpc is not None:
            await self.grpc.stop(grace=5)
        if self.dispatcher is not None:
            await self.dispatcher.stop()
        await self.rt.part(upstream.Outbound).close()
        await self.rt.part(account_association_check.Checker).close()
        await self.rt.part(login.Login).close()
        await self.rt.part(sts.Exchange).close()
        await self.rt.part(Access).stop()
        await self.rt.db.close()


async def database_warnings(db: store.Database) -> list[str]:
    """The database settings that degrade the service over time. PostgreSQL without autovacuum (or without
    track_counts, which autovacuum reads to pick its tables) never reclaims the row versions left by the rows
    updated in place on every write (child_counts' counters, authz_version, the outbox's deliveries), so
    counts and listings read ever more dead rows, and the planner's statistics go stale."""
    if db.name != "postgres":
        return []
    row = await db.fetchrow("SELECT current_setting('autovacuum') AS av, current_setting('track_counts') AS tc")
    out = []
    if row is not None and row["av"] != "on":
        out.append(
            "PostgreSQL autovacuum is off: dead rows of the tables updated on every write (child_counts, "
            "authz_version, deliveries) are never reclaimed and planner statistics go stale; set autovacuum = on "
            "in postgresql.conf, or run VACUUM ANALYZE regularly"
        )
    if row is not None and row["tc"] != "on":
        out.append(
            "PostgreSQL track_counts is off: autovacuum cannot tell which tables need vacuuming; set "
            "track_counts = on in postgresql.conf"
        )
    return out


def _service(request: Request) -> Service:
    """The Service behind a route of the fallback app (set by `create_app`)."""
    service: Service = request.app.state.service
    return service


@contextlib.asynccontextmanager
async def lifespan(app: Starlette) -> AsyncIterator[None]:
    """Starts the app's Service before the first request and stops it at shutdown."""
    service: Service = app.state.service
    await service.start()
    try:
        yield
    finally:
        await service.stop()


async def healthz(_: Request) -> Response:
    """Liveness: the process answers."""
    return JSONResponse({"status": "ok"})


async def readyz(request: Request) -> Response:
    """Readiness: the database answers too. Still ready with warnings (the database settings checked at
    start), which are listed so that an operator looking at the probe sees them."""
    service = _service(request)
    try:
        await service.rt.db.fetchval("SELECT 1")
    except Exception:  # any storage failure means not ready
        return JSONResponse({"status": "unavailable"}, status_code=503)
    if service.warnings:
        return JSONResponse({"status": "ok", "warnings": service.warnings})
    return JSONResponse({"status": "ok"})


async def openapi_json(request: Request) -> Response:
    """The OpenAPI document of the HTTP/JSON API (built once per process)."""
    return JSONResponse(_service(request).openapi)


async def openid_configuration(request: Request) -> Response:
    """OIDC discovery for our issuer, so relying parties find the JWKS."""
    return JSONResponse(discovery.document(_service(request).settings))


async def jwks(request: Request) -> Response:
    """Our public signing keys (refreshed when stale, so a rotation elsewhere shows within minutes)."""
    keyset = _service(request).rt.part(Access).keys
    await keyset.refresh_if_stale()
    return JSONResponse(keyset.jwks(), headers={"cache-control": "public, max-age=300"})


async def storage_refused(request: Request, exc: Exception) -> Response:
    """The store refusing a route of the fallback app (the JWKS read while the database is unreachable): 503
    with Retry-After, as the RPCs answer it, not 500."""
    assert isinstance(exc, Unavailable)
    return http_errors.render(storage.refused(exc), f"api.{_service(request).settings.error_domain_base}")


async def routing_error(request: Request, exc: Exception) -> Response:
    """Unknown non-API paths answer like unknown API routes: 404 code 5, wrong method 501 code 12."""
    e = http_errors.no_route(getattr(exc, "status_code", 404) == 405)
    return http_errors.render(e, f"api.{_service(request).settings.error_domain_base}")


# The operator's probes and scrapers: cheap, and never rate-limited, so that a client flooding the public
# routes from the same address (a proxy's, say) cannot take the instance out of its load balancer.
UNLIMITED_PATHS = frozenset({"/healthz", "/readyz", "/metrics"})
# Routes that take our token and limit only the requests without a valid one themselves (a CI's pulls from
# one address are not anonymous traffic).
SELF_LIMITED_PATHS = frozenset({registry_routes.TOKEN_PATH, registry_routes.NOTIFY_PATH})
_NOT_LIMITED = UNLIMITED_PATHS | SELF_LIMITED_PATHS


def limit_anonymous(app: Any, limit: AnonymousLimit, domain: str) -> Any:
    """The ASGI `app` (the routes outside the API router, none of which takes our token: the OpenAPI and
    discovery documents, the token exchange) behind the anonymous routes' rate limit, UNLIMITED_PATHS aside."""

    async def limited(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"] not in _NOT_LIMITED:
            client = scope.get("client")
            try:
                limit.check(client[0] if client else "")
            except errors.ApiError as e:
                await http_errors.render(e, domain)(scope, receive, send)
                return
        await app(scope, receive, send)

    return limited


def create_app(settings: Settings | None = None) -> RestApp:
    """The ASGI app: the API router in front of a Starlette app for health, discovery, token exchange, metrics."""
    settings = settings or Settings.from_env()
    methods = list(schema.methods().values())
    service = Service(settings, methods)
    routes = [
        Route("/healthz", healthz),
        Route("/readyz", readyz),
        Route("/openapi.json", openapi_json),
        Route("/.well-known/openid-configuration", openid_configuration),
        Route(discovery.JWKS_PATH, jwks),
        well_known.route(settings),
        *sts_routes.routes(service.rt),
        *registry_routes.routes(service.rt),
        metrics.route(service.rt),
        *console.routes(settings),
    ]
    fallback = Starlette(
        routes=routes,
        lifespan=lifespan,
        exception_handlers={404: routing_error, 405: routing_error, Unavailable: storage_refused},
    )
    fallback.state.service = service
    limited = limit_anonymous(fallback, service.rt.part(AnonymousLimit), f"api.{settings.error_domain_base}")
    return RestApp(service.rt, methods, limited, routes)


def app_from_env() -> RestApp:
    """Granian's factory target: worker processes read settings from the environment (and end with `serve`)."""
    parent.die_with_serve()
    settings = Settings.from_env()
    logs.configure(settings.log_level)
    return create_app(settings)
