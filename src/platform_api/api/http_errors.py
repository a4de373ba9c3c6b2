"""The one HTTP rendering of an ApiError, used by every HTTP route (API, token exchange, documents, fallback).

Status from the code (grpc-gateway's table, or the error's own override such as 413), the google.rpc.Status
JSON body with ErrorInfo in the domain of the route's API area, the error's own headers (`Retry-After` on
rate limits), `WWW-Authenticate` on 401 and the request id when the route has one.
"""

from __future__ import annotations

import msgspec
from starlette.responses import Response

from platform_api.core import errors

_encode = msgspec.json.Encoder().encode
# RFC 6750 section 3: error_description holds %x20-21 / %x23-5B / %x5D-7E only (no quote, no backslash).
# RFC 6750 error_description: %x20-21 / %x23-5B / %x5D-7E (no quote, no backslash).
_DESCRIPTION_CHARS = frozenset(chr(c) for c in range(0x20, 0x7F)) - {'"', "\\"}


def www_authenticate(e: errors.ApiError) -> str:
    """RFC 6750's challenge for a refused or missing bearer token, the same on every route."""
    description = "".join(c if c in _DESCRIPTION_CHARS else "?" for c in e.message)
    return f'Bearer error="invalid_token", error_description="{description}"'


def render(e: errors.ApiError, domain: str, request_id: str = "") -> Response:
    """The error as an HTTP response; `domain` is the ErrorInfo domain (`<area>.<error domain base>`)."""
    headers: dict[str, str] = {}
    if request_id:
        headers["x-request-id"] = request_id
    if e.code == errors.UNAUTHENTICATED:
        headers["www-authenticate"] = www_authenticate(e)
    headers.update(e.headers)
    return Response(_encode(e.body(domain)), e.status(), headers, media_type="application/json")


def no_route(wrong_method: bool) -> errors.ApiError:
    """An unknown route (404 code 5) or a known path with a wrong method (501 code 12), on every router."""
    if wrong_method:
        return errors.ApiError(errors.UNIMPLEMENTED, "Method Not Allowed")
    return errors.ApiError(errors.NOT_FOUND, "Not Found")
