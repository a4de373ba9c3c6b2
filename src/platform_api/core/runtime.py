"""What every RPC implementation may use: the database, the settings and service secrets."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING

from platform_api.core import clock
from platform_api.core.settings import Settings
from platform_api.store.db import PostgresDatabase, SqliteDatabase

if TYPE_CHECKING:
    from platform_api.auth.access import Access
    from platform_api.auth.sts import Exchange


@dataclass
class Runtime:
    settings: Settings
    # Connected in the app's lifespan, before the first request.
    db: SqliteDatabase | PostgresDatabase = None  # type: ignore[assignment]
    # HMAC key of page tokens; shared by every process on the same database.
    page_key: bytes = b""
    # Our issuer's keys and tokens, and authorization (started in the app's lifespan).
    access: Access = None  # type: ignore[assignment]
    # Token exchange (upstream verification keeps an HTTP client).
    sts: Exchange = None  # type: ignore[assignment]

    async def load_secrets(self) -> None:
        self.page_key = await service_secret(self.db, "page_token_key")


async def service_secret(db: SqliteDatabase | PostgresDatabase, name: str, size: int = 32) -> bytes:
    """The named secret, created on first use; concurrent creators agree on the first one stored."""
    await db.execute(
        "INSERT INTO service_secrets (name, value, create_time) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING",
        name,
        secrets.token_bytes(size),
        clock.now(),
    )
    value = await db.fetchval("SELECT value FROM service_secrets WHERE name = $1", name)
    return bytes(value)
