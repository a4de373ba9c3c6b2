"""`GET /.well-known/platform-api`: where this server's gRPC listens, for its clients (the Python client and
`platformctl` read it once per server URL when no gRPC address is set). A port, never a host: a client keeps
the host it reached the server by (loopback, a NAT's address), which the server cannot know. Anonymous,
answered from settings alone, and within the anonymous routes' rate limit like every `/.well-known/` document."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from platform_api.core.settings import Settings

PATH = "/.well-known/platform-api"


def document(settings: Settings) -> dict[str, Any]:
    """`{"grpc": {"port": N}}`; with `serve --port` also `"sharesHttpPort": true` (gRPC is spliced on the
    port the client already reached, whatever number a port mapping gave it); `{"grpc": null}` when gRPC is
    off (`serve --no-grpc`)."""
    if not settings.grpc_enabled:
        return {"grpc": None}
    if settings.port:
        return {"grpc": {"port": settings.port, "sharesHttpPort": True}}
    return {"grpc": {"port": settings.grpc_port}}


def route(settings: Settings) -> Route:
    body = document(settings)  # settings do not change while the process runs

    async def platform_api(_: Request) -> Response:
        return JSONResponse(body, headers={"cache-control": "public, max-age=300"})

    return Route(PATH, platform_api)
