"""The service's Prometheus metrics (rendered at `/metrics` by api/metrics.py).

Labels are bounded sets only (RPC names, gRPC code names, fixed outcomes), never uids or names.
Under `serve`, every worker process writes its values to files in PROMETHEUS_MULTIPROC_DIR (set by the
command before the workers start, before this module is imported) and a scrape sums them; without it
(tests, embedding) the values are this process's.

Hot-path events (every RPC, every cache lookup) are tallied in plain dicts and moved into the exported
values at most a second later and before every scrape: an exported update in multiprocess mode is a
locked write to a memory-mapped file (~1.3 µs), three per RPC, against ~0.3 µs for the tally.
"""

from __future__ import annotations

import asyncio
from bisect import bisect_left

from prometheus_client import Counter, Histogram, values

BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
# Counter keys of `count`: (metric, labels).
PRINCIPAL_HIT = ("auth_cache", ("principal", "hit"))
PRINCIPAL_MISS = ("auth_cache", ("principal", "miss"))
GRANTS_HIT = ("auth_cache", ("grants", "hit"))
GRANTS_MISS = ("auth_cache", ("grants", "miss"))


def delivery(outcome: str) -> tuple[str, tuple[str, ...]]:
    """The counter key of a webhook delivery outcome (delivered, retry, failed, gone, dropped)."""
    return ("deliveries", (outcome,))


class _Exported:
    """The Prometheus metrics, created at the first flush in the process that exports them: `serve` sets
    PROMETHEUS_MULTIPROC_DIR after this module is imported (its workers are forked from it), and
    prometheus-client picks its value storage (files or memory) when a metric is created."""

    def __init__(self) -> None:
        values.ValueClass = values.get_value_class()  # type: ignore[no-untyped-call]
        self.rpc_requests = Counter(
            "platform_api_rpc_requests", "RPCs answered, by method (full RPC name) and gRPC code name",
            ["method", "code"],
        )  # fmt: skip
        self.rpc_duration = Histogram(
            "platform_api_rpc_duration_seconds",
            "Time in the RPC (authorization and implementation), by method and gRPC code name",
            ["method", "code"],
            buckets=BUCKETS,
        )
        deliveries = Counter(
            "platform_api_event_deliveries",
            "Webhook delivery attempts by outcome: delivered, retry (will be retried), failed (last attempt), "
            "gone (410: subscription disabled), dropped (subscription deleted or disabled, event pruned)",
            ["outcome"],
        )
        auth_cache = Counter(
            "platform_api_auth_cache_lookups",
            "Authorization cache lookups: cache principal (caller by token) or grants (identity's role "
            "bindings); result hit or miss",
            ["cache", "result"],
        )
        self.counters = {"deliveries": deliveries, "auth_cache": auth_cache}


_exported: _Exported | None = None


def exported() -> _Exported:
    global _exported
    if _exported is None:
        _exported = _Exported()
    return _exported


FLUSH_SECONDS = 1.0


class _Tally:
    __slots__ = ("buckets", "n", "total")

    def __init__(self) -> None:
        self.n = 0
        self.total = 0.0
        self.buckets = [0] * (len(BUCKETS) + 1)  # the last one is +Inf


_rpcs: dict[tuple[str, str], _Tally] = {}
_counts: dict[tuple[str, tuple[str, ...]], int] = {}
_flush_armed = False


def observe_rpc(method: str, code: str, seconds: float) -> None:
    tally = _rpcs.get((method, code))
    if tally is None:
        tally = _rpcs[method, code] = _Tally()
    tally.n += 1
    tally.total += seconds
    tally.buckets[bisect_left(BUCKETS, seconds)] += 1  # the first bound >= seconds: Prometheus' `le`
    _arm()


def count(key: tuple[str, tuple[str, ...]]) -> None:
    """Adds one to a labelled counter (e.g. PRINCIPAL_HIT, delivery("retry")), exported with the next flush."""
    _counts[key] = _counts.get(key, 0) + 1
    _arm()


def _arm() -> None:
    global _flush_armed
    if _flush_armed:
        return
    try:
        asyncio.get_running_loop().call_later(FLUSH_SECONDS, flush)
    except RuntimeError:  # no event loop (a script, a unit test): export at once
        flush()
        return
    _flush_armed = True


def flush() -> None:
    """Moves the tallies into the exported metrics."""
    global _rpcs, _counts, _flush_armed
    rpcs, counts, _rpcs, _counts, _flush_armed = _rpcs, _counts, {}, {}, False
    out = exported()
    for (method, code), tally in rpcs.items():
        out.rpc_requests.labels(method, code).inc(tally.n)
        h = out.rpc_duration.labels(method, code)
        # prometheus-client has no bulk observe: add to the histogram's own values (what observe() does).
        h._sum.inc(tally.total)  # type: ignore[attr-defined]
        for i, k in enumerate(tally.buckets):
            if k:
                h._buckets[i].inc(k)  # type: ignore[attr-defined]
    for (metric, labels), k in counts.items():
        out.counters[metric].labels(*labels).inc(k)
