"""The two workloads every one-port candidate serves, and the servers of "today".

- `app`: an ASGI app. `GET` anything -> 200 `{"response":"pong"}` (same bytes as bench/hello.py).
  A `POST` with `content-type: application/grpc...` is a unary gRPC call handled in the app with a
  hand-written framing (5-byte length prefix + `grpc-status` trailer), needing the ASGI
  `http.response.trailers` extension; only `/grpc.health.v1.Health/Check` is implemented. Without the
  extension it answers a trailers-only error (grpc-status 12 in the headers) so a client sees why.
  If `ONEPORT_GRPC_PORT` is set, the lifespan also starts a grpc.aio server on that port (health service
  only), like `platform-api serve` does with its second listener.
- `start_grpc(port)`: that grpc.aio server (the standard health service, SERVING).
"""

from __future__ import annotations

import os
import struct
from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

_BODY = b'{"response":"pong"}'
_HEADERS = [(b"content-type", b"application/json"), (b"content-length", str(len(_BODY)).encode())]
_START = {"type": "http.response.start", "status": 200, "headers": _HEADERS}
_MSG = {"type": "http.response.body", "body": _BODY}
_NOT_FOUND = {"type": "http.response.start", "status": 404, "headers": [(b"content-length", b"0")]}

HEALTH_CHECK = "/grpc.health.v1.Health/Check"
_SERVING = health_pb2.HealthCheckResponse(status=health_pb2.HealthCheckResponse.SERVING).SerializeToString()
_SERVING_FRAME = b"\x00" + struct.pack(">I", len(_SERVING)) + _SERVING
_GRPC_HEADERS = [(b"content-type", b"application/grpc")]


async def start_grpc(port: int, host: str = "127.0.0.1") -> grpc.aio.Server:
    server = grpc.aio.server(options=[("grpc.so_reuseport", 0)])
    servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(servicer, server)
    server.add_insecure_port(f"{host}:{port}")
    await server.start()
    await servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    return server


async def _lifespan(receive: Any, send: Any) -> None:
    server = None
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            if os.environ.get("ONEPORT_GRPC_PORT"):
                server = await start_grpc(int(os.environ["ONEPORT_GRPC_PORT"]))
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            if server is not None:
                await server.stop(1)
            await send({"type": "lifespan.shutdown.complete"})
            return


async def _read_body(receive: Any) -> bytes:
    chunks = []
    while True:
        message = await receive()
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            return b"".join(chunks)


async def _grpc(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Unary gRPC over ASGI: one length-prefixed message in, one out, status in the trailers."""
    body = await _read_body(receive)
    if "http.response.trailers" not in scope.get("extensions", {}):
        # Trailers-only response: all a server without the trailers extension can say.
        msg = b"ASGI server has no http.response.trailers"
        headers = [*_GRPC_HEADERS, (b"grpc-status", b"12"), (b"grpc-message", msg)]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": b""})
        return
    if scope["path"] != HEALTH_CHECK or len(body) < 5 or body[0] != 0:
        status, frame = b"12", b""  # UNIMPLEMENTED (compressed or unknown method)
    else:
        (length,) = struct.unpack(">I", body[1:5])
        health_pb2.HealthCheckRequest.FromString(body[5 : 5 + length])  # decoded as a real server would
        status, frame = b"0", _SERVING_FRAME
    await send({"type": "http.response.start", "status": 200, "headers": _GRPC_HEADERS, "trailers": True})
    await send({"type": "http.response.body", "body": frame, "more_body": False})
    await send({"type": "http.response.trailers", "headers": [(b"grpc-status", status)], "more_trailers": False})


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] == "lifespan":
        await _lifespan(receive, send)
        return
    if scope["type"] != "http":
        return
    if scope["method"] == "POST":
        for name, value in scope["headers"]:
            if name == b"content-type" and value.startswith(b"application/grpc"):
                await _grpc(scope, receive, send)
                return
        await send(_NOT_FOUND)
        await send({"type": "http.response.body", "body": b""})
        return
    await send(_START)
    await send(_MSG)
