"""Our side of a login at an upstream OIDC provider (a relying party): its discovery document, the
authorization URL with PKCE (S256), `state` and `nonce`, and the code redeemed at its token endpoint.

Outbound rules are those of issuer discovery (auth/upstream.py): only providers an identity provider or the
configuration names, checked addresses (http and loopback only under `--insecure-allow-loopback`), the
connection pinned to the checked address, no redirects, no proxy, short timeouts, bounded bodies. A token
endpoint on another origin than the issuer must pass the checks without the insecure flag (public https),
as a `jwks_uri` must. The ID token's signature is checked with the provider's JWKS through the shared
UpstreamVerifier (its cache and refetch cooldown); audience and nonce are checked here.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import httpx

from platform_api.auth import matching, upstream
from platform_api.core import netcheck
from platform_api.core.lru import LRU

DISCOVERY_TTL_SECONDS = 3600.0
MAX_BODY_BYTES = 256 * 1024
MAX_PROVIDERS = 256
BASE_SCOPES = ("openid", "email", "profile")


@dataclass(frozen=True)
class Provider:
    """What a login needs of one upstream provider."""

    issuer: str
    client_id: str
    client_secret: str
    scopes: tuple[str, ...]
    groups_claim: str = ""


@dataclass(frozen=True)
class Endpoints:
    authorization: str
    token: str
    basic_auth: bool  # client_secret_basic (OIDC's default), else client_secret_post
    fetched: float


def pkce_pair() -> tuple[str, str]:
    """(verifier, S256 challenge), RFC 7636."""
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


def authorization_url(
    endpoints: Endpoints, provider: Provider, redirect_uri: str, state: str, nonce: str, challenge: str
) -> str:
    scopes = list(dict.fromkeys([*BASE_SCOPES, *provider.scopes]))
    query = urlencode({
        "response_type": "code", "client_id": provider.client_id, "redirect_uri": redirect_uri,
        "scope": " ".join(scopes), "state": state, "nonce": nonce,
        "code_challenge": challenge, "code_challenge_method": "S256",
    })  # fmt: skip
    sep = "&" if "?" in endpoints.authorization else "?"
    return endpoints.authorization + sep + query


def _origin(url: str) -> tuple[str, str, int]:
    scheme, host, port, _ = netcheck.split(url, allow_loopback_http=True)
    return scheme, host, port


class RelyingParty:
    def __init__(self, verifier: upstream.UpstreamVerifier) -> None:
        self.verifier = verifier
        self.allow_loopback = verifier.allow_loopback_http
        self._http = upstream.outbound_client(10.0, 3.0)
        self._endpoints: LRU[str, Endpoints] = LRU(MAX_PROVIDERS)

    async def close(self) -> None:
        await self._http.aclose()

    async def _send(self, method: str, url: str, allow_loopback: bool, **kwargs: Any) -> Any:
        """A JSON answer of `url` (any status: the caller decides), the address checked first."""
        try:
            target = await netcheck.resolve(url, allow_loopback)
        except netcheck.Refused as e:
            raise upstream.Rejected(f"refusing to contact {url!r}: {e}") from None
        args = upstream.pinned(target)
        args["headers"].update(kwargs.pop("headers", {}))
        try:
            async with self._http.stream(method, target.url, **args, **kwargs) as r:
                body = b""
                async for chunk in r.aiter_bytes():
                    body += chunk
                    if len(body) > MAX_BODY_BYTES:
                        raise upstream.Rejected(f"{url} answered more than {MAX_BODY_BYTES} bytes")
                status = r.status_code
        except httpx.HTTPError as e:
            raise upstream.Rejected(f"contacting {url} failed: {e!r}") from None
        try:
            return status, json.loads(body)
        except (ValueError, RecursionError):  # nested deeper than the decoder goes: no answer either
            raise upstream.Rejected(f"{url} answered {status} without JSON") from None

    async def endpoints(self, issuer: str) -> Endpoints:
        cached = self._endpoints.get(issuer)
        if cached is not None and time.monotonic() - cached.fetched < DISCOVERY_TTL_SECONDS:
            return cached
        url = issuer.rstrip("/") + "/.well-known/openid-configuration"
        status, config = await self._send("GET", url, self.allow_loopback)
        if status != 200 or not isinstance(config, dict) or config.get("issuer") != issuer:
            raise upstream.Rejected(f"discovery document of {issuer} is unusable or names another issuer")
        auth, token = config.get("authorization_endpoint"), config.get("token_endpoint")
        if not isinstance(auth, str) or not isinstance(token, str):
            raise upstream.Rejected(f"discovery document of {issuer} lacks the authorization or token endpoint")
        # The browser is sent to the authorization endpoint: the same URL rules as any issuer (no javascript:).
        if not netcheck.url_allowed(auth, self.allow_loopback) or len(auth) > upstream.MAX_ISSUER:
            raise upstream.Rejected(f"authorization endpoint {auth!r} of {issuer} refused")
        try:
            same_origin = _origin(token) == _origin(issuer)
        except netcheck.Refused as e:
            raise upstream.Rejected(f"token endpoint {token!r} of {issuer}: {e}") from None
        if not same_origin and not netcheck.url_allowed(token, False):
            raise upstream.Rejected(f"token endpoint {token!r} of {issuer} is elsewhere and not public https")
        methods = config.get("token_endpoint_auth_methods_supported")
        basic = not isinstance(methods, list) or "client_secret_basic" in methods or "client_secret_post" not in methods
        out = Endpoints(auth, token, basic, time.monotonic())
        self._endpoints.put(issuer, out)
        return out

    async def redeem(self, provider: Provider, code: str, verifier: str, redirect_uri: str) -> str:
        """The ID token the provider gives for `code` (authorization_code grant with the PKCE verifier)."""
        ends = await self.endpoints(provider.issuer)
        form = {"grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri,
                "code_verifier": verifier, "client_id": provider.client_id}  # fmt: skip
        headers = {"content-type": "application/x-www-form-urlencoded"}
        if provider.client_secret and ends.basic_auth:
            pair = f"{_form(provider.client_id)}:{_form(provider.client_secret)}".encode()
            headers["authorization"] = "Basic " + base64.b64encode(pair).decode()
        elif provider.client_secret:
            form["client_secret"] = provider.client_secret
        same = _origin(ends.token) == _origin(provider.issuer)
        status, answer = await self._send(
            "POST", ends.token, self.allow_loopback and same, content=urlencode(form).encode(), headers=headers
        )
        if status != 200 or not isinstance(answer, dict):
            error = answer.get("error") if isinstance(answer, dict) else None
            raise upstream.Rejected(f"token endpoint of {provider.issuer} answered {status} ({error!r})")
        id_token = answer.get("id_token")
        if not isinstance(id_token, str) or not id_token:
            raise upstream.Rejected(f"token endpoint of {provider.issuer} gave no ID token")
        return id_token

    async def verify_id_token(self, provider: Provider, id_token: str, nonce: str) -> dict[str, Any]:
        """Claims of an ID token for our client at `provider`: signature (its JWKS), iss, exp, aud, nonce."""
        unverified = upstream.unverified_claims(id_token)
        if matching.normalize_issuer(unverified["iss"]) != matching.normalize_issuer(provider.issuer):
            raise upstream.Rejected("ID token of another issuer")
        claims = await self.verifier.verify(id_token, unverified["iss"])
        audiences = matching.audiences(claims)
        if provider.client_id not in audiences:
            raise upstream.Rejected("ID token minted for another client")
        # OIDC Core 3.1.3.7: with several audiences, the authorized party must be us.
        if len(audiences) > 1 and claims.get("azp") != provider.client_id:
            raise upstream.Rejected("ID token with several audiences and another authorized party")
        if not isinstance(claims.get("nonce"), str) or not secrets.compare_digest(claims["nonce"], nonce):
            raise upstream.Rejected("ID token nonce does not match the login's")
        return claims


def _form(value: str) -> str:
    """RFC 6749 2.3.1: client id and secret are form-encoded before Basic authentication."""
    return urlencode({"": value})[1:]
