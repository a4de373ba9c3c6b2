"""Our issuer's identity outside a serving process: the URL the server last started with (so that tokens
minted from the command line carry the same `iss`) and minting a token from the stored keys."""

from __future__ import annotations

from platform_api.auth import keys
from platform_api.auth.keys import KeySet
from platform_api.auth.tokens import TokenService
from platform_api.core.settings import Settings
from platform_api.service import runtime
from platform_api.store.db import Database

ISSUER_URL_KEY = "issuer_url"


async def record_issuer(db: Database, issuer: str) -> None:
    """The serving issuer URL, so that tokens minted from the command line carry the same `iss`."""
    await runtime.set_service_value(db, ISSUER_URL_KEY, issuer.encode())


async def issuer_of(db: Database, settings: Settings, explicit: bool) -> str:
    if explicit:
        return settings.issuer
    stored = await runtime.service_value(db, ISSUER_URL_KEY)
    return stored.decode() if stored is not None else settings.issuer


async def mint(db: Database, issuer: str, audience: str, subject: str, ttl: int) -> str:
    await keys.ensure(db)
    key_set = KeySet(db)
    await key_set.load()
    token, _ = TokenService(key_set, issuer, audience).mint(subject, ttl=ttl)
    return token
