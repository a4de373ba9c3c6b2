"""Events benchmark: webhook deliveries per second and commit-to-delivery latency; see bench/README.md.

    python bench/events.py --backend sqlite|postgres|both [--subscriptions 10] [--backlog 500]
                           [--live 300] [--rate 20]

Per backend, on a fresh database:
1. `platform-api serve --no-dispatcher --insecure-allow-loopback`; an organization with
   `--subscriptions` subscriptions whose sink is a local receiver (a separate process: asyncio on uvloop,
   keep-alive HTTP/1.1, answers 200 at once and records when each delivery arrived).
2. Drain: `--backlog` repo creations through the API with the dispatcher off (subscriptions x backlog
   pending deliveries), then `platform-api dispatch` starts (`--dispatcher serve`: the server restarts
   with its own dispatcher); deliveries/s = deliveries / (last arrival - first arrival).
3. Live: with that dispatcher running, `--live` repo creations paced at `--rate` per second (one client);
   latency of each delivery = its arrival at the receiver - the moment the client got the API's answer
   (the change had committed). p50 / p99 over all deliveries of this phase.
Prints a table and writes bench/results/events-<time>.json. Never fails on the targets.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import (
    RESULTS,
    Server,
    add_backend_options,
    backends,
    cli,
    command,
    free_port,
    git_commit,
    log,
    results_dir,
    scratch_database,
    serve,
    write_json,
)

TARGET_RATE = 1000.0
TARGET_P50_MS = 50.0


# ---------------------------------------------------------------- the receiver (own process)


def _receiver_main(port: int, ready: Any) -> None:
    import uvloop

    records: list[tuple[float, str, str, str]] = []  # (arrival, "<sink path> <ce-id>", ce-subject, ce-type)

    class Proto(asyncio.Protocol):
        def connection_made(self, transport: Any) -> None:
            self.t = transport
            self.buf = b""

        def data_received(self, data: bytes) -> None:
            self.buf += data
            while True:
                end = self.buf.find(b"\r\n\r\n")
                if end < 0:
                    return
                head = self.buf[:end].decode("latin-1").split("\r\n")
                headers = {}
                for line in head[1:]:
                    k, _, v = line.partition(":")
                    headers[k.strip().lower()] = v.strip()
                size = int(headers.get("content-length", "0"))
                if len(self.buf) < end + 4 + size:
                    return
                self.buf = self.buf[end + 4 + size :]
                if head[0].startswith("GET /dump"):
                    body = json.dumps(records).encode()
                    self.t.write(b"HTTP/1.1 200 OK\r\ncontent-length: %d\r\n\r\n%s" % (len(body), body))
                    continue
                target = head[0].split(" ")[1]  # the sink path tells the subscriptions apart
                records.append(
                    (time.time(), target + " " + headers.get("ce-id", ""), headers.get("ce-subject", ""),
                     headers.get("ce-type", ""))
                )  # fmt: skip
                self.t.write(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n")

    async def main() -> None:
        loop = asyncio.get_running_loop()
        server = await loop.create_server(Proto, "127.0.0.1", port, backlog=1024)
        ready.set()
        async with server:
            await server.serve_forever()

    uvloop.run(main())


def receiver_dump(port: int) -> list[tuple[float, str, str, str]]:
    return [tuple(r) for r in httpx.get(f"http://127.0.0.1:{port}/dump", timeout=60).json()]  # type: ignore[misc]


# ---------------------------------------------------------------- one backend


def pct(values: list[float], p: float) -> float:
    """Nearest rank at p percent (not common.pct: the numbers of earlier runs stay comparable)."""
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(p / 100 * len(s)) - 1))]


async def create_repos(base: str, token: str, org: str, n: int, concurrency: int) -> None:
    async with httpx.AsyncClient(base_url=base, headers={"authorization": f"Bearer {token}"}, timeout=60) as c:
        todo = iter(range(n))

        async def worker() -> None:
            for i in todo:
                r = await c.post(f"/registry/v2/repos/{org}", json={"name": f"backlog-{i}"})
                r.raise_for_status()

        await asyncio.gather(*(worker() for _ in range(concurrency)))


def run_backend(backend: str, ns: argparse.Namespace, stamp: str) -> dict[str, Any]:
    with contextlib.ExitStack() as stack:
        database = stack.enter_context(
            scratch_database(backend, RESULTS / f"events-{stamp}.db", "pa_bench_events_", ns.pg_url)
        )
        rport = free_port()
        ready = multiprocessing.Event()
        rproc = multiprocessing.Process(target=_receiver_main, args=(rport, ready), daemon=True)
        rproc.start()
        stack.callback(rproc.join, 5)
        stack.callback(rproc.terminate)
        ready.wait(10)
        env = {"PLATFORM_API_LOG_LEVEL": "warning"}
        procs: list[Server] = []

        @stack.callback
        def stop_all() -> None:  # last started first
            for proc in reversed(procs):
                proc.stop()

        server = serve(database, RESULTS / f"events-{backend}-serve.log", "--insecure-allow-loopback",
                       "--no-dispatcher", env=env)  # fmt: skip
        procs.append(server)
        base = server.url
        boot = json.loads(cli(database, "bootstrap", timeout=120))
        token, org = boot["token"], boot["organization"]
        http = httpx.Client(base_url=base, headers={"authorization": f"Bearer {token}"}, timeout=60)
        for i in range(ns.subscriptions):
            sink = f"http://127.0.0.1:{rport}/hook/{i}"
            http.post(f"/events/v2/subscriptions/{org}", json={"sink": sink}).raise_for_status()

        # Drain: a backlog, then the dispatcher.
        log(f"[{backend}] backlog: {ns.backlog} repo creations x {ns.subscriptions} subscriptions")
        asyncio.run(create_repos(base, token, org, ns.backlog, 8))
        expected = ns.backlog * ns.subscriptions
        if ns.dispatcher == "worker":
            profile = ["-m", "cProfile", "-o", str(RESULTS / f"events-{backend}.prof")] if ns.profile else []
            argv = [sys.executable, *profile, *command()[1:], "dispatch", "--database", database,
                    "--insecure-allow-loopback"]  # fmt: skip
            procs.append(Server(RESULTS / f"events-{backend}-dispatch.log", argv, env=env))
        else:  # the same server again, now with its dispatcher
            server.stop()
            procs.append(serve(database, RESULTS / f"events-{backend}-serve-dispatching.log",
                               "--insecure-allow-loopback", port=server.port, env=env))  # fmt: skip
        deadline = time.monotonic() + 600
        # Each subscription's creation event reaches the subscriptions that existed: 1 + 2 + ... + S more.
        extra = ns.subscriptions * (ns.subscriptions + 1) // 2
        while len(got := receiver_dump(rport)) < expected + extra and time.monotonic() < deadline:
            time.sleep(0.5)
        drain = [t for t, _, _, ce_type in got if ce_type.endswith(".repo.created.v1")]
        drain_rate = (len(drain) - 1) / (max(drain) - min(drain)) if len(drain) > 1 else 0.0
        log(f"[{backend}] drain: {len(drain)} deliveries at {drain_rate:.0f}/s")

        # Live: paced creations, latency from the client's commit to the receiver.
        before = {r[1] for r in got}
        commits: dict[str, float] = {}
        gap = 1.0 / ns.rate
        next_at = time.monotonic()
        for i in range(ns.live):
            now = time.monotonic()
            if now < next_at:
                time.sleep(next_at - now)
            next_at += gap
            r = http.post(f"/registry/v2/repos/{org}", json={"name": f"live-{i}"})
            r.raise_for_status()
            commits[r.json()["uid"]] = time.time()
        live_expected = ns.live * ns.subscriptions
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            got = receiver_dump(rport)
            live = [(t, subject) for t, cid, subject, _ in got if cid not in before and subject in commits]
            if len(live) >= live_expected:
                break
            time.sleep(0.5)
        lat = [(t - commits[subject]) * 1000 for t, subject in live]
        ids = [cid for _, cid, _, _ in got]
        duplicates = len(ids) - len(set(ids))
        result = {
            "backend": backend,
            "subscriptions": ns.subscriptions,
            "dispatcher": ns.dispatcher,
            "drain": {"deliveries": len(drain), "expected": expected, "per_second": round(drain_rate, 1)},
            "live": {
                "mutations": ns.live,
                "rate_per_second": ns.rate,
                "deliveries": len(lat),
                "expected": live_expected,
                "p50_ms": round(statistics.median(lat), 2) if lat else None,
                "p99_ms": round(pct(lat, 99), 2) if lat else None,
                "max_ms": round(max(lat), 2) if lat else None,
            },
            "duplicates": duplicates,
        }
        live_stats = result["live"]
        log(f"[{backend}] live: {len(lat)} deliveries, p50 {live_stats['p50_ms']} ms, p99 {live_stats['p99_ms']} ms")
        http.close()
        return result


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_backend_options(p)
    p.add_argument("--subscriptions", type=int, default=10)
    p.add_argument("--backlog", type=int, default=500, help="repo creations queued before the dispatcher starts")
    p.add_argument("--live", type=int, default=300, help="paced repo creations for the latency phase")
    p.add_argument("--rate", type=float, default=20.0, help="creations per second in the latency phase")
    p.add_argument(
        "--dispatcher",
        choices=["worker", "serve"],
        default="worker",
        help="worker: `platform-api dispatch` beside the API server; serve: the server's own dispatcher",
    )
    p.add_argument("--profile", action="store_true", help="run the dispatcher under cProfile (bench/results/*.prof)")
    ns = p.parse_args()
    results_dir()
    stamp = time.strftime("%Y%m%d-%H%M%S")
    results = [run_backend(b, ns, stamp) for b in backends(ns)]
    print(f"\n{'backend':10} {'deliveries/s (drain)':>22} {'p50 ms':>8} {'p99 ms':>8} {'dup':>5}")
    for r in results:
        print(f"{r['backend']:10} {r['drain']['per_second']:>22} {r['live']['p50_ms']:>8} {r['live']['p99_ms']:>8}"
              f" {r['duplicates']:>5}")  # fmt: skip
    for r in results:
        if r["backend"] == "postgres":
            print(f"targets (postgres): >= {TARGET_RATE:.0f} deliveries/s: "
                  f"{'met' if r['drain']['per_second'] >= TARGET_RATE else 'NOT met'}; p50 <= {TARGET_P50_MS:.0f} ms: "
                  f"{'met' if (r['live']['p50_ms'] or 1e9) <= TARGET_P50_MS else 'NOT met'}")  # fmt: skip
    out = write_json(RESULTS / f"events-{stamp}.json", {"results": results, "args": vars(ns), "commit": git_commit(),
                     "nproc": os.cpu_count(), "python": platform.python_version()})  # fmt: skip
    log(f"wrote {out}")


if __name__ == "__main__":
    main()
