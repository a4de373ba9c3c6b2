"""`platform-api registry-config`: a Distribution 2.8 configuration for a registry beside this server (its
token authentication pointed at our `/registry/token`, the registry CA's certificate as its
`rootcertbundle`), so that the two run side by side with two commands (README "Registry data plane")."""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any

import yaml  # type: ignore[import-untyped]

from platform_api.auth import registry_certs
from platform_api.registry.registry_tokens import TOKEN_PATH
from platform_api.store.db import Database

BUNDLE = "rootcertbundle.pem"
CONFIG = "config.yml"


def config(
    *, addr: str, storage: str, realm: str, service: str, issuer: str, bundle: str, log_level: str
) -> dict[str, Any]:
    return {
        "version": 0.1,
        "log": {"level": log_level, "fields": {"service": "registry"}},
        "storage": {"filesystem": {"rootdirectory": storage}, "delete": {"enabled": True}},
        "http": {"addr": addr, "secret": secrets.token_hex(32), "headers": {"X-Content-Type-Options": ["nosniff"]}},
        "auth": {"token": {"realm": realm, "service": service, "issuer": issuer, "rootcertbundle": bundle}},
    }


async def write(
    db: Database, out: Path, *, public_url: str, issuer: str, service: str, addr: str, storage: str, log_level: str
) -> dict[str, str]:
    """Write `config.yml` and the CA bundle into `out`; what was written, for the command's JSON answer."""
    ca = await registry_certs.load(db)
    out.mkdir(parents=True, exist_ok=True)
    bundle = (out / BUNDLE).resolve()
    bundle.write_bytes(ca.bundle_pem())
    realm = public_url.rstrip("/") + TOKEN_PATH
    doc = config(
        addr=addr, storage=storage, realm=realm, service=service, issuer=issuer, bundle=str(bundle),
        log_level=log_level,
    )  # fmt: skip
    path = out / CONFIG
    # The config holds the registry's HTTP secret: readable by its owner only.
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        yaml.safe_dump(doc, f, sort_keys=False)
    return {"config": str(path.resolve()), "rootcertbundle": str(bundle), "realm": realm, "service": service}
