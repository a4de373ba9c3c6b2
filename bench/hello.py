"""Baseline for the benchmark: a bare ASGI hello-world served exactly like the service.

`python bench/hello.py --port P` runs Granian with the settings `platform-api serve` uses (ASGI
interface, uvloop, 1 worker, same log level); run.py pins it with `taskset -c 0` like the service.
Every request answers 200 `{"response":"pong"}`, so GET req/s divided by this is the share of the
server's ceiling that our routing, storage and encoding leave.
"""

from __future__ import annotations

import argparse
from typing import Any

_BODY = b'{"response":"pong"}'
_HEADERS = [(b"content-type", b"application/json"), (b"content-length", str(len(_BODY)).encode())]
_START = {"type": "http.response.start", "status": 200, "headers": _HEADERS}
_MSG = {"type": "http.response.body", "body": _BODY}


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return
    if scope["type"] != "http":
        return
    await send(_START)
    await send(_MSG)


def main() -> None:
    from granian.constants import Interfaces, Loops
    from granian.server import Server

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--log-level", default="info")
    p.add_argument("--runtime-threads", type=int, help="Granian's runtime threads (default: serve's, http_threads)")
    ns = p.parse_args()
    if ns.runtime_threads is None:
        from platform_api.core.settings import Settings

        # A tree from before the setting existed serves with Granian's default, 1 (bench/README.md: before/after).
        ns.runtime_threads = getattr(Settings.from_env(), "http_threads", 1)
    # Same arguments as platform_api.cli._serve, minus the factory (this app needs no settings).
    Server(
        "hello:app",
        address=ns.host,
        port=ns.port,
        interface=Interfaces.ASGI,
        workers=1,
        runtime_threads=ns.runtime_threads,
        loop=Loops.uvloop,
        log_level=ns.log_level,
    ).serve()


if __name__ == "__main__":
    main()
