"""Rate-limited calls are retried after the delay the server names (both transports)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from platform_api.client import Client, ResourceExhausted
from tests.helpers import BACKENDS, Server, start_server, stop_server


@pytest.fixture(scope="module", params=BACKENDS)
def srv(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    # Anonymous calls limited to a burst of 2, then one every 2 seconds.
    s = start_server(request.param, tmp_path_factory.mktemp("client-retry"), "--anon-rate", "0.5", "--anon-burst", "2")
    yield s
    stop_server(s)


def client(srv: Server, transport: str, **kw: object) -> Client:
    return Client(srv.base_url, grpc=srv.grpc_target, transport=transport, use_login_cache=False, **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize("transport", ["grpc", "http"])
def test_rate_limited_calls_wait_as_told(srv: Server, transport: str) -> None:
    with client(srv, transport, retries=0) as c, pytest.raises(ResourceExhausted) as limited:
        for _ in range(5):
            c.ping.ping()
    assert limited.value.reason == "RATE_LIMITED" and limited.value.retry_delay is not None
    assert 0 < limited.value.retry_delay <= 3
    slept: list[float] = []

    def sleep(s: float) -> None:
        slept.append(s)
        time.sleep(s)

    with client(srv, transport, sleep=sleep) as c:
        # Each call succeeds at once while the bucket has a token (on a loaded machine it refills between the
        # clients: one every 2 s), else waits as told and then succeeds: within a burst (2) and one more call.
        for _ in range(10):
            assert c.ping.ping().response == "pong"
            if slept:
                break
    assert slept and slept[0] >= limited.value.retry_delay * 0.5
    # A wait longer than the caller accepts is not attempted.
    slept.clear()
    with client(srv, transport, sleep=sleep, max_retry_wait=0.01) as c, pytest.raises(ResourceExhausted):
        c.ping.ping()
    assert slept == []
