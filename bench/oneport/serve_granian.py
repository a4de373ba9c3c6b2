"""Granian serving apps:app with the settings `platform-api serve` uses (ASGI, uvloop, 1 worker).

    python serve_granian.py --port P [--http auto|1|2]      # ONEPORT_GRPC_PORT=G adds the grpc.aio listener

`--http 1` is what production runs today (Granian's default is `auto`: HTTP/1.1 and h2c prior knowledge).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def main() -> None:
    from granian.constants import HTTPModes, Interfaces, Loops
    from granian.server import Server

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--http", choices=("auto", "1", "2"), default="auto")
    p.add_argument("--uds", type=Path, help="listen on this Unix socket instead of host:port")
    p.add_argument("--log-level", default="warning")
    ns = p.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    Server(
        "apps:app",
        address=ns.host,
        port=ns.port,
        interface=Interfaces.ASGI,
        workers=1,
        loop=Loops.uvloop,
        http=HTTPModes(ns.http),
        log_level=ns.log_level,
        uds=ns.uds,
    ).serve()


if __name__ == "__main__":
    main()
