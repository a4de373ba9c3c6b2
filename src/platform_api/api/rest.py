"""HTTP/JSON transport: a raw ASGI handler in front of a Starlette app.

API paths are transcoded here (router -> request record -> dispatch -> JSON); everything else
(health, metrics, OpenAPI, well-known documents, lifespan) is the Starlette app's. Unknown API
routes, wrong methods, malformed JSON and oversized bodies all answer structured errors.
"""

from __future__ import annotations

import itertools
import logging
import secrets
from typing import Any
from urllib.parse import parse_qsl

from platform_api.api import caps, dispatch, http_errors, omitted, schema, transcode
from platform_api.api.router import Match, Router
from platform_api.core import bodies, errors
from platform_api.service.context import Context
from platform_api.service.methods import MethodInfo
from platform_api.service.runtime import Runtime

log = logging.getLogger(__name__)

_JSON = [(b"content-type", b"application/json")]
# Request ids: unique per process start, then a counter (uuid4 cost more than the rest of a GET's routing).
_ID_PREFIX = secrets.token_hex(6)
_ids = itertools.count(1)
ASGIApp = Any


class RestApp:
    def __init__(self, rt: Runtime, methods: list[MethodInfo], fallback: ASGIApp, routes: list[Any]) -> None:
        self.rt = rt
        self.router = Router(methods)
        self.fallback = fallback
        # The fallback app's Starlette routes (`platform-api routes` lists them) and their paths.
        self.fallback_routes = routes
        self.own_paths = {r.path for r in routes}
        # A route with a `{name:path}` parameter (the console's) owns every path under the part before it.
        self.own_prefixes = tuple(r.path.split("{", 1)[0] for r in routes if ":path}" in r.path)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        path: str = scope.get("path", "")
        if (
            scope["type"] != "http"
            or path in self.own_paths
            or path.startswith("/.well-known/")
            or path.startswith(self.own_prefixes)
        ):
            await self.fallback(scope, receive, send)
            return
        request_id = authorization = ""
        authorizations = 0
        for k, v in scope["headers"]:
            if k == b"authorization":
                authorization = v.decode("latin-1")
                authorizations += 1
            elif k == b"x-request-id":
                request_id = v.decode("latin-1")[:128]
        if not request_id:
            request_id = f"{_ID_PREFIX}-{next(_ids):x}"
        area = path.split("/", 2)[1] if path.count("/") >= 1 else ""
        try:
            if authorizations > 1:
                raise errors.duplicate_authorization()
            match = self.router.match(scope["method"], path)
            if match is None:
                raise self._no_route(scope["method"], path)
            area = match.route.method.area
            ctx = Context(match.route.method.full_name, self.rt, request_id, authorization)
            client = scope.get("client")
            ctx.peer = client[0] if client else ""
            request = await self._request(match, scope, receive, ctx)
            await self._send(send, 200, await dispatch.call(match.route.method, request, ctx), request_id)
        except errors.ApiError as e:
            await self._error(scope, receive, send, e, area, request_id)
        except Exception:
            log.exception("request %s %s failed (request id %s)", scope["method"], path, request_id)
            await self._error(scope, receive, send, errors.internal(), area, request_id)

    def _no_route(self, verb: str, path: str) -> errors.ApiError:
        return http_errors.no_route(bool(self.router.allowed(path)))

    async def _request(self, match: Match, scope: dict[str, Any], receive: Any, ctx: Context) -> Any:
        method, rule = match.route.method, match.route.rule
        data: dict[str, Any] = {}
        body_obj: Any = None
        sent: dict[str, Any] = {}  # the body as the request's JSON, unknown keys kept (for `omitted`)
        body_field = transcode.fields_of(method.input)[rule.body] if rule.body not in ("", "*") else None
        if body_field is not None and (body_field.repeated or body_field.message is None):
            # The body is a list or scalar field's JSON value (v1 CreateBatch's role_bindings: an array).
            raw = await bodies.read(scope, receive, bodies.MAX_JSON)
            sent = {body_field.proto: bodies.decode_json(raw) if raw.strip() else None}
            data = transcode.normalize(method.input, sent)
        elif rule.body:
            raw = await bodies.read(scope, receive, bodies.MAX_JSON)
            body_obj = bodies.decode_json(raw) if raw.strip() else {}
            if not isinstance(body_obj, dict):
                raise errors.invalid_argument("body", "the request body must be a JSON object")
            sent = body_obj if body_field is None else {body_field.proto: body_obj}
            if body_field is None:
                data = transcode.normalize(method.input, body_obj)
            else:
                assert body_field.message is not None
                data[body_field.json] = transcode.normalize(body_field.message, body_obj)
        qs = scope.get("query_string")
        if qs and rule.body != "*":
            fields = transcode.fields_of(method.input)
            for key, value in parse_qsl(qs.decode("utf-8", "replace"), keep_blank_values=True):
                # Query parameters fill only fields not bound by the body (the path overrides below).
                top = fields.get(key.split(".", 1)[0])
                if top is not None and top.proto != rule.body:
                    transcode.set_path(method.input, data, key, value, query=True)
        for field_path, value in match.params.items():
            plain = transcode.plain_string_field(method.input, field_path)
            if plain is not None:
                data[plain] = transcode.text(value, field_path)
            else:
                transcode.set_path(method.input, data, field_path, value, query=False)
        if method.caps:
            caps.check_json(method.caps, data)
        if method.omitted:  # on the body as sent: transcoding dropped the keys it does not know
            omitted.check_json(method.omitted, sent)
        if method.mask_from_body and body_obj is not None:
            ctx.mask_inferred = transcode.infer_mask(method.input, method.mask_from_body, data, body_obj)
        return transcode.to_record(method.input_record, data)

    async def _send(self, send: Any, status: int, body: bytes, request_id: str) -> None:
        headers = [*_JSON, (b"content-length", str(len(body)).encode()), (b"x-request-id", request_id.encode())]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    async def _error(
        self, scope: dict[str, Any], receive: Any, send: Any, e: errors.ApiError, area: str, request_id: str
    ) -> None:
        domain = f"{area if area in schema.areas() else 'api'}.{self.rt.settings.error_domain_base}"
        await http_errors.render(e, domain, request_id)(scope, receive, send)
