"""Verifying tokens of upstream OIDC issuers (GitHub Actions, GitLab, Kubernetes, an IdP ...), through
their discovery document and JWKS.

Only issuers that an identity, an identity provider or the configuration names are ever contacted, and
only over https (http on loopback under `--insecure-allow-loopback`). Key sets are cached; an unknown
`kid` refetches at most once per cooldown, so a flood of forged tokens cannot hammer the issuer.
Fetches have short timeouts and size limits. Every failure raises `Rejected` with an internal reason
for the log; callers answer the client without saying which check failed.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from dataclasses import dataclass
from typing import Any

import httpx
import jwt

from platform_api.auth import matching

log = logging.getLogger("platform_api.upstream")

# Asymmetric algorithms only: an upstream token signed with a shared secret (or none) is never accepted.
ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"]
JWKS_TTL_SECONDS = 3600.0
UNKNOWN_KID_COOLDOWN_SECONDS = 30.0
MAX_DOCUMENT_BYTES = 256 * 1024
LEEWAY_SECONDS = 60


class Rejected(Exception):
    """The upstream token is not acceptable; the message is for the log only."""


@dataclass
class _Keys:
    keys: jwt.PyJWKSet
    fetched: float


class UpstreamVerifier:
    def __init__(self, allow_loopback_http: bool) -> None:
        self.allow_loopback_http = allow_loopback_http
        self._http = httpx.AsyncClient(timeout=httpx.Timeout(5.0, connect=2.0), follow_redirects=False)
        self._keys: dict[str, _Keys] = {}
        self._last_refetch: dict[str, float] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    async def close(self) -> None:
        await self._http.aclose()

    async def _get_json(self, url: str) -> Any:
        if not matching.url_allowed(url, self.allow_loopback_http):
            raise Rejected(f"refusing to fetch {url!r}: not https")
        try:
            async with self._http.stream("GET", url, headers={"accept": "application/json"}) as r:
                if r.status_code != 200:
                    raise Rejected(f"{url} answered {r.status_code}")
                body = b""
                async for chunk in r.aiter_bytes():
                    body += chunk
                    if len(body) > MAX_DOCUMENT_BYTES:
                        raise Rejected(f"{url} answered more than {MAX_DOCUMENT_BYTES} bytes")
        except httpx.HTTPError as e:
            raise Rejected(f"fetching {url} failed: {e!r}") from None
        try:
            return json.loads(body)
        except ValueError:
            raise Rejected(f"{url} did not answer JSON") from None

    async def _fetch_keys(self, issuer: str) -> _Keys:
        config = await self._get_json(issuer.rstrip("/") + "/.well-known/openid-configuration")
        if not isinstance(config, dict) or config.get("issuer") != issuer:
            raise Rejected(f"discovery document of {issuer} names another issuer")
        jwks_uri = config.get("jwks_uri")
        if not isinstance(jwks_uri, str):
            raise Rejected(f"discovery document of {issuer} has no jwks_uri")
        data = await self._get_json(jwks_uri)
        try:
            keys = jwt.PyJWKSet.from_dict(data)
        except jwt.PyJWTError as e:
            raise Rejected(f"JWKS of {issuer} is unusable: {e}") from None
        return _Keys(keys, time.monotonic())

    async def _key(self, issuer: str, kid: str | None) -> jwt.PyJWK:
        lock = self._locks.setdefault(issuer, asyncio.Lock())
        async with lock:
            cached = self._keys.get(issuer)
            now = time.monotonic()
            if cached is None or now - cached.fetched > JWKS_TTL_SECONDS:
                cached = self._keys[issuer] = await self._fetch_keys(issuer)
            key = _find(cached.keys, kid)
            if key is None and now - self._last_refetch.get(issuer, 0.0) > UNKNOWN_KID_COOLDOWN_SECONDS:
                self._last_refetch[issuer] = now
                cached = self._keys[issuer] = await self._fetch_keys(issuer)
                key = _find(cached.keys, kid)
        if key is None:
            raise Rejected(f"{issuer} has no key {kid!r}")
        return key

    async def verify(self, token: str, issuer: str) -> dict[str, Any]:
        """The token's claims, once its signature, issuer (as the token spells it) and times check out.
        The audience is the caller's to check (each identity says which audience it accepts)."""
        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError:
            raise Rejected("malformed token") from None
        if header.get("alg") not in ALGORITHMS:
            raise Rejected(f"algorithm {header.get('alg')!r} not accepted")
        key = await self._key(matching.normalize_issuer(issuer), header.get("kid"))
        return verify_with(token, key, issuer)


def _find(keys: jwt.PyJWKSet, kid: str | None) -> jwt.PyJWK | None:
    candidates = [k for k in keys.keys if kid is None or k.key_id == kid]
    return candidates[0] if len(candidates) == 1 or (candidates and kid is not None) else None


def verify_with(token: str, key: jwt.PyJWK, issuer: str) -> dict[str, Any]:
    try:
        claims: dict[str, Any] = jwt.decode(
            token,
            key,
            algorithms=ALGORITHMS,
            issuer=issuer,
            leeway=LEEWAY_SECONDS,
            options={"require": ["exp", "iss", "sub"], "verify_aud": False},
        )
    except jwt.PyJWTError as e:
        raise Rejected(f"token rejected: {e}") from None
    return claims


def verify_static(token: str, jwks_json: str, issuer: str) -> dict[str, Any]:
    """Verify against a JWKS registered on an identity (static keys)."""
    try:
        keys = jwt.PyJWKSet.from_dict(json.loads(jwks_json))
        header = jwt.get_unverified_header(token)
    except (jwt.PyJWTError, ValueError):
        raise Rejected("malformed token or key set") from None
    if header.get("alg") not in ALGORITHMS:
        raise Rejected(f"algorithm {header.get('alg')!r} not accepted")
    key = _find(keys, header.get("kid"))
    if key is None:
        raise Rejected("no matching static key")
    return verify_with(token, key, issuer)


def unverified_claims(token: str) -> dict[str, Any]:
    """The claims before verification: only to decide whom to ask for the keys."""
    try:
        claims: dict[str, Any] = jwt.decode(token, options={"verify_signature": False})
    except jwt.PyJWTError:
        raise Rejected("malformed token") from None
    if not isinstance(claims.get("iss"), str) or not claims["iss"] or not isinstance(claims.get("sub"), str):
        raise Rejected("token without issuer or subject")
    return claims
