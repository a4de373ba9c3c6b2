"""The anonymous routes' limit in-process: the error it raises, off at rate 0, and its settings' strict
parsing (over the wire: tests/functional/auth/test_ratelimit_http.py)."""

from __future__ import annotations

import pytest

from platform_api.core import errors, ratelimit
from platform_api.core.settings import InvalidSetting, Settings


def test_over_the_burst_is_rate_limited_per_address() -> None:
    limit = ratelimit.AnonymousLimit(rate=0.5, burst=2)
    limit.check("10.0.0.1")
    limit.check("10.0.0.1")
    with pytest.raises(errors.ApiError) as e:
        limit.check("10.0.0.1")
    assert e.value.code == errors.RESOURCE_EXHAUSTED and e.value.reason == "RATE_LIMITED"
    assert e.value.headers == {"retry-after": "2"} and e.value.info_metadata == {"retryAfterSeconds": "2"}
    limit.check("10.0.0.2")  # another address: its own bucket


def test_rate_zero_disables() -> None:
    limit = ratelimit.AnonymousLimit(rate=0, burst=1)
    for _ in range(1000):
        limit.check("10.0.0.1")


BAD = [("PLATFORM_API_ANON_RATE", "-1"), ("PLATFORM_API_ANON_RATE", "fast"), ("PLATFORM_API_ANON_RATE", "inf"),
       ("PLATFORM_API_ANON_BURST", "1.5")]  # fmt: skip


@pytest.mark.parametrize(("name", "value"), BAD)
def test_settings_are_strict(monkeypatch: pytest.MonkeyPatch, name: str, value: str) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(InvalidSetting, match=f"{name}={value}"):
        Settings.from_env()


def test_settings_read_from_the_environment_and_flags(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PLATFORM_API_ANON_RATE", raising=False)
    monkeypatch.delenv("PLATFORM_API_ANON_BURST", raising=False)
    s = Settings.from_env()
    assert (s.anon_rate, s.anon_burst) == (20.0, 100)
    monkeypatch.setenv("PLATFORM_API_ANON_RATE", "0")
    assert Settings.from_env().anon_rate == 0.0
    assert Settings.from_env(anon_rate=5.0, anon_burst=7).anon_burst == 7
    assert Settings(anon_rate=2.5).to_env()["PLATFORM_API_ANON_RATE"] == "2.5"
