"""The token exchange's HTTP routes (`/sts/exchange`, `/sts/exchange_refresh_token`, `/auth/v1/register`):
Starlette routes served before the API router, because they read query or form parameters and a bearer
that is not our token. Each turns its parameters into the contract's request record and calls the same
function as the gRPC methods (signin/sts.py).

`POST /oauth/revoke` (RFC 7009: form `token`) ends a login: its refresh token's family (signin/sts.py).

Human login (signin/login.py): `GET /oauth` (a redirect to the login provider, with the pending login sealed in a
cookie), `GET /oauth/callback` (the provider's return: the result posted by a form to a loopback callback or
our own console, a redirect to a configured console origin's page with the result in the fragment, or a page
for a headless login). WhoAmI
(`/auth/v1/ok`) and `/sts/headless_sessions` are contract methods, served by the API router.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qsl

import msgspec
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from platform_api.api import caps, http_errors, login_pages, schema
from platform_api.core import bodies, errors
from platform_api.gen.records.auth import RegistrationRequest
from platform_api.gen.records.oidc import ExchangeRefreshTokenRequest, ExchangeRequest, RawToken, TokenPair
from platform_api.service import storage
from platform_api.service.runtime import Runtime
from platform_api.signin import login, login_state
from platform_api.signin.sts import REGISTER_PATH, REVOKE_PATH, exchange, exchange_refresh_token, register, revoke
from platform_api.store import Unavailable

log = logging.getLogger(__name__)
FORM = "application/x-www-form-urlencoded"


async def _params(request: Request) -> dict[str, list[str]]:
    """Query parameters plus form parameters (the SDK's HTTP/1 fallback POSTs them form-encoded)."""
    out: dict[str, list[str]] = {}
    pairs = list(request.query_params.multi_items())
    if request.method == "POST" and request.headers.get("content-type", "").startswith(
        "application/x-www-form-urlencoded"
    ):
        body = await bodies.read(request.scope, request.receive, bodies.MAX_FORM)
        pairs += parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=False)
    for k, v in pairs:
        out.setdefault(k, []).append(v)
    return out


def _one(params: dict[str, list[str]], *names: str) -> str:
    return next((params[n][0] for n in names if params.get(n)), "")


def _authorization(request: Request) -> str:
    if len(request.headers.getlist("authorization")) > 1:
        raise errors.duplicate_authorization()
    return request.headers.get("authorization", "")


def peer(request: Request) -> str:
    """The client's address (the rate limits' key)."""
    return request.client.host if request.client else ""


def routes(rt: Runtime) -> list[Any]:
    domain = f"iam.{rt.settings.error_domain_base}"
    secure = rt.settings.issuer.startswith("https://")
    sts = "chainguard.platform.oidc.SecurityTokenService."
    exchange_caps, refresh_caps = (schema.methods()[sts + name].caps for name in ("Exchange", "ExchangeRefreshToken"))

    def endpoint(run: Callable[[Request], Awaitable[Any]]) -> Any:
        """A JSON route answering google.rpc.Status errors, never a stack trace. Wraps `run` (`platform-api
        routes` names it)."""

        @functools.wraps(run)
        async def handle(request: Request) -> Response:
            try:
                result = await run(request)
            except errors.ApiError as e:
                return http_errors.render(e, domain)
            except Unavailable as e:  # the database could not take it: 503 with Retry-After, not 500
                return http_errors.render(storage.refused(e), domain)
            except Exception:
                log.exception("%s failed", request.url.path)
                return http_errors.render(errors.internal(), domain)
            return Response(msgspec.json.encode(result), media_type="application/json")

        return handle

    async def http_exchange(request: Request) -> RawToken:
        """Repeated `scope` values all count (the union with `scopes`), as they always have over HTTP."""
        p = await _params(request)
        req = ExchangeRequest(
            aud=p.get("aud", []), identity=_one(p, "identity"), scopes=p.get("scopes", []) + p.get("scope", []),
            cap=p.get("cap", []), identity_provider=_one(p, "identity_provider", "identityProvider"),
        )  # fmt: skip
        # The contract's caps, as gRPC checks them (the capped fields' JSON names are their proto names).
        caps.check_json(exchange_caps, msgspec.structs.asdict(req))
        return await exchange(rt, req, _authorization(request), peer(request))

    async def http_refresh(request: Request) -> TokenPair:
        p = await _params(request)
        req = ExchangeRefreshTokenRequest(
            aud=p.get("aud", []), scopes=p.get("scopes", []) + p.get("scope", []), cap=p.get("cap", [])
        )
        caps.check_json(refresh_caps, msgspec.structs.asdict(req))
        return await exchange_refresh_token(rt, req, _authorization(request), peer(request))

    async def http_register(request: Request) -> dict[str, Any]:
        """POST /auth/v1/register {"code": "<invite code>", "identityId": ...}: answers {"identity": <uid>,
        "group": <group uid or "">} (the group always present, as this route has always answered)."""
        raw = await bodies.read(request.scope, request.receive, bodies.MAX_FORM)
        body = bodies.decode_json(raw) if raw.strip() else {}
        code = body.get("code", "") if isinstance(body, dict) else None
        if not isinstance(code, str):
            raise errors.invalid_argument("code", "code must be a string")
        identity_id = next((body[k] for k in ("identityId", "identity_id") if isinstance(body.get(k), str)), "")
        req = RegistrationRequest(code=code, identity_id=identity_id)
        session = await register(rt, req, _authorization(request), peer(request))
        return {"identity": session.identity, "group": session.group}

    async def http_revoke(request: Request) -> dict[str, Any]:
        """RFC 7009: form `token` (a refresh token; `token_type_hint` is only a hint), `{}` whether or not it
        was one of ours, so the answer tells a guesser nothing. Never from the URL, where tokens get logged."""
        if request.headers.get("content-type", "").split(";", 1)[0].strip().lower() != FORM:
            raise errors.invalid_argument("body", f"the token is posted as a form ({FORM})")
        if "token" in request.query_params:
            raise errors.invalid_argument("token", "the token goes in the form body, never in the URL")
        body = await bodies.read(request.scope, request.receive, bodies.MAX_FORM)
        try:
            pairs = parse_qsl(body.decode(), keep_blank_values=True, max_num_fields=8, errors="strict")
        except (UnicodeDecodeError, ValueError):
            raise errors.invalid_argument("body", "a form of at most 8 fields, in UTF-8") from None
        tokens = [v for k, v in pairs if k == "token"]
        if len(tokens) != 1 or not tokens[0] or "\x00" in tokens[0]:
            raise errors.invalid_argument("token", "one token to revoke")
        await revoke(rt, tokens[0], peer(request))
        return {}

    def redirecting(run: Callable[[Request], Awaitable[Response]]) -> Any:
        """A browser route: its own response (a redirect, a page), or a google.rpc.Status error. Wraps `run`
        (`platform-api routes` names it)."""

        @functools.wraps(run)
        async def handle(request: Request) -> Response:
            try:
                return await run(request)
            except errors.ApiError as e:
                return http_errors.render(e, domain)
            except Unavailable as e:  # the database could not take it: 503 with Retry-After, not 500
                return http_errors.render(storage.refused(e), domain)
            except Exception:
                log.exception("%s failed", request.url.path)
                return http_errors.render(errors.internal(), domain)

        return handle

    def query(request: Request) -> dict[str, list[str]]:
        items = request.query_params.multi_items()
        if len(items) > 64 or len(request.url.query) > 8192:
            raise errors.invalid_argument("query", "at most 64 parameters and 8 KiB")
        out: dict[str, list[str]] = {}
        for k, v in items:
            out.setdefault(k, []).append(v)
        return out

    def answer(outcome: login.Outcome) -> Response:
        """The browser's answer to a login route (api/login_pages.py), with the pending login's cookie: only
        for the callback's path, sent back on the provider's top-level redirect (Lax), never to scripts."""
        response: Response
        if outcome.redirect:
            response = RedirectResponse(outcome.redirect, status_code=302, headers=login_pages.NO_STORE)
        elif outcome.post_to:
            response = login_pages.form_post(outcome.post_to, outcome.fields)
        else:
            response = login_pages.message(outcome.page, outcome.confirmation, outcome.error)
        path = login.CALLBACK_PATH
        if outcome.cookie is not None:
            name, value = outcome.cookie
            response.set_cookie(name, value, login_state.PENDING_SECONDS, path=path, secure=secure, httponly=True,
                                samesite="lax")  # fmt: skip
        if outcome.clear_cookie:
            response.delete_cookie(outcome.clear_cookie, path=path, secure=secure, httponly=True, samesite="lax")
        return response

    async def http_oauth(request: Request) -> Response:
        here = request.headers.get("host", "")
        return answer(await rt.part(login.Login).begin(query(request), peer(request), here))

    async def http_callback(request: Request) -> Response:
        params = {k: v[0] for k, v in query(request).items()}
        return answer(await rt.part(login.Login).finish(params, dict(request.cookies), peer(request)))

    return [
        Route("/oauth", redirecting(http_oauth), methods=["GET"]),
        Route(login.CALLBACK_PATH, redirecting(http_callback), methods=["GET"]),
        Route("/sts/exchange", endpoint(http_exchange), methods=["GET", "POST"]),
        Route("/sts/exchange_refresh_token", endpoint(http_refresh), methods=["GET", "POST"]),
        Route(REGISTER_PATH, endpoint(http_register), methods=["POST"]),
        Route(REVOKE_PATH, endpoint(http_revoke), methods=["POST"]),
    ]
