"""Webhook client benchmark: the dispatcher's HTTP/1.1 client (events/webhook_http.py, h11) against httpx's
AsyncClient for the delivery workload; see bench/README.md ("Webhook client").

    python bench/webhook_client.py [--deliveries 20000] [--concurrency 8 64] [--rounds 3]

A local receiver in its own process (bench/events.py's: asyncio on uvloop, keep-alive HTTP/1.1, answers 200
at once). In this process, on uvloop as the dispatcher runs: `--deliveries` POSTs of a CloudEvent-sized
body (600 bytes, the dispatcher's 14 headers) to one pinned target, `--concurrency` at a time, by each
client in turn, `--rounds` times. Per client: deliveries/s (wall) and this process's CPU per delivery
(time.process_time, which the receiver's process does not add to). Prints a table and writes
bench/results/webhook-client-<time>.json. Never fails on a target.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import statistics
import sys
import time
import types
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import uvloop

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import free_port, git_commit, log, results_dir, write_json
from events import _receiver_main

from platform_api.core.netcheck import Target
from platform_api.events import webhook_http

BODY = b'{"specversion":"1.0","data":' + b'"' + b"x" * 560 + b'"}'
HEADERS = {
    "content-type": "application/json", "ce-specversion": "1.0", "ce-id": "0" * 36, "ce-source": "bench",
    "ce-type": "dev.chainguard.api.iam.group.created.v1", "ce-time": "2026-01-01T00:00:00Z",
    "ce-subject": "a" * 40, "ce-group": "a" * 40, "authorization": "Bearer " + "t" * 600,
    "user-agent": "platform-api/bench", "webhook-id": "0" * 36, "webhook-timestamp": "1700000000",
    "webhook-signature": "v1," + "s" * 44,
}  # fmt: skip


def _target(port: int) -> Target:
    return Target(scheme="http", host="127.0.0.1", port=port, path="/hook", address="127.0.0.1")


async def _run(post: Callable[[], Awaitable[int]], n: int, concurrency: int) -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process) for `n` posts, `concurrency` at a time."""
    left = n

    async def worker() -> None:
        nonlocal left
        while left > 0:
            left -= 1
            status = await post()
            assert status == 200, status

    wall, cpu = time.perf_counter(), time.process_time()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return time.perf_counter() - wall, time.process_time() - cpu


async def h11_client(port: int, n: int, concurrency: int) -> tuple[float, float]:
    client = webhook_http.Client(5.0, concurrency)
    target = _target(port)

    async def post() -> int:
        return (await client.post(target, HEADERS, BODY)).status

    try:
        await post()  # connected once before timing, as httpx's is
        return await _run(post, n, concurrency)
    finally:
        await client.close()


async def httpx_client(port: int, n: int, concurrency: int) -> tuple[float, float]:
    """httpx as the dispatcher would use it: one pooled client, connected to the checked address with the
    sink's Host header (upstream.pinned's way)."""
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    client = httpx.AsyncClient(timeout=10.0, limits=limits, follow_redirects=False, trust_env=False)
    target = _target(port)
    headers = {**HEADERS, "host": target.host_header}

    async def post() -> int:
        return (await client.post(target.url, content=BODY, headers=headers)).status_code

    try:
        await post()
        return await _run(post, n, concurrency)
    finally:
        await client.aclose()


async def httpx_with_sniffio(port: int, n: int, concurrency: int) -> tuple[float, float]:
    """httpx as above, with `sniffio` importable. httpcore imports it on every request (its
    current_async_library); anyio 4.16 no longer depends on it, so it is not installed here and each request
    pays a failed import (a search of sys.path). A stand-in module answering "asyncio" shows httpx's own cost."""
    sys.modules["sniffio"] = types.SimpleNamespace(current_async_library=lambda: "asyncio")  # type: ignore[assignment]
    try:
        return await httpx_client(port, n, concurrency)
    finally:
        del sys.modules["sniffio"]


CLIENTS: dict[str, Callable[[int, int, int], Awaitable[tuple[float, float]]]] = {
    "h11 (webhook_http)": h11_client,
    "httpx.AsyncClient": httpx_client,
    "httpx, sniffio there": httpx_with_sniffio,
}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--deliveries", type=int, default=20000)
    p.add_argument("--concurrency", type=int, nargs="+", default=[8, 64])
    p.add_argument("--rounds", type=int, default=3)
    ns = p.parse_args()
    port, ready = free_port(), multiprocessing.Event()
    receiver = multiprocessing.Process(target=_receiver_main, args=(port, ready), daemon=True)
    receiver.start()
    ready.wait(30)
    rows: list[dict[str, Any]] = []
    try:
        for concurrency in ns.concurrency:
            runs: dict[str, list[tuple[float, float]]] = {name: [] for name in CLIENTS}
            for _ in range(ns.rounds):
                for name, client in CLIENTS.items():  # alternated, so a busy moment of the machine hits both
                    runs[name].append(uvloop.run(client(port, ns.deliveries, concurrency)))
            for name, got in runs.items():
                rate = statistics.median(ns.deliveries / wall for wall, _ in got)
                cpu_us = statistics.median(cpu / ns.deliveries * 1e6 for _, cpu in got)
                rows.append({"client": name, "concurrency": concurrency, "deliveries_per_s": round(rate),
                             "cpu_us_per_delivery": round(cpu_us, 1)})  # fmt: skip
                log(f"{name:20} concurrency {concurrency:3}: {rate:8.0f} deliveries/s, {cpu_us:6.1f} µs CPU each")
    finally:
        receiver.terminate()
    doc = {"commit": git_commit(), "deliveries": ns.deliveries, "rounds": ns.rounds, "rows": rows}
    path = write_json(results_dir() / f"webhook-client-{time.strftime('%Y%m%d-%H%M%S')}.json", doc)
    log(f"wrote {path}")


if __name__ == "__main__":
    main()
