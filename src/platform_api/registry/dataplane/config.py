"""`platform-api registry-config`: a Distribution 2.8 configuration for a registry beside this server (its
token authentication pointed at our `/registry/token`, the registry CA's certificate as its
`rootcertbundle`, its notifications sent to our `/registry/notifications` with a shared secret), so that
the two run side by side with two commands (docs/registry.md)."""

from __future__ import annotations

import argparse
import os
import secrets
from pathlib import Path
from typing import Any

import yaml  # type: ignore[import-untyped]

from platform_api.auth import registry_certs
from platform_api.core.settings import Settings
from platform_api.registry.dataplane import notifications
from platform_api.registry.dataplane.tokens import TOKEN_PATH
from platform_api.service import runtime
from platform_api.store.db import Database

HELP = "write a Distribution registry config (token auth and notifications at this server) and its CA bundle"
DESCRIPTION = (
    "Writes <out>/config.yml and <out>/rootcertbundle.pem for `docker-registry serve <out>/config.yml`, records"
    " where this server reads the registry back, and prints {config, rootcertbundle, realm, service,"
    " notifications, registryUrl}. Run it again after moving the server (--public-url, --server-url)."
)
BUNDLE = "rootcertbundle.pem"
CONFIG = "config.yml"


def arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--out", required=True, help="directory for config.yml and rootcertbundle.pem")
    p.add_argument("--storage", required=True, help="the registry's filesystem storage directory")
    p.add_argument("--registry-addr", default="127.0.0.1:5000", help="where the registry listens")
    p.add_argument("--server-url", help="where registry clients reach this server (default: the issuer URL)")
    p.add_argument("--registry-url", help="where this server reads the registry (default: http://<registry-addr>)")


async def from_arguments(db: Database, ns: argparse.Namespace, settings: Settings, issuer: str) -> dict[str, str]:
    return await write(
        db, Path(ns.out), public_url=ns.server_url or issuer, issuer=issuer, service=settings.registry_service,
        addr=ns.registry_addr, storage=str(Path(ns.storage).resolve()), log_level=settings.log_level,
        registry_url=ns.registry_url or local_url(ns.registry_addr),
    )  # fmt: skip


def registry_log_level(ours: str) -> str:
    """Distribution's log level for our `log_level`: `warn` at most. At `info` (and `debug`) Distribution 2.8
    logs each notification endpoint with its headers when it starts (handlers/app.go, "configuring endpoint
    ... headers=map[Authorization:[Bearer <secret>]]"), which would put our notification secret in its log."""
    return "error" if ours in ("error", "critical") else "warn"


def config(
    *, addr: str, storage: str, realm: str, service: str, issuer: str, bundle: str, log_level: str, notify: str,
    secret: str,
) -> dict[str, Any]:  # fmt: skip
    return {
        "version": 0.1,
        "log": {"level": registry_log_level(log_level), "fields": {"service": "registry"}},
        "storage": {"filesystem": {"rootdirectory": storage}, "delete": {"enabled": True}},
        "http": {"addr": addr, "secret": secrets.token_hex(32), "headers": {"X-Content-Type-Options": ["nosniff"]}},
        "auth": {"token": {"realm": realm, "service": service, "issuer": issuer, "rootcertbundle": bundle}},
        "notifications": {
            "events": {"includereferences": True},
            "endpoints": [
                {
                    "name": "platform-api",
                    "url": notify,
                    "headers": {"Authorization": [f"Bearer {secret}"]},
                    "timeout": "10s",
                    "threshold": 3,
                    "backoff": "1s",
                }
            ],
        },
    }


def local_url(addr: str) -> str:
    """How this machine reaches a registry listening at `addr` (`:5000`, `0.0.0.0:5000`: loopback)."""
    host, _, port = addr.rpartition(":")
    return f"http://{'127.0.0.1' if host in ('', '0.0.0.0', '[::]') else host}:{port}"


async def write(
    db: Database, out: Path, *, public_url: str, issuer: str, service: str, addr: str, storage: str, log_level: str,
    registry_url: str,
) -> dict[str, str]:  # fmt: skip
    """Write `config.yml` and the CA bundle into `out`, and record where the server reads the registry back
    (`registry_url`); what was written, for the command's JSON answer."""
    ca = await registry_certs.load(db)
    secret = (await runtime.service_secret(db, notifications.SECRET)).hex()
    await runtime.set_service_value(db, notifications.REGISTRY_URL, registry_url.encode())
    out.mkdir(parents=True, exist_ok=True)
    bundle = (out / BUNDLE).resolve()
    bundle.write_bytes(ca.bundle_pem())
    realm = public_url.rstrip("/") + TOKEN_PATH
    notify = public_url.rstrip("/") + notifications.NOTIFY_PATH
    doc = config(
        addr=addr, storage=storage, realm=realm, service=service, issuer=issuer, bundle=str(bundle),
        log_level=log_level, notify=notify, secret=secret,
    )  # fmt: skip
    path = out / CONFIG
    # The config holds the registry's HTTP secret: readable by its owner only.
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        yaml.safe_dump(doc, f, sort_keys=False)
    return {"config": str(path.resolve()), "rootcertbundle": str(bundle), "realm": realm, "service": service,
            "notifications": notify, "registryUrl": registry_url}  # fmt: skip
