"""The service's Prometheus metrics (rendered at `/metrics` by api/metrics.py).

Labels are bounded sets only (RPC names, gRPC code names, fixed outcomes), never uids or names.
Under `serve`, every worker process writes its values to files in PROMETHEUS_MULTIPROC_DIR (set by the
command before the workers start, before this module is imported) and a scrape sums them; without it
(tests, embedding) the values are this process's.
"""

from __future__ import annotations

from prometheus_client import Counter, Histogram

RPC_REQUESTS = Counter(
    "platform_api_rpc_requests", "RPCs answered, by method (full RPC name) and gRPC code name", ["method", "code"]
)
RPC_DURATION = Histogram(
    "platform_api_rpc_duration_seconds",
    "Time in the RPC (authorization and implementation), by method and gRPC code name",
    ["method", "code"],
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
)
DELIVERIES = Counter(
    "platform_api_event_deliveries",
    "Webhook delivery attempts by outcome: delivered, retry (will be retried), failed (last attempt), "
    "gone (410: subscription disabled), dropped (subscription deleted or disabled, event pruned)",
    ["outcome"],
)
AUTH_CACHE = Counter(
    "platform_api_auth_cache_lookups",
    "Authorization cache lookups: cache principal (caller by token) or grants (identity's role bindings); "
    "result hit or miss",
    ["cache", "result"],
)

PRINCIPAL_HIT = AUTH_CACHE.labels("principal", "hit")
PRINCIPAL_MISS = AUTH_CACHE.labels("principal", "miss")
GRANTS_HIT = AUTH_CACHE.labels("grants", "hit")
GRANTS_MISS = AUTH_CACHE.labels("grants", "miss")

# labels() costs a lock and a few dict operations; the (method, code) pairs are few and fixed.
_rpc_children: dict[tuple[str, str], tuple[Counter, Histogram]] = {}


def observe_rpc(method: str, code: str, seconds: float) -> None:
    children = _rpc_children.get((method, code))
    if children is None:
        children = _rpc_children[method, code] = (RPC_REQUESTS.labels(method, code), RPC_DURATION.labels(method, code))
    children[0].inc()
    children[1].observe(seconds)
