"""Access tokens of our issuer: minted for an identity, verified on every call.

Verification pins everything an attacker could vary: the algorithm (RS256 only, so `none` and an HMAC
token made with our public key fail), the key (by `kid`, from our own key set only), the issuer, the
audience, and the time claims (`exp`, `iat`, `nbf` within a small leeway). A verified token is cached
until it expires: the signature check costs ~150 µs, a cache hit well under one.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass, field
from typing import Any

import jwt

from platform_api.auth.keys import ALG, KeySet
from platform_api.core import errors

ACCESS_TOKEN_SECONDS = 3600
LEEWAY_SECONDS = 30
_CACHE_MAX = 50_000


@dataclass(frozen=True)
class AccessClaims:
    """What a verified access token says."""

    subject: str  # identity uid
    expires: float
    # Restrictions the token was minted with (token exchange `scopes` / `cap`); empty means none.
    scopes: tuple[str, ...] = ()
    cap_limit: tuple[str, ...] = ()
    # Session grants from external group mappings: (scope group uid, role uid).
    grants: tuple[tuple[str, str], ...] = ()
    act: dict[str, Any] = field(default_factory=dict)
    raw: dict[str, Any] = field(default_factory=dict)


def bad_token(message: str = "invalid or expired access token") -> errors.ApiError:
    return errors.unauthenticated(message)


class TokenService:
    def __init__(self, keys: KeySet, issuer: str, audience: str) -> None:
        self.keys = keys
        self.issuer = issuer
        self.audience = audience
        self._cache: dict[str, AccessClaims] = {}

    def mint(
        self,
        subject: str,
        *,
        audience: str | None = None,
        ttl: int = ACCESS_TOKEN_SECONDS,
        scopes: list[str] | None = None,
        cap_limit: list[str] | None = None,
        grants: list[tuple[str, str]] | None = None,
        act: dict[str, Any] | None = None,
        extra: dict[str, Any] | None = None,
    ) -> tuple[str, int]:
        """A signed access token for `subject` and its expiry (epoch seconds)."""
        now = int(time.time())
        claims: dict[str, Any] = {
            "iss": self.issuer,
            "aud": audience or self.audience,
            "sub": subject,
            "iat": now,
            "nbf": now,
            "exp": now + ttl,
            "jti": secrets.token_hex(12),
        }
        if scopes:
            claims["scopes"] = list(scopes)
        if cap_limit:
            claims["cap_limit"] = list(cap_limit)
        if grants:
            claims["grants"] = [{"scope": s, "role": r} for s, r in grants]
        if act:
            claims["act"] = act
        if extra:
            claims.update(extra)
        return self.keys.sign(claims), now + ttl

    async def verify(self, token: str) -> AccessClaims:
        hit = self._cache.get(token)
        if hit is not None:
            if time.time() < hit.expires + LEEWAY_SECONDS:
                return hit
            del self._cache[token]
            raise bad_token()
        claims = await self._decode(token)
        if len(self._cache) >= _CACHE_MAX:
            self._cache.clear()
        self._cache[token] = claims
        return claims

    async def _decode(self, token: str) -> AccessClaims:
        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError:
            raise bad_token("malformed access token") from None
        kid = header.get("kid")
        if header.get("alg") != ALG or not isinstance(kid, str):
            raise bad_token()
        key = await self.keys.lookup(kid)
        if key is None or not self.keys.verifies(key):
            raise bad_token()
        try:
            raw = jwt.decode(
                token,
                key.public,
                algorithms=[ALG],
                audience=self.audience,
                issuer=self.issuer,
                leeway=LEEWAY_SECONDS,
                options={"require": ["exp", "iat", "sub", "iss", "aud"]},
            )
        except jwt.PyJWTError:
            raise bad_token() from None
        sub = raw.get("sub")
        if not isinstance(sub, str) or not sub:
            raise bad_token()
        return AccessClaims(
            subject=sub,
            expires=float(raw["exp"]),
            scopes=tuple(str(s) for s in raw.get("scopes") or ()),
            cap_limit=tuple(str(c) for c in raw.get("cap_limit") or ()),
            grants=tuple((str(g.get("scope", "")), str(g.get("role", ""))) for g in raw.get("grants") or ()),
            act=act if isinstance(act := raw.get("act"), dict) else {},
            raw=raw,
        )
