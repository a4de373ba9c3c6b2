"""What every RPC implementation may use: the database, the settings and service secrets."""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from platform_api.core import clock
from platform_api.core.settings import Settings
from platform_api.service.methods import MethodInfo
from platform_api.store.db import Database

T = TypeVar("T")


@dataclass
class Runtime:
    settings: Settings
    # Connected in the app's lifespan, before the first request.
    db: Database = None  # type: ignore[assignment]
    # HMAC key of page tokens; shared by every process on the same database.
    page_key: bytes = b""
    # The long-lived parts of higher layers, by class (our issuer's keys, tokens and authorization; the
    # token exchange): added in the app's lifespan, fetched typed with `part(Class)`, so this layer needs
    # no import of theirs.
    parts: dict[type, object] = field(default_factory=dict)
    # Called after a write that changes who holds what (roles, bindings, identities): authorization caches.
    on_grants_changed: list[Callable[[], None]] = field(default_factory=list)
    # Full proto method name -> its implementation, collected from every domain by the app (service.wiring).
    handlers: dict[str, Callable[[Any, Any], Awaitable[Any]]] = field(default_factory=dict)
    # Full proto method name -> the method as the contract declares it (a v1 adapter runs its v2 twin's).
    methods: dict[str, MethodInfo] = field(default_factory=dict)

    def add(self, part: object) -> None:
        self.parts[type(part)] = part

    def part(self, cls: type[T]) -> T:
        found = self.parts[cls]
        assert isinstance(found, cls)
        return found

    def grants_changed(self) -> None:
        """This process's authorization caches forget what they know (other processes see the
        database's authorization version change on their next request)."""
        for callback in self.on_grants_changed:
            callback()

    async def load_secrets(self) -> None:
        self.page_key = await service_secret(self.db, "page_token_key")


async def service_secret(db: Database, name: str, size: int = 32) -> bytes:
    """The named secret, created on first use; concurrent creators agree on the first one stored."""
    await db.execute(
        "INSERT INTO service_secrets (name, value, create_time) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING",
        name,
        secrets.token_bytes(size),
        clock.now(),
    )
    value = await db.fetchval("SELECT value FROM service_secrets WHERE name = $1", name)
    return bytes(value)


async def first_service_value(db: Database, name: str, value: bytes) -> bytes:
    """The named value, `value` if none was stored yet; concurrent callers agree on the first stored."""
    await db.execute(
        "INSERT INTO service_secrets (name, value, create_time) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING",
        name, value, clock.now(),
    )  # fmt: skip
    stored = await db.fetchval("SELECT value FROM service_secrets WHERE name = $1", name)
    return bytes(stored)


# This module owns the service_secrets table: settings shared by every process (the issuer URL) go
# through these too.


async def set_service_value(db: Database, name: str, value: bytes) -> None:
    await db.execute(
        "INSERT INTO service_secrets (name, value, create_time) VALUES ($1, $2, $3)"
        " ON CONFLICT (name) DO UPDATE SET value = excluded.value",
        name, value, clock.now(),
    )  # fmt: skip


async def service_value(db: Database, name: str) -> bytes | None:
    value = await db.fetchval("SELECT value FROM service_secrets WHERE name = $1", name)
    return None if value is None else bytes(value)
