"""Rate limits over the wire: the token exchange and registration routes', and the anonymous routes' (every
route that needs no token, per client address, both transports): the 429 answer with Retry-After from a
server started with a low limit (the token buckets themselves: tests/unit/core/test_ratelimit.py)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import grpc
import httpx
import pytest

from platform_api.core.settings import Settings
from platform_api.gen.chainguard.platform.ping.v2 import ping_pb2, ping_pb2_grpc
from tests.helpers import BACKENDS, Server, error_info, rpc_error, start_server, stop_server


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
        assert_limited(c.post("/oauth/revoke", data={"token": "pat_rt_x"}))  # sign-out
        # The API itself is not limited.
        assert c.get("/ping/v2/ping").status_code == 200
    assert limited.http.get(f"/iam/v2/groups/{limited.owner_org}").status_code == 200


# ---------------------------------------------------------------- the anonymous routes (issue 16)


@pytest.fixture(scope="module", params=BACKENDS)
def anon_limited(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    # One token every 5 s, burst 3, per client address, over every route that needs no token.
    s = start_server(request.param, tmp_path_factory.mktemp("anonlimit"), "--anon-rate", "0.2", "--anon-burst", "3")
    yield s
    stop_server(s)


def assert_anon_limited(r: httpx.Response) -> None:
    assert r.status_code == 429, (r.status_code, r.text[:200])
    assert int(r.headers["retry-after"]) >= 1
    body = r.json()
    assert body["code"] == 8 and body["details"][0]["reason"] == "RATE_LIMITED", body
    assert int(body["details"][0]["metadata"]["retryAfterSeconds"]) >= 1


def test_anonymous_routes_are_limited_per_client_address(anon_limited: Server) -> None:
    s = anon_limited
    with httpx.Client(base_url=s.base_url, timeout=30) as c:
        for _ in range(3):
            assert c.get("/ping/v2/ping").status_code == 200
        assert_anon_limited(c.get("/ping/v2/ping"))
        # One bucket per address for every anonymous route: the public feed and metadata, the documents
        # served outside the API router, the token exchange (which also has its own limit).
        assert_anon_limited(c.get("/advisory/v2/documents", params={"id": "pkg"}))
        assert_anon_limited(c.get("/advisory/v2/metadata", params={"id": "CVE-2024-1"}))
        # The v1 twins of the public calls share it.
        assert_anon_limited(c.get("/ping/v1/ping"))
        assert_anon_limited(c.get("/advisory/v1/documents", params={"id": "pkg"}))
        assert_anon_limited(c.get("/advisory/v1/metadata", params={"id": "CVE-2024-1"}))
        assert_anon_limited(c.get("/openapi.json"))
        assert_anon_limited(c.get("/.well-known/jwks.json"))
        assert_anon_limited(c.get("/.well-known/platform-api"))
        assert_anon_limited(c.get("/sts/exchange", headers={"authorization": "Bearer x"}))
        assert_anon_limited(c.post("/oauth/revoke", data={"token": "pat_rt_x"}))
        # The operator's probes and scraper are never limited.
        for path in ("/healthz", "/readyz", "/metrics"):
            assert c.get(path).status_code == 200, path
    # gRPC shares the bucket of the client address (the tests' 127.0.0.1).
    stub = ping_pb2_grpc.PingServiceStub(s.grpc_channel(None))
    err, st = rpc_error(stub.Ping, ping_pb2.PingRequest())
    assert err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert error_info(st).reason == "RATE_LIMITED"
    # Another client address has a bucket of its own, on both routes tried above.
    with httpx.Client(base_url=s.base_url, timeout=30, transport=httpx.HTTPTransport(local_address="127.0.0.2")) as c2:
        assert c2.get("/ping/v2/ping").status_code == 200
        assert c2.get("/openapi.json").status_code == 200
    # Routes that take a token are not limited.
    for _ in range(5):
        assert s.http.get(f"/iam/v2/groups/{s.owner_org}").status_code == 200


def test_the_anonymous_limit_is_on_by_default(server: Server) -> None:
    """The shared test server runs with the defaults: a whole burst passes (ordinary use never meets the
    limit), and a client that keeps going is held to the burst plus the refill of the time it took."""
    settings = Settings()
    assert settings.anon_rate > 0 and settings.anon_burst >= 100
    local = httpx.HTTPTransport(local_address="127.0.0.3")
    with httpx.Client(base_url=server.base_url, timeout=30, transport=local) as c:
        start = time.monotonic()
        codes = []
        while 429 not in codes and len(codes) < 5000:
            codes.append(c.get("/ping/v2/ping").status_code)
        elapsed = time.monotonic() - start
    assert codes[: settings.anon_burst] == [200] * settings.anon_burst
    assert codes[-1] == 429
    assert codes.count(200) <= settings.anon_burst + settings.anon_rate * elapsed + 1, (len(codes), elapsed)
