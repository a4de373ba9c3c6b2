"""Candidate c2: connectrpc (connect-python) serving gRPC inside the ASGI app, JSON routes beside it.

The gRPC health `Check` is registered by hand the way `protoc-gen-connectrpc` output does it (a
`ConnectASGIApplication` subclass whose endpoints map `/grpc.health.v1.Health/Check` to a coroutine), with
google.protobuf messages through `connectrpc.compat`. Requests whose content-type is application/grpc*,
application/connect+* or application/proto|json on the service's path go to connectrpc; everything else
goes to `apps.app` (the JSON hello-world). Needs an ASGI server with `http.response.trailers`
(Hypercorn, pyvoy); connectrpc itself refuses gRPC on a server without it.
"""

from __future__ import annotations

from typing import Any

import apps
from connectrpc.compat import google_protobuf_codecs
from connectrpc.method import IdempotencyLevel, MethodInfo, StreamType
from connectrpc.server import ConnectASGIApplication, Endpoint
from grpc_health.v1 import health_pb2

_CHECK = MethodInfo(
    name="Check",
    service_name="grpc.health.v1.Health",
    input=health_pb2.HealthCheckRequest,
    output=health_pb2.HealthCheckResponse,
    idempotency_level=IdempotencyLevel.UNKNOWN,
    stream_type=StreamType.UNARY,
)
_SERVING = health_pb2.HealthCheckResponse(status=health_pb2.HealthCheckResponse.SERVING)


class Health:
    async def check(self, request: health_pb2.HealthCheckRequest, ctx: Any) -> health_pb2.HealthCheckResponse:
        return _SERVING


class HealthASGIApplication(ConnectASGIApplication[Health]):
    def __init__(self, service: Health) -> None:
        super().__init__(
            service=service,
            endpoints=lambda svc: {"/grpc.health.v1.Health/Check": Endpoint.unary(_CHECK, svc.check)},
            codecs=google_protobuf_codecs(),
        )

    @property
    def path(self) -> str:
        return "/grpc.health.v1.Health"


_connect = HealthASGIApplication(Health())
_PREFIX = "/grpc.health.v1.Health/"


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] == "http" and scope["method"] == "POST" and scope["path"].startswith(_PREFIX):
        await _connect(scope, receive, send)  # type: ignore[arg-type]
        return
    await apps.app(scope, receive, send)
