"""Rate limits of the token exchange and registration routes, in-process: the token buckets, the error they
raise and the settings that turn them on (the 429 over the wire: tests/functional/auth/test_ratelimit_http.py)."""

from __future__ import annotations

import pytest

from platform_api.core import errors, ratelimit
from platform_api.core.settings import Settings


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
