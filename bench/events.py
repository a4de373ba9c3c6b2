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
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
RESULTS = BENCH / "results"
PG_ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/test"
TARGET_RATE = 1000.0
TARGET_P50_MS = 50.0


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


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


# ---------------------------------------------------------------- processes


def cli(database: str, *args: str) -> str:
    r = subprocess.run([sys.executable, "-m", "platform_api.cli", *args, "--database", database],
                       capture_output=True, text=True, timeout=120, cwd=ROOT)  # fmt: skip
    if r.returncode:
        sys.exit(r.stderr)
    return r.stdout


def spawn(argv: list[str], name: str, env: dict[str, str]) -> subprocess.Popen[bytes]:
    out = open(RESULTS / f"events-{name}.log", "wb")  # noqa: SIM115 - lives as long as the process
    return subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, env={**os.environ, **env}, cwd=ROOT,
                            start_new_session=True)  # fmt: skip


def stop(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def wait_ready(base: str, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            sys.exit(f"server exited ({proc.returncode}); see bench/results/events-*.log")
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(base + "/readyz", timeout=1).status_code == 200:
                return
        time.sleep(0.1)
    sys.exit("server did not become ready")


def pg(sql: str, url: str) -> None:
    import asyncpg

    async def go() -> None:
        conn = await asyncpg.connect(url)
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    asyncio.run(go())


# ---------------------------------------------------------------- one backend


def pct(values: list[float], p: float) -> float:
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
    if backend == "sqlite":
        path = RESULTS / f"events-{stamp}.db"
        database = f"sqlite:///{path}"
    else:
        name = "pa_bench_events_" + secrets.token_hex(4)
        pg(f"CREATE DATABASE {name}", ns.pg_url)
        database = ns.pg_url.rsplit("/", 1)[0] + "/" + name
    rport, hport = free_port(), free_port()
    ready = multiprocessing.Event()
    rproc = multiprocessing.Process(target=_receiver_main, args=(rport, ready), daemon=True)
    rproc.start()
    ready.wait(10)
    env = {"PLATFORM_API_LOG_LEVEL": "warning"}
    base = f"http://127.0.0.1:{hport}"
    serve = [sys.executable, "-m", "platform_api.cli", "serve", "--host", "127.0.0.1", "--http-port", str(hport),
             "--grpc-port", str(free_port()), "--database", database, "--insecure-allow-loopback"]  # fmt: skip
    server = spawn([*serve, "--no-dispatcher"], f"{backend}-serve", env)
    worker = None
    try:
        wait_ready(base, server)
        boot = json.loads(cli(database, "bootstrap"))
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
            worker = spawn([sys.executable, *profile, "-m", "platform_api.cli", "dispatch", "--database", database,
                            "--insecure-allow-loopback"], f"{backend}-dispatch", env)  # fmt: skip
        else:  # the same server again, now with its dispatcher
            stop(server)
            server = spawn(serve, f"{backend}-serve-dispatching", env)
            wait_ready(base, server)
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
    finally:
        if worker is not None:
            stop(worker)
        stop(server)
        rproc.terminate()
        rproc.join(5)
        if backend == "sqlite":
            for suffix in ("", "-wal", "-shm"):
                with contextlib.suppress(FileNotFoundError):
                    Path(f"{path}{suffix}").unlink()
        else:
            pg(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)", ns.pg_url)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--backend", choices=["sqlite", "postgres", "both"], default="both")
    p.add_argument("--subscriptions", type=int, default=10)
    p.add_argument("--backlog", type=int, default=500, help="repo creations queued before the dispatcher starts")
    p.add_argument("--live", type=int, default=300, help="paced repo creations for the latency phase")
    p.add_argument("--rate", type=float, default=20.0, help="creations per second in the latency phase")
    p.add_argument("--pg-url", default=PG_ADMIN_URL)
    p.add_argument(
        "--dispatcher",
        choices=["worker", "serve"],
        default="worker",
        help="worker: `platform-api dispatch` beside the API server; serve: the server's own dispatcher",
    )
    p.add_argument("--profile", action="store_true", help="run the dispatcher under cProfile (bench/results/*.prof)")
    ns = p.parse_args()
    RESULTS.mkdir(exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    backends = ["sqlite", "postgres"] if ns.backend == "both" else [ns.backend]
    results = [run_backend(b, ns, stamp) for b in backends]
    print(f"\n{'backend':10} {'deliveries/s (drain)':>22} {'p50 ms':>8} {'p99 ms':>8} {'dup':>5}")
    for r in results:
        print(f"{r['backend']:10} {r['drain']['per_second']:>22} {r['live']['p50_ms']:>8} {r['live']['p99_ms']:>8}"
              f" {r['duplicates']:>5}")  # fmt: skip
    for r in results:
        if r["backend"] == "postgres":
            print(f"targets (postgres): >= {TARGET_RATE:.0f} deliveries/s: "
                  f"{'met' if r['drain']['per_second'] >= TARGET_RATE else 'NOT met'}; p50 <= {TARGET_P50_MS:.0f} ms: "
                  f"{'met' if (r['live']['p50_ms'] or 1e9) <= TARGET_P50_MS else 'NOT met'}")  # fmt: skip
    commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, cwd=ROOT).stdout.strip()
    out = RESULTS / f"events-{stamp}.json"
    out.write_text(json.dumps({"results": results, "args": vars(ns), "commit": commit, "nproc": os.cpu_count(),
                               "python": platform.python_version()}, indent=2))  # fmt: skip
    log(f"wrote {out}")


if __name__ == "__main__":
    main()
