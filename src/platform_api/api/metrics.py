"""`/metrics`: the Prometheus text exposition of core/metrics.py, summed over the worker processes, plus
the dispatcher's queue depth counted at scrape time. No token needed: it holds counts only, labelled by
RPC name, gRPC code name and fixed outcomes (never uids or names)."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from typing import Any

from prometheus_client import REGISTRY, CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.multiprocess import MultiProcessCollector
from starlette.requests import Request
from starlette.responses import Response

from platform_api.core import metrics as core_metrics
from platform_api.outbox import outbox
from platform_api.service.runtime import Runtime

log = logging.getLogger(__name__)

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"


class _Snapshot:
    """Values read at scrape time (the database is async, collectors are not)."""

    def __init__(self, pending: int | None) -> None:
        self.pending = pending

    def collect(self) -> Iterator[Metric]:
        if self.pending is not None:
            yield GaugeMetricFamily(
                "platform_api_event_deliveries_pending",
                "Deliveries waiting in the outbox (due now or scheduled for a retry)",
                value=self.pending,
            )


class _ThisProcess:
    def collect(self) -> Iterator[Metric]:
        yield from REGISTRY.collect()


def render(pending: int | None) -> bytes:
    core_metrics.flush()  # this worker's tallies; the others' are at most a second behind
    registry = CollectorRegistry(auto_describe=False)
    if os.environ.get(MULTIPROC_ENV):
        MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    else:
        registry.register(_ThisProcess())
    registry.register(_Snapshot(pending))
    return generate_latest(registry)


def route(rt: Runtime) -> Any:
    from starlette.routing import Route

    async def metrics(_: Request) -> Response:
        try:
            pending: int | None = await outbox.pending_count(rt.db)
        except Exception:  # a scrape still reports the counters when storage fails
            log.exception("counting pending deliveries failed")
            pending = None
        return Response(render(pending), media_type=CONTENT_TYPE)

    return Route("/metrics", metrics)
