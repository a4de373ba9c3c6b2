"""api/http_errors.render, the one HTTP error renderer: the status of the code (or the error's own), and the
headers an error carries (Retry-After, WWW-Authenticate with its message made safe for a quoted string, the
request id)."""

from __future__ import annotations

import pytest

from platform_api.api import http_errors
from platform_api.core import errors


@pytest.mark.parametrize("request_id", ["", "req-1"])
def test_render_carries_the_errors_headers(request_id: str) -> None:
    e = errors.rate_limited(7)
    r = http_errors.render(e, "iam.example.test", request_id)
    assert r.status_code == 429 and r.headers["retry-after"] == "7"
    assert r.headers.get("x-request-id", "") == request_id
    assert "www-authenticate" not in r.headers
    u = http_errors.render(errors.unauthenticated('a "quoted"\\ message'), "api.example.test")
    assert u.status_code == 401
    assert u.headers["www-authenticate"] == (
        'Bearer error="invalid_token", error_description="Unauthenticated: a ?quoted?? message"'
    )
    big = errors.ApiError(errors.RESOURCE_EXHAUSTED, "too big")
    big.http_status = 413
    assert http_errors.render(big, "api.example.test").status_code == 413
