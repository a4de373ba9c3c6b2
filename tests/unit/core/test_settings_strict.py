"""Strict settings: a value that does not parse or lies outside its range stops the start, naming the
variable and the value; the usual boolean spellings are accepted."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from platform_api.core.settings import InvalidSetting, Settings


@pytest.mark.parametrize("text", ["1", "true", "TRUE", "yes", "On", " on "])
def test_boolean_spellings_true(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    monkeypatch.setenv("PLATFORM_API_DISPATCHER", "false")
    monkeypatch.setenv("PLATFORM_API_INSECURE_ALLOW_LOOPBACK", text)
    s = Settings.from_env()
    assert s.insecure_allow_loopback is True and s.dispatcher is False


@pytest.mark.parametrize("text", ["0", "false", "False", "no", "OFF"])
def test_boolean_spellings_false(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    monkeypatch.setenv("PLATFORM_API_DISPATCHER", text)
    assert Settings.from_env().dispatcher is False


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("PLATFORM_API_DISPATCHER", "flase"),
        ("PLATFORM_API_DISPATCHER", ""),
        ("PLATFORM_API_HTTP_PORT", "80a"),
        ("PLATFORM_API_HTTP_PORT", "70000"),
        ("PLATFORM_API_GRPC_PORT", "-1"),
        ("PLATFORM_API_STS_RATE", "-1"),
        ("PLATFORM_API_STS_RATE", "nan"),
        ("PLATFORM_API_STS_BURST", "1.5"),
        ("PLATFORM_API_DELIVERY_CONCURRENCY", "0"),
        ("PLATFORM_API_DELIVERY_TIMEOUT", "inf"),
        ("PLATFORM_API_LOG_LEVEL", "loud"),
        ("PLATFORM_API_SQLITE_SYNCHRONOUS", "FULL; DROP TABLE x"),
        ("PLATFORM_API_COMPAT_STRINGS", "referense"),
    ],
)
def test_invalid_value_names_variable_and_value(monkeypatch: pytest.MonkeyPatch, name: str, value: str) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(InvalidSetting) as caught:
        Settings.from_env()
    assert f"{name}={value}:" in str(caught.value)
    assert caught.value.source == name


def test_flag_override_checked_too() -> None:
    with pytest.raises(InvalidSetting, match="--sts-rate=-2"):
        Settings.from_env(sts_rate=-2.0)


def test_valid_values_still_accepted(monkeypatch: pytest.MonkeyPatch) -> None:
    for k, v in {"HTTP_PORT": "0", "STS_RATE": "0", "LOG_LEVEL": "WARNING", "SQLITE_SYNCHRONOUS": "normal"}.items():
        monkeypatch.setenv("PLATFORM_API_" + k, v)
    s = Settings.from_env()
    assert (s.http_port, s.sts_rate, s.log_level, s.sqlite_synchronous) == (0, 0.0, "WARNING", "normal")


def test_workers_rebuild_the_same_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """`serve` hands its settings to worker processes through to_env: every value must read back."""
    s = Settings(dispatcher=False, sts_rate=0.5, port=8443, compat_strings="reference")
    for k, v in s.to_env().items():
        monkeypatch.setenv(k, v)
    assert Settings.from_env() == s


@pytest.mark.parametrize(("name", "value"), [("PLATFORM_API_DISPATCHER", "flase"),
                                             ("PLATFORM_API_SINK_ALLOWED_NETWORKS", "garbage")])  # fmt: skip
def test_serve_refuses_to_start(tmp_path: os.PathLike[str], name: str, value: str) -> None:
    """The installed entry point: one line on stderr naming the setting, exit 1, no traceback."""
    env = {**os.environ, name: value, "PLATFORM_API_DATABASE_URL": f"sqlite:///{tmp_path}/x.db"}
    r = subprocess.run([sys.executable, "-m", "platform_api.cli", "serve"], env=env, capture_output=True,
                       text=True, timeout=60)  # fmt: skip
    assert r.returncode == 1
    assert r.stderr.startswith(f"platform-api: invalid setting {name}={value}: expected "), r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert not os.path.exists(f"{tmp_path}/x.db")  # stopped before anything started


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("PLATFORM_API_IDLE_TIMEOUT", "0"),
        ("PLATFORM_API_IDLE_TIMEOUT", "-5"),
        ("PLATFORM_API_FRONT_MAX_CONNECTIONS_PER_CLIENT", "0"),
        ("PLATFORM_API_FRONT_MAX_CONNECTIONS_PER_CLIENT", "many"),
    ],
)
def test_connection_limits_must_be_above_zero(monkeypatch: pytest.MonkeyPatch, name: str, value: str) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(InvalidSetting) as caught:
        Settings.from_env()
    assert caught.value.source == name


def test_grpc_listens_on_the_http_host_unless_told_otherwise(monkeypatch: pytest.MonkeyPatch) -> None:
    assert Settings.from_env(http_host="127.0.0.1").grpc_bind_host == "127.0.0.1"
    monkeypatch.setenv("PLATFORM_API_GRPC_HOST", "[::]")
    assert Settings.from_env(http_host="127.0.0.1").grpc_bind_host == "[::]"
