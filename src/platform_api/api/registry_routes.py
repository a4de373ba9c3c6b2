"""A Distribution registry's two routes to us:
- `GET /registry/token`: its token service (Docker's token authentication: `service`, repeated `scope`,
  credentials by HTTP Basic whose password is one of our access tokens, or a bearer). Which actions are
  granted is registry/dataplane/tokens.py's; the signature auth/registry_certs.py's.
- `POST /registry/notifications`: its notification endpoint (registry/dataplane/notifications.py), with the
  secret `registry-config` put in its config; 503 when the registry cannot be read back, so it retries.

A request without credentials, or with credentials that are not a valid token of ours, answers 401 with a
Basic challenge (what makes `docker login` ask for a password) and counts against the anonymous rate limit.
"""

from __future__ import annotations

import base64
import binascii
import hmac
import logging
from typing import Any

import msgspec
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from platform_api.api import http_errors
from platform_api.api.sts_routes import peer
from platform_api.auth import registry_certs
from platform_api.auth.access import Access
from platform_api.core import bodies, clock, errors
from platform_api.core.ratelimit import AnonymousLimit
from platform_api.registry.dataplane import content, tokens
from platform_api.registry.dataplane import notifications as notices
from platform_api.service import runtime, storage
from platform_api.service.runtime import Runtime
from platform_api.store import Unavailable

log = logging.getLogger(__name__)
TOKEN_PATH = tokens.TOKEN_PATH
NOTIFY_PATH = notices.NOTIFY_PATH
MAX_HEADER = 8192


def _token_of(authorization: str) -> str:
    """Our access token from `Basic <user:token>` or `Bearer <token>`; "" when there is none."""
    scheme, _, value = authorization.partition(" ")
    value = value.strip()
    if scheme.lower() == "bearer":
        return value
    if scheme.lower() == "basic" and value:
        try:
            _, _, password = base64.b64decode(value, validate=True).decode("utf-8").partition(":")
        except (binascii.Error, UnicodeDecodeError):
            return ""
        return password
    return ""


def routes(rt: Runtime) -> list[Any]:
    domain = f"registry.{rt.settings.error_domain_base}"

    def anonymous(request: Request) -> None:
        """A request without a valid credential spends the client's anonymous budget (429 when it is out)."""
        rt.part(AnonymousLimit).check(peer(request))

    def refuse(e: errors.ApiError) -> Response:
        answer = http_errors.render(e, domain)
        if e.code == errors.UNAUTHENTICATED:
            answer.headers["www-authenticate"] = f'Basic realm="{rt.settings.issuer}{TOKEN_PATH}"'
        return answer

    async def token(request: Request) -> Response:
        try:
            headers = request.headers.getlist("authorization")
            if len(headers) > 1:
                raise errors.duplicate_authorization()
            presented = _token_of(headers[0]) if headers and len(headers[0]) <= MAX_HEADER else ""
            if not presented:
                anonymous(request)
                raise errors.unauthenticated("credentials required: HTTP Basic with an access token as password")
            access = rt.part(Access)
            try:
                principal = await access.authenticate("Bearer " + presented)
            except errors.ApiError:
                anonymous(request)
                raise
            service = request.query_params.get("service", "")
            if service != rt.settings.registry_service:
                raise errors.invalid_argument("service", f"this token service serves {rt.settings.registry_service!r}")
            scopes = tokens.parse(request.query_params.getlist("scope"))
            granted = await tokens.grant(rt.db, principal, scopes)
            ca = await registry_certs.of(rt)
            await access.keys.refresh_if_stale()
            claims = registry_certs.claims(rt.settings.issuer, service, principal.subject, granted)
            signed = ca.sign(access.keys, claims)
        except errors.ApiError as e:
            return refuse(e)
        except Unavailable as e:
            return refuse(storage.refused(e))
        except Exception:
            log.exception("%s failed", TOKEN_PATH)
            return refuse(errors.internal())
        body = {
            "token": signed,
            "access_token": signed,
            "expires_in": registry_certs.TOKEN_SECONDS,
            "issued_at": clock.now(),
        }
        return Response(msgspec.json.encode(body), media_type="application/json")

    secrets_: list[bytes] = []

    async def notifications(request: Request) -> Response:
        """Distribution's notification endpoint: `Authorization: Bearer <secret>` (the config's header)."""
        try:
            if not secrets_:
                secrets_.append(await runtime.service_secret(rt.db, notices.SECRET))
            expected = b"Bearer " + secrets_[0].hex().encode()
            given = request.headers.get("authorization", "").encode()
            if len(request.headers.getlist("authorization")) != 1 or not hmac.compare_digest(given, expected):
                anonymous(request)
                raise errors.unauthenticated("not the registry's notification secret")
            body = await bodies.read(request.scope, request.receive, notices.MAX_ENVELOPE)
            outcomes = await notices.apply(rt, notices.parse(body))
        except errors.ApiError as e:
            return refuse(e)
        except Unavailable as e:  # the registry delivers the envelope again
            return refuse(storage.refused(e))
        except content.Unreachable as e:  # the registry delivers the envelope again
            log.warning("registry notification not applied: %s", e)
            return refuse(errors.unavailable("the registry could not be read back"))
        except Exception:
            log.exception("%s failed", notices.NOTIFY_PATH)
            return refuse(errors.internal())
        return Response(msgspec.json.encode(outcomes), media_type="application/json")

    return [
        Route(TOKEN_PATH, token, methods=["GET"]),
        Route(notices.NOTIFY_PATH, notifications, methods=["POST"]),
    ]
