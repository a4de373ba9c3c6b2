"""Rate limits of the token exchange and registration routes: the token buckets (unit) and the 429 answer
with Retry-After over the wire (a server started with a low limit)."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from platform_api.core import errors, ratelimit
from platform_api.core.settings import Settings
from tests.helpers import BACKENDS, Server, start_server, stop_server


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class TestTokenBuckets:
    def test_burst_then_refill(self) -> None:
        clock = FakeClock()
        b = ratelimit.TokenBuckets(rate=2.0, burst=3, clock=clock)
        assert [b.take("k") for _ in range(3)] == [0.0, 0.0, 0.0]
        assert b.take("k") == pytest.approx(0.5)  # empty: one token comes in 1/rate seconds
        clock.now += 0.5
        assert b.take("k") == 0.0
        assert b.take("k") > 0
        clock.now += 100  # refills up to the burst, never beyond
        assert [b.take("k") for _ in range(3)] == [0.0, 0.0, 0.0]
        assert b.take("k") > 0

    def test_keys_are_independent(self) -> None:
        b = ratelimit.TokenBuckets(rate=1.0, burst=1, clock=FakeClock())
        assert b.take("a") == 0.0 and b.take("a") > 0
        assert b.take("b") == 0.0

    def test_refused_requests_do_not_dig_deeper(self) -> None:
        clock = FakeClock()
        b = ratelimit.TokenBuckets(rate=1.0, burst=1, clock=clock)
        b.take("k")
        waits = [b.take("k") for _ in range(5)]
        assert all(w == pytest.approx(1.0) for w in waits)
        clock.now += 1.0
        assert b.take("k") == 0.0

    def test_table_is_bounded_and_keeps_recent_keys(self) -> None:
        clock = FakeClock()
        b = ratelimit.TokenBuckets(rate=1.0, burst=1, max_keys=100, clock=clock)
        b.take("hot")
        for i in range(1000):
            b.take(f"k{i}")
            if i % 10 == 0:
                assert b.take("hot") > 0  # used recently: kept, still empty
        assert len(b) == 100

    def test_zero_rate_disables(self) -> None:
        b = ratelimit.TokenBuckets(rate=0, burst=1)
        assert not b.enabled
        assert all(b.take("k") == 0.0 for _ in range(100))
        assert len(b) == 0

    def test_retry_after_is_whole_seconds_never_early(self) -> None:
        assert ratelimit.retry_after_seconds(0.01) == 1
        assert ratelimit.retry_after_seconds(1.0) == 1
        assert ratelimit.retry_after_seconds(1.2) == 2

    def test_error_shape(self) -> None:
        e = errors.rate_limited(7)
        body = e.body("iam.example")
        assert e.status() == 429 and e.headers == {"retry-after": "7"}
        assert body["code"] == errors.RESOURCE_EXHAUSTED
        assert body["details"][0]["reason"] == "RATE_LIMITED"
        assert body["details"][0]["metadata"] == {"retryAfterSeconds": "7"}

    def test_on_by_default(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.delenv("PLATFORM_API_STS_RATE", raising=False)
        monkeypatch.delenv("PLATFORM_API_STS_BURST", raising=False)
        s = Settings.from_env()
        assert s.sts_rate > 0 and s.sts_burst > 0
        monkeypatch.setenv("PLATFORM_API_STS_RATE", "0.5")
        monkeypatch.setenv("PLATFORM_API_STS_BURST", "4")
        s = Settings.from_env()
        assert (s.sts_rate, s.sts_burst) == (0.5, 4)


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
