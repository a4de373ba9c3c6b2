"""`/metrics`: Prometheus counters move with the right labels, over both transports, summed over worker
processes (the server runs two), plus delivery outcomes, the outbox queue depth and the auth caches. The
exposition of one process alone: tests/unit/api/test_metrics.py."""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterator

import grpc
import httpx
import pytest

from platform_api.gen.chainguard.platform.iam.v2 import groups_pb2, groups_pb2_grpc
from tests.helpers import (
    BACKENDS,
    Receiver,
    Samples,
    Server,
    metric,
    parse_metrics,
    start_events_server,
    stop_server,
)

GET_GROUP = "chainguard.platform.iam.v2.GroupsService/GetGroup"


@pytest.fixture(scope="module", params=BACKENDS)
def ms(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """Two worker processes, loopback sinks allowed."""
    # A fresh database that the two workers migrate together.
    s = start_events_server(request.param, tmp_path_factory.mktemp("metrics-" + request.param), "--workers", "2")
    yield s
    stop_server(s)


def scrape(srv: Server) -> Samples:
    r = httpx.get(srv.base_url + "/metrics")  # no token needed
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("text/plain")
    return parse_metrics(r.text)


def wait_for(srv: Server, predicate: object, timeout: float = 20.0) -> Samples:
    deadline = time.monotonic() + timeout
    while True:
        got = scrape(srv)
        if predicate(got):  # type: ignore[operator]
            return got
        assert time.monotonic() < deadline, "metrics did not move in time"
        time.sleep(0.1)


def test_rpc_counts_by_method_and_code_over_both_transports(ms: Server) -> None:
    org = ms.owner_org
    before = scrape(ms)
    for _ in range(3):  # a new connection each: the calls spread over the workers
        with ms.client(ms.token) as c:
            assert c.get(f"/iam/v2/groups/{org}").status_code == 200
    for _ in range(2):
        with ms.client(ms.token) as c:
            assert c.get(f"/iam/v2/groups/{org}/{'0' * 16}").status_code == 404
    with ms.client(None) as c:
        assert c.get(f"/iam/v2/groups/{org}").status_code == 401
    channel = ms.grpc_channel(ms.token)
    try:
        stub = groups_pb2_grpc.GroupsServiceStub(channel)
        assert stub.GetGroup(groups_pb2.GetGroupRequest(uid=org), timeout=10).uid == org
        with pytest.raises(grpc.RpcError) as e:
            stub.GetGroup(groups_pb2.GetGroupRequest(uid="not-a-uid"), timeout=10)
        assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    finally:
        channel.close()
    total = "platform_api_rpc_requests_total"
    expected = [
        (total, "OK", {}, 4),
        (total, "NOT_FOUND", {}, 2),
        (total, "UNAUTHENTICATED", {}, 1),
        (total, "INVALID_ARGUMENT", {}, 1),
        ("platform_api_rpc_duration_seconds_count", "OK", {}, 4),
        ("platform_api_rpc_duration_seconds_bucket", "OK", {"le": "+Inf"}, 4),
    ]

    def deltas(s: Samples) -> list[float]:
        return [
            metric(s, name, method=GET_GROUP, code=code, **extra)
            - metric(before, name, method=GET_GROUP, code=code, **extra)
            for name, code, extra, _ in expected
        ]

    # The workers export their tallies within a second: wait for them, then the counts must be exact.
    after = wait_for(ms, lambda s: deltas(s) == [n for *_, n in expected])
    # The same token again and again: the principal cache answers.
    hits = "platform_api_auth_cache_lookups_total"
    assert metric(after, hits, cache="principal", result="hit") > metric(before, hits, cache="principal", result="hit")
    assert metric(after, "platform_api_auth_cache_lookups_total", cache="grants", result="miss") >= 1
    # Only bounded labels: no uid ever appears in the exposition.
    assert all(org not in str(labels) for _, labels in after)


def test_delivery_outcomes_and_queue_depth(ms: Server, rx: Receiver) -> None:
    org = ms.owner_org
    good, slow = f"/ok/{secrets.token_hex(4)}", f"/later/{secrets.token_hex(4)}"
    # The second sink asks for a retry in an hour: its delivery stays pending.
    rx.behaviours[slow] = lambda n: (503, {"retry-after": "3600"})
    before = scrape(ms)
    for sink in (good, slow):
        r = ms.http.post(f"/events/v2/subscriptions/{org}", json={"sink": rx.url(sink)})
        assert r.status_code == 200, r.text
    assert ms.http.post(f"/iam/v2/groups/{org}", json={"name": "g-" + secrets.token_hex(3)}).status_code == 200
    rx.wait(good, 1)
    rx.wait(slow, 1)

    def moved(s: Samples) -> bool:
        def d(outcome: str) -> float:
            name = "platform_api_event_deliveries_total"
            return metric(s, name, outcome=outcome) - metric(before, name, outcome=outcome)

        return d("delivered") >= 1 and d("retry") >= 1

    after = wait_for(ms, moved)
    assert metric(after, "platform_api_event_deliveries_pending") >= 1
