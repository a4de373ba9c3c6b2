"""Assembles the service: storage, the RPC implementations, HTTP/JSON (ASGI) and gRPC listeners."""

from __future__ import annotations

import contextlib
import importlib
import logging
from collections.abc import AsyncIterator
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from platform_api.api import grpc_server, metrics, openapi, schema
from platform_api.api.rest import RestApp
from platform_api.auth import discovery, keys, sts
from platform_api.auth.access import Access
from platform_api.core import errors
from platform_api.core.settings import Settings
from platform_api.events.dispatcher import Dispatcher
from platform_api.iam import bootstrap, roles
from platform_api.service.runtime import Runtime
from platform_api.store import db as store
from platform_api.store.migrate import migrate

log = logging.getLogger("platform_api")

# Every domain package registers its RPC implementations when imported.
DOMAINS = (
    "platform_api.ping.service",
    "platform_api.iam.groups",
    "platform_api.iam.identities",
    "platform_api.iam.roles",
    "platform_api.iam.role_bindings",
    "platform_api.iam.identity_providers",
    "platform_api.iam.account_associations",
    "platform_api.iam.group_invites",
    "platform_api.iam.external_group_role_mappings",
    "platform_api.iam.terms",
    "platform_api.registry.repos",
    "platform_api.registry.tags",
    "platform_api.events.subscriptions",
)


def load_domains() -> None:
    for name in DOMAINS:
        importlib.import_module(name)


def create_app(settings: Settings | None = None) -> RestApp:
    settings = settings or Settings.from_env()
    load_domains()
    methods = schema.methods()
    rt = Runtime(settings=settings)
    state: dict[str, Any] = {}

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        rt.db = await store.connect(settings.database_url, sqlite_synchronous=settings.sqlite_synchronous)
        applied = await migrate(rt.db)
        if applied:
            log.info("applied migrations: %s", ", ".join(applied))
        await rt.load_secrets()
        await keys.ensure(rt.db)
        await roles.seed_builtin(rt.db)
        await bootstrap.record_issuer(rt.db, settings.issuer)
        access = Access(rt.db, settings.issuer, settings.token_audience)
        rt.add(access)
        rt.on_grants_changed.append(access.authorizer.invalidate)
        await access.start()
        rt.add(sts.Exchange(rt))
        if settings.grpc_enabled:
            state["grpc"] = await grpc_server.start(rt, schema.services(), settings.grpc_port, settings.grpc_host)
            log.info("gRPC listening on port %s", state["grpc"].bound_port)
        if settings.dispatcher:
            state["dispatcher"] = Dispatcher(rt.db, settings, access.keys)
            await state["dispatcher"].start()
        try:
            yield
        finally:
            if "grpc" in state:
                await state["grpc"].stop(grace=5)
            if "dispatcher" in state:
                await state["dispatcher"].stop()
            await rt.part(sts.Exchange).close()
            await access.stop()
            await rt.db.close()

    async def healthz(_: Request) -> Response:
        return JSONResponse({"status": "ok"})

    async def readyz(_: Request) -> Response:
        try:
            await rt.db.fetchval("SELECT 1")
        except Exception:  # any storage failure means not ready
            return JSONResponse({"status": "unavailable"}, status_code=503)
        return JSONResponse({"status": "ok"})

    document = openapi.document(list(methods.values()), settings.public_url)

    async def openapi_json(_: Request) -> Response:
        return JSONResponse(document)

    async def routing_error(request: Request, exc: Exception) -> Response:
        # The same structured errors as unknown API routes: 404 code 5, wrong method 501 code 12.
        status = getattr(exc, "status_code", 404)
        e = (
            errors.ApiError(errors.UNIMPLEMENTED, "Method Not Allowed")
            if status == 405
            else errors.ApiError(errors.NOT_FOUND, "Not Found")
        )
        return JSONResponse(e.body(f"api.{settings.error_domain_base}"), status_code=e.status())

    async def openid_configuration(_: Request) -> Response:
        return JSONResponse(discovery.document(settings))

    async def jwks(_: Request) -> Response:
        keys = rt.part(Access).keys
        await keys.refresh_if_stale()
        return JSONResponse(keys.jwks(), headers={"cache-control": "public, max-age=300"})

    routes = [
        Route("/healthz", healthz),
        Route("/readyz", readyz),
        Route("/openapi.json", openapi_json),
        Route("/.well-known/openid-configuration", openid_configuration),
        Route(discovery.JWKS_PATH, jwks),
        *sts.routes(rt),
        metrics.route(rt),
    ]
    fallback = Starlette(routes=routes, lifespan=lifespan, exception_handlers={404: routing_error, 405: routing_error})
    app = RestApp(rt, list(methods.values()), fallback, {r.path for r in routes})
    app.state = state  # type: ignore[attr-defined]
    return app


def app_from_env() -> RestApp:
    """Granian's factory target: worker processes read settings from the environment."""
    logging.basicConfig(
        level=Settings.from_env().log_level.upper(), format="%(asctime)s %(levelname)s %(name)s %(message)s"
    )
    return create_app()
