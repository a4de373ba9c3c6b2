"""Rate limits of the token exchange and registration routes over the wire: the 429 answer with Retry-After
from a server started with a low limit (the token buckets themselves: tests/unit/core/test_ratelimit.py)."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.helpers import BACKENDS, Server, start_server, stop_server


@pytest.fixture(scope="module", params=BACKENDS)
def limited(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    # One token every 5 s, burst 3: the 4th request in a row is refused.
    s = start_server(request.param, tmp_path_factory.mktemp("ratelimit"), "--sts-rate", "0.2", "--sts-burst", "3")
    yield s
    stop_server(s)


def assert_limited(r: httpx.Response) -> None:
    assert r.status_code == 429, r.text
    assert int(r.headers["retry-after"]) >= 1
    body = r.json()
    assert body["code"] == 8, body
    info = body["details"][0]
    assert info["@type"] == "type.googleapis.com/google.rpc.ErrorInfo"
    assert info["reason"] == "RATE_LIMITED" and info["domain"].startswith("iam."), info


def test_over_the_limit_answers_429_with_retry_after(limited: Server) -> None:
    with httpx.Client(base_url=limited.base_url, timeout=30) as c:
        # Refused tokens count too: the limit is on attempts, before any token is looked at.
        for _ in range(3):
            assert c.get("/sts/exchange", headers={"authorization": "Bearer x"}).status_code == 401
        assert_limited(c.get("/sts/exchange", headers={"authorization": "Bearer x"}))
        # The same address's bucket covers refresh and registration.
        assert_limited(c.post("/sts/exchange_refresh_token", headers={"authorization": "Bearer x"}))
        assert_limited(c.post("/auth/v1/register", json={}, headers={"authorization": "Bearer x"}))
        # The API itself is not limited.
        assert c.get("/ping/v2/ping").status_code == 200
    assert limited.http.get(f"/iam/v2/groups/{limited.owner_org}").status_code == 200
