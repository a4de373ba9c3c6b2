"""api/metrics.render in this process without a multiprocess directory: RPC counters and duration buckets
with their labels, the auth cache lookups, and the outbox queue depth only when it is known."""

from __future__ import annotations

import secrets

import pytest

from platform_api.api import metrics as metrics_endpoint
from platform_api.core import metrics
from tests.helpers import metric, parse_metrics


def test_render_this_process_without_multiprocess_dir(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(metrics_endpoint.MULTIPROC_ENV, raising=False)
    method = "test.v1.Service/Method" + secrets.token_hex(2)
    for seconds in (0.003, 0.2, 0.005, 20.0):  # 0.005 is a bound: counted in le="0.005"
        metrics.observe_rpc(method, "NOT_FOUND", seconds)
    metrics.count(metrics.PRINCIPAL_HIT)
    got = parse_metrics(metrics_endpoint.render(pending=4).decode())
    labels = {"method": method, "code": "NOT_FOUND"}
    assert metric(got, "platform_api_rpc_requests_total", **labels) == 4
    assert metric(got, "platform_api_rpc_duration_seconds_count", **labels) == 4
    assert metric(got, "platform_api_rpc_duration_seconds_sum", **labels) == pytest.approx(20.208)
    buckets = {"0.0025": 0, "0.005": 2, "0.25": 3, "10.0": 3, "+Inf": 4}
    assert {le: metric(got, "platform_api_rpc_duration_seconds_bucket", **labels, le=le) for le in buckets} == buckets
    assert metric(got, "platform_api_auth_cache_lookups_total", cache="principal", result="hit") >= 1
    assert metric(got, "platform_api_event_deliveries_pending") == 4
    unknown = parse_metrics(metrics_endpoint.render(None).decode())
    assert ("platform_api_event_deliveries_pending", frozenset()) not in unknown
