"""Verifying tokens of upstream OIDC issuers (GitHub Actions, GitLab, Kubernetes, an IdP ...), through
their discovery document and JWKS.

Only issuers that an identity, an identity provider or the configuration names are ever contacted, and
only as `core.netcheck` allows for webhook sinks: https, a canonical host name, every address it resolves
to public (http and loopback addresses under `--insecure-allow-loopback`), the connection pinned to the
checked address with the issuer's host name as Host header and TLS server name (certificates are verified
against that name). The operator's `sink_allowed_networks` do not extend to issuers. The `jwks_uri` of a
discovery document passes the same checks; on another origin than the issuer's it must pass them without
the insecure flag (public https), so a loopback issuer cannot point us at other local ports. No proxy from
the environment, no redirects, no pooled connections (each fetch connects to the address it checked).

Key sets are cached (a bounded LRU: issuers come from unauthenticated tokens); an unknown `kid` refetches
at most once per cooldown, so a flood of forged tokens cannot hammer the issuer. Fetches have short
timeouts and size limits. Every failure raises `Rejected` with an internal reason for the log; callers
answer the client without saying which check failed.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from dataclasses import dataclass, field
from typing import Any

import httpx
import jwt

from platform_api.auth import matching
from platform_api.core import netcheck
from platform_api.core.lru import LRU

log = logging.getLogger(__name__)

# Asymmetric algorithms only: an upstream token signed with a shared secret (or none) is never accepted.
ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"]
JWKS_TTL_SECONDS = 3600.0
UNKNOWN_KID_COOLDOWN_SECONDS = 30.0
MAX_DOCUMENT_BYTES = 256 * 1024
MAX_ISSUER = 2048
MAX_CACHED_ISSUERS = 256
MAX_KEYS = 64  # per issuer: real key sets hold a handful; this bounds what one cache entry holds
LEEWAY_SECONDS = 60


class Rejected(Exception):
    """The upstream token is not acceptable; the message is for the log only."""


@dataclass
class _Keys:
    keys: jwt.PyJWKSet
    fetched: float
    refetched: float = 0.0  # last refetch for an unknown kid


@dataclass
class _Flight:
    """Serializes the fetches of one issuer; dropped when no request waits on it."""

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    users: int = 0


def pinned(target: netcheck.Target) -> dict[str, Any]:
    """httpx request arguments that connect to `target.url` (the checked address) while speaking to the
    host by name: Host header, and TLS server name (httpcore verifies the certificate against it)."""
    extensions = {"sni_hostname": target.host} if target.scheme == "https" else {}
    return {"headers": {"host": target.host_header, "accept": "application/json"}, "extensions": extensions}


def _origin(url: str) -> tuple[str, str, int]:
    scheme, host, port, _ = netcheck.split(url, allow_loopback_http=True)
    return scheme, host, port


def outbound_client(total: float, connect: float) -> httpx.AsyncClient:
    """A client for calls to upstream providers: no redirects, no proxy settings from the environment, no
    kept connections (each call's address is checked anew by the caller)."""
    return httpx.AsyncClient(
        timeout=httpx.Timeout(total, connect=connect),
        follow_redirects=False,
        trust_env=False,
        limits=httpx.Limits(max_keepalive_connections=0),
    )


class Outbound:
    """The process's async HTTP client for reads of other services that the caller checks itself (the
    registry read-back: its configured URL, and redirects checked by netcheck.resolve and pinned): one
    connection pool for the process, closed in the app's lifespan. A part of the runtime (`rt.part(Outbound)`)."""

    def __init__(self, total: float, connect: float) -> None:
        self.client = outbound_client(total, connect)

    async def close(self) -> None:
        await self.client.aclose()


class UpstreamVerifier:
    def __init__(self, allow_loopback_http: bool) -> None:
        self.allow_loopback_http = allow_loopback_http
        self._http = outbound_client(5.0, 2.0)
        self._keys: LRU[str, _Keys] = LRU(MAX_CACHED_ISSUERS)
        self._flights: dict[str, _Flight] = {}

    async def close(self) -> None:
        await self._http.aclose()

    async def _get_json(self, url: str, allow_loopback: bool) -> Any:
        try:
            target = await netcheck.resolve(url, allow_loopback)
        except netcheck.Refused as e:
            raise Rejected(f"refusing to fetch {url!r}: {e}") from None
        try:
            async with self._http.stream("GET", target.url, **pinned(target)) as r:
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
        except (ValueError, RecursionError):  # a document nested deeper than the decoder goes is no answer
            raise Rejected(f"{url} did not answer JSON") from None

    async def _fetch_keys(self, issuer: str) -> _Keys:
        config = await self._get_json(
            issuer.rstrip("/") + "/.well-known/openid-configuration", self.allow_loopback_http
        )
        if not isinstance(config, dict) or config.get("issuer") != issuer:
            raise Rejected(f"discovery document of {issuer} names another issuer")
        jwks_uri = config.get("jwks_uri")
        if not isinstance(jwks_uri, str) or len(jwks_uri) > MAX_ISSUER:
            raise Rejected(f"discovery document of {issuer} has no usable jwks_uri")
        try:
            same_origin = _origin(jwks_uri) == _origin(issuer)
        except netcheck.Refused as e:
            raise Rejected(f"jwks_uri {jwks_uri!r} of {issuer}: {e}") from None
        # Elsewhere than the issuer, the insecure flag does not apply: only public https key sets.
        data = await self._get_json(jwks_uri, self.allow_loopback_http and same_origin)
        if not isinstance(data, dict) or not isinstance(data.get("keys"), list) or len(data["keys"]) > MAX_KEYS:
            raise Rejected(f"JWKS of {issuer} is not a key set of at most {MAX_KEYS} keys")
        try:
            keys = jwt.PyJWKSet.from_dict(data)
        except jwt.PyJWTError as e:
            raise Rejected(f"JWKS of {issuer} is unusable: {e}") from None
        return _Keys(keys, time.monotonic())

    async def _key(self, issuer: str, kid: str | None) -> jwt.PyJWK:
        flight = self._flights.setdefault(issuer, _Flight())
        flight.users += 1
        try:
            async with flight.lock:
                key = await self._cached_key(issuer, kid)
        finally:
            flight.users -= 1
            if not flight.users:
                del self._flights[issuer]
        if key is None:
            raise Rejected(f"{issuer} has no key {kid!r}")
        return key

    async def _cached_key(self, issuer: str, kid: str | None) -> jwt.PyJWK | None:
        cached = self._keys.get(issuer)
        now = time.monotonic()
        if cached is None or now - cached.fetched > JWKS_TTL_SECONDS:
            fresh = await self._fetch_keys(issuer)
            fresh.refetched = cached.refetched if cached else 0.0
            cached = fresh
            self._keys.put(issuer, cached)
        key = _find(cached.keys, kid)
        if key is None and now - cached.refetched > UNKNOWN_KID_COOLDOWN_SECONDS:
            cached = await self._fetch_keys(issuer)
            cached.refetched = now
            self._keys.put(issuer, cached)
            key = _find(cached.keys, kid)
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
        if len(issuer) > MAX_ISSUER:
            raise Rejected("issuer too long")
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
    except (jwt.PyJWTError, RecursionError):  # claims nested deeper than the decoder goes are malformed too
        raise Rejected("malformed token") from None
    if not isinstance(claims.get("iss"), str) or not claims["iss"] or not isinstance(claims.get("sub"), str):
        raise Rejected("token without issuer or subject")
    if not claims["sub"].strip():
        raise Rejected("token with an empty subject")  # nobody in particular: no identity may be keyed on it
    if len(claims["iss"]) > MAX_ISSUER:  # before anything is looked up or keyed on it
        raise Rejected("issuer too long")
    if _holds_nul(claims):
        # No identity can hold a NUL character, and PostgreSQL text cannot even be compared with one: refused
        # here, at every entry (token exchange, browser login, registration), before anything is stored.
        raise Rejected("a claim holds a NUL character")
    return claims


def _holds_nul(value: Any) -> bool:
    """Whether a NUL character is in any string of a decoded claims set, keys included (a token's size bounds
    the walk: it arrived in one request)."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            if "\x00" in v:
                return True
        elif isinstance(v, dict):
            stack.extend(v.keys())
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return False
