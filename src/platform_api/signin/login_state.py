"""A pending login between `GET /oauth` and `GET /oauth/callback` (docs/sign-in.md), kept by the
browser that started it, so that a login nobody finishes costs the server nothing.

`/oauth` seals the pending login (PKCE verifier, nonce, the client's parameters, its expiry) with AES-256-GCM
under the server secret `login_state_key` (table service_secrets, shared by every process on the database, as
the page-token key is), the associated data being the hash of the login's `state`, and hands it to the browser
in an HttpOnly cookie named after that hash (so two logins in one browser coexist). The callback opens the
cookie of the `state` the provider returned: a cookie of another login, altered or expired opens to nothing.
A state is spent once on every process: a small row keyed by its hash (table login_spent_states, inserted
with ON CONFLICT DO NOTHING, kept as long as the sealed login could still be opened). Only a callback with a
valid cookie writes one, so each costs its sender a real `/oauth` round trip under the per-address rate
limit; there is no server-wide room one client could fill.
"""

from __future__ import annotations

import hashlib

import msgspec

from platform_api.core import clock, sealed
from platform_api.service import runtime
from platform_api.store.db import Database

PENDING_SECONDS = 600
COOKIE_PREFIX = "pa_login_"
# Far below the 4 KiB a browser keeps per cookie (name and attributes included): /oauth refuses a login whose
# parameters would not fit, instead of a cookie the browser drops.
MAX_COOKIE_CHARS = 3000
_SECRET = "login_state_key"


class Pending(msgspec.Struct, frozen=True, array_like=True):
    """A login between /oauth and /oauth/callback (sealed into its cookie, compact: a JSON array)."""

    verifier: str
    nonce: str
    issuer_hash: str  # of the provider's issuer: the callback checks that it is still the one asked
    expires: int  # epoch seconds
    redirect: str = ""
    idp: str = ""
    refresh: bool = False
    invite: str = ""
    identity: str = ""
    headless: str = ""
    scopes: list[str] = msgspec.field(default_factory=list)
    state: str = ""  # the client's own `state`, echoed back with the result


def digest(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


def cookie_name(state: str) -> str:
    return COOKIE_PREFIX + digest(state)[:24]


class LoginStates:
    def __init__(self, db: Database) -> None:
        self.db = db
        self._key = b""

    async def _secret(self) -> bytes:
        if not self._key:
            self._key = await runtime.service_secret(self.db, _SECRET)
        return self._key

    async def seal(self, state: str, pending: Pending) -> str | None:
        """The cookie value of `pending` for `state`; None when it would be too large for a cookie."""
        value = sealed.seal(await self._secret(), msgspec.json.encode(pending), digest(state).encode())
        return value if len(value) <= MAX_COOKIE_CHARS else None

    async def open(self, state: str, value: str) -> Pending | None:
        """The pending login `value` seals for `state`; None if it does not, or it expired."""
        plain = sealed.unseal(await self._secret(), value, digest(state).encode(), MAX_COOKIE_CHARS)
        if plain is None:
            return None
        try:
            pending = msgspec.json.decode(plain, type=Pending)
        except msgspec.DecodeError:
            return None
        return pending if pending.expires > clock.to_epoch(clock.now()) else None

    async def spend(self, state: str, pending: Pending) -> bool:
        """True the first time `state` is spent, on any process; False after."""
        now = clock.now()
        async with self.db.transaction() as tx:
            await tx.execute("DELETE FROM login_spent_states WHERE expire_time <= $1", now)
            added = await tx.execute(
                "INSERT INTO login_spent_states (state_hash, expire_time) VALUES ($1, $2)"
                " ON CONFLICT (state_hash) DO NOTHING",
                digest(state), clock.from_epoch(pending.expires),
            )  # fmt: skip
        return bool(added)
