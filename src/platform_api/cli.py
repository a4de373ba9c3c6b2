"""The command line: `platform-api serve | migrate`."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys

from platform_api.core.settings import Settings


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--database",
        dest="database_url",
        help="sqlite:///path (default sqlite:///platform-api.db) or postgresql://...; env PLATFORM_API_DATABASE_URL",
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="platform-api", description="Platform Management API v2 server")
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="run the HTTP/JSON and gRPC server")
    _common(serve)
    serve.add_argument("--host", dest="http_host", help="listen address (default 0.0.0.0)")
    serve.add_argument("--http-port", type=int, help="HTTP/JSON port (default 8080)")
    serve.add_argument("--grpc-port", type=int, help="gRPC port (default 9090)")
    serve.add_argument("--public-url", help="external base URL of this service (default http://localhost:<http port>)")
    serve.add_argument("--workers", type=int, default=1, help="HTTP worker processes (default 1)")
    serve.add_argument("--no-grpc", action="store_true", help="do not start the gRPC listener")

    mig = sub.add_parser("migrate", help="apply pending database migrations and exit")
    _common(mig)

    ns = parser.parse_args(argv)
    overrides = {k: v for k, v in vars(ns).items() if k in Settings.__dataclass_fields__ and v is not None}
    if ns.command == "serve" and ns.no_grpc:
        overrides["grpc_enabled"] = False
    settings = Settings.from_env(**overrides)
    if ns.command == "serve" and "public_url" not in overrides and "PLATFORM_API_PUBLIC_URL" not in os.environ:
        settings.public_url = f"http://localhost:{settings.http_port}"
    if ns.command == "serve":
        _serve(settings, ns.workers)
    elif ns.command == "migrate":
        print(json.dumps({"applied": asyncio.run(_migrate(settings))}))


async def _migrate(settings: Settings) -> list[str]:
    from platform_api.store import db
    from platform_api.store.migrate import migrate

    database = await db.connect(settings.database_url)
    try:
        return await migrate(database)
    finally:
        await database.close()


def _serve(settings: Settings, workers: int) -> None:
    from granian.constants import Interfaces, Loops
    from granian.server import Server

    os.environ.update(settings.to_env())
    print(
        f"platform-api: HTTP on {settings.http_host}:{settings.http_port}, "
        f"gRPC on {settings.grpc_port if settings.grpc_enabled else 'off'}, database {settings.database_url}",
        file=sys.stderr,
    )
    Server(
        "platform_api.app:app_from_env",
        address=settings.http_host,
        port=settings.http_port,
        interface=Interfaces.ASGI,
        workers=workers,
        loop=Loops.uvloop,
        factory=True,
        log_level=settings.log_level,  # type: ignore[arg-type]
    ).serve()


if __name__ == "__main__":
    main()
