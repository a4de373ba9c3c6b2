"""Our issuer's signing keys: RSA (RS256), kept in the database so that they survive restarts and every
process on the same database signs and verifies with the same set.

One key signs at a time (the newest without a retire time). Rotation adds a new key and retires the old
one, which stays in the JWKS, and keeps verifying, until every token it signed has expired. Processes
re-read the set periodically and whenever a token names a key id they have not seen.
"""

from __future__ import annotations

import json
import secrets
import time
from dataclasses import dataclass
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

from platform_api.core import clock
from platform_api.store.db import Conn, Database

ALG = "RS256"
# A retired key is published this long after it stopped signing (longer than any token it signed lives).
RETIRED_KEY_GRACE_SECONDS = 2 * 3600 + 300
RELOAD_SECONDS = 30.0


@dataclass(frozen=True)
class SigningKey:
    kid: str
    private: Any  # cryptography private key
    public: Any
    jwk: dict[str, Any]
    create_time: str
    retire_time: str


def _generate() -> tuple[str, str, str]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    kid = secrets.token_hex(8)
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    jwk = json.loads(RSAAlgorithm.to_jwk(key.public_key()))
    jwk.update({"kid": kid, "alg": ALG, "use": "sig"})
    return kid, pem, json.dumps(jwk, sort_keys=True)


def _parse(row: Any) -> SigningKey:
    kid, pem, jwk, created, retired = (
        row["kid"],
        row["private_pem"],
        row["public_jwk"],
        row["create_time"],
        row["retire_time"],
    )
    # Our own key, generated here and read back from our own database: checking its RSA parameters again (28 ms
    # a key, at every start and every token command) guards against nothing that could write that row.
    private = serialization.load_pem_private_key(pem.encode(), password=None, unsafe_skip_rsa_key_validation=True)
    return SigningKey(kid, private, private.public_key(), json.loads(jwk), created, retired)


async def listing(db: Conn) -> list[Any]:
    """Every key's kid, create_time and retire_time, oldest first (`platform-api keys list`)."""
    rows: list[Any] = await db.fetch("SELECT kid, create_time, retire_time FROM signing_keys ORDER BY create_time")
    return rows


async def create(db: Database) -> str:
    """Add a new signing key and retire the others (they keep verifying); returns its kid."""
    kid, pem, jwk = _generate()
    now = clock.now()
    async with db.transaction() as tx:
        await tx.execute("UPDATE signing_keys SET retire_time = $1 WHERE retire_time = ''", now)
        await tx.execute(
            "INSERT INTO signing_keys (kid, alg, private_pem, public_jwk, create_time) VALUES ($1, $2, $3, $4, $5)",
            kid, ALG, pem, jwk, now,
        )  # fmt: skip
    return kid


async def ensure(db: Database) -> None:
    """Create the first signing key if there is none (concurrent starters may both create one: the
    newest signs, the other is retired at once and still verifies)."""
    if await db.fetchval("SELECT 1 FROM signing_keys WHERE retire_time = '' LIMIT 1") is None:
        await create(db)


class KeySet:
    """The keys of this issuer as last read from the database."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.by_kid: dict[str, SigningKey] = {}
        self.signing: SigningKey | None = None
        self._loaded_at = 0.0

    async def load(self) -> None:
        rows = await self.db.fetch(
            "SELECT kid, private_pem, public_jwk, create_time, retire_time FROM signing_keys ORDER BY create_time, kid"
        )
        known = {k: v for k, v in self.by_kid.items()}
        keys: dict[str, SigningKey] = {}
        for row in rows:
            k = known.get(row["kid"])
            keys[row["kid"]] = k if k is not None and k.retire_time == row["retire_time"] else _parse(row)
        active = [k for k in keys.values() if not k.retire_time]
        self.by_kid = keys
        self.signing = active[-1] if active else None
        self._loaded_at = time.monotonic()

    async def refresh_if_stale(self) -> None:
        if time.monotonic() - self._loaded_at > RELOAD_SECONDS:
            await self.load()

    async def lookup(self, kid: str) -> SigningKey | None:
        """The key with this id. An unknown id costs one look at the (tiny) key table, and a reload only
        when that shows a key we have not loaded: forged ids cost no more than an ordinary request."""
        await self.refresh_if_stale()
        key = self.by_kid.get(kid)
        if key is None and await self.db.fetchval("SELECT 1 FROM signing_keys WHERE kid = $1", kid) is not None:
            await self.load()
            key = self.by_kid.get(kid)
        return key

    def jwks(self) -> dict[str, Any]:
        """Public keys to publish: the signing key and retired keys whose tokens may still be alive."""
        now = time.time()
        out = []
        for k in self.by_kid.values():
            if k.retire_time and now - clock.to_epoch(k.retire_time) > RETIRED_KEY_GRACE_SECONDS:
                continue
            out.append(k.jwk)
        return {"keys": out}

    def verifies(self, key: SigningKey) -> bool:
        """Whether tokens signed by `key` are still accepted (retired keys: within the grace period)."""
        return not key.retire_time or time.time() - clock.to_epoch(key.retire_time) <= RETIRED_KEY_GRACE_SECONDS

    def sign(self, claims: dict[str, Any], typ: str = "JWT") -> str:
        if self.signing is None:
            raise RuntimeError("no signing key loaded")
        return jwt.encode(claims, self.signing.private, algorithm=ALG, headers={"kid": self.signing.kid, "typ": typ})
