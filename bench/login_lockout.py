"""How long until anonymous callers lock every person out of logging in (issue 26, item 2).

    python bench/login_lockout.py [--backend sqlite|postgres|both] [--addresses 2 60] [--duration 40]

Per backend and per count of source addresses N: a fresh database, `platform-api serve` pinned to core 0 with
the default rate limits, its login provider the test suite's OIDC provider (in this process). N attackers,
each from its own loopback address (127.0.0.2, 127.0.0.3, ...: all of 127/8 is loopback on Linux), send
`GET /oauth?redirect=http://127.0.0.1:1/cb` as fast as the server answers, never coming back to the callback.
An honest person (127.0.1.1) starts a login once a second. The run ends when the honest /oauth is refused with
429, or after `--duration` seconds. The fill rate is the attackers' accepted /oauth per second over the run's
second half (the first holds each address's burst).

Reported per run: the attackers' accepted /oauth per second, the pending logins the server holds for them
(rows of `login_sessions` where that table exists: the server before the fix, which refused every /oauth
once it held 10,000), the honest person's first 429 (seconds), and, when the run ended first, the time the
cap would be reached at the measured fill rate (never when nothing is stored per pending login, or when
the rate over the 10-minute expiry stays under the cap). Writes bench/results/login-lockout-<time>.json.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from common import RESULTS, git_commit, log, results_dir, scratch_database, serve, write_json

from tests.helpers.oidc_provider import Provider

OLD_CAP = 10_000  # the server-wide pending-login cap before the fix (signin/login.py MAX_PENDING)
EXPIRY = 600  # seconds a pending login lived
HONEST = "127.0.1.1"
CLIENT_ID = "bench-login"
SERVER_CPU = "0"


async def _pending(database: str) -> int | None:
    """Pending logins stored server-side (rows of login_sessions), or None when there is no such table."""
    if database.startswith("sqlite:///"):
        with sqlite3.connect(database.removeprefix("sqlite:///"), timeout=30) as conn:
            if not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'login_sessions'").fetchone():
                return None
            return int(conn.execute("SELECT COUNT(*) FROM login_sessions").fetchone()[0])
    import asyncpg

    conn = await asyncpg.connect(database)
    try:
        if await conn.fetchval("SELECT to_regclass('login_sessions')") is None:
            return None
        return int(await conn.fetchval("SELECT COUNT(*) FROM login_sessions"))
    finally:
        await conn.close()


async def _attacker(url: str, address: str, stop: asyncio.Event, counts: dict[str, int]) -> None:
    transport = httpx.AsyncHTTPTransport(local_address=address)
    async with httpx.AsyncClient(transport=transport, timeout=30) as c:
        while not stop.is_set():
            try:
                r = await c.get(url)
            except httpx.TransportError:
                counts["errors"] += 1
                continue
            counts[str(r.status_code)] = counts.get(str(r.status_code), 0) + 1


async def _honest(url: str, stop: asyncio.Event, started: float) -> float | None:
    """Seconds from the start until the honest person's /oauth answers 429 (None: never, until stopped)."""
    transport = httpx.AsyncHTTPTransport(local_address=HONEST)
    async with httpx.AsyncClient(transport=transport, timeout=30) as c:
        while not stop.is_set():
            r = await c.get(url)
            if r.status_code == 429:
                return time.monotonic() - started
            assert r.status_code == 302, (r.status_code, r.text)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), 1.0)
    return None


async def _run(server_url: str, database: str, addresses: int, duration: float) -> dict[str, Any]:
    url = server_url + "/oauth?redirect=http%3A%2F%2F127.0.0.1%3A1%2Fcb"
    stop = asyncio.Event()
    counts: dict[str, int] = {"errors": 0}
    started = time.monotonic()
    attackers = [asyncio.create_task(_attacker(url, f"127.0.0.{2 + i}", stop, counts)) for i in range(addresses)]
    honest = asyncio.create_task(_honest(url, stop, started))
    # The fill rate is measured over the second half of the run: the first holds the rate limit's bursts.
    done, _ = await asyncio.wait({honest}, timeout=duration / 2)
    half, accepted_at_half = time.monotonic() - started, counts.get("302", 0)
    if not done:
        done, _ = await asyncio.wait({honest}, timeout=duration / 2)
    elapsed = time.monotonic() - started
    stop.set()
    await asyncio.gather(*attackers, return_exceptions=True)
    locked_out = honest.result() if done else None
    if not done:
        await honest
    accepted = counts.get("302", 0)
    rate = (accepted - accepted_at_half) / max(elapsed - half, 1e-3)
    pending = await _pending(database)
    if locked_out is not None:
        lockout: float | None = locked_out
    elif pending is None or rate * EXPIRY <= OLD_CAP:
        lockout = None  # nothing is stored per pending login, or the expiry empties the room faster
    else:
        lockout = elapsed + (OLD_CAP - pending) / rate
    return {
        "addresses": addresses, "seconds": round(elapsed, 1), "answers": counts,
        "accepted_per_second": round(rate, 1), "pending_rows": pending,
        "honest_429_after_s": None if locked_out is None else round(locked_out, 1),
        "lockout_s": None if lockout is None else round(lockout, 1),
    }  # fmt: skip


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--backend", choices=("sqlite", "postgres", "both"), default="sqlite")
    p.add_argument("--addresses", type=int, nargs="+", default=[2, 60])
    p.add_argument("--duration", type=float, default=40.0, help="seconds per run at most")
    args = p.parse_args()
    provider = Provider()
    provider.add_client(CLIENT_ID)
    results: list[dict[str, Any]] = []
    stamp = time.strftime("%Y%m%d-%H%M%S")
    try:
        for backend in ("sqlite", "postgres") if args.backend == "both" else (args.backend,):
            for n in args.addresses:
                with scratch_database(backend, results_dir() / "login-lockout.db", "pa_login_") as database:
                    server = serve(database, RESULTS / f"login-lockout-{backend}-{n}.log", "--insecure-allow-loopback",
                                   "--login-issuer", provider.issuer, "--login-client-id", CLIENT_ID,
                                   env={"PLATFORM_API_ANON_RATE": "20"}, cpu=SERVER_CPU)  # fmt: skip
                    try:
                        row = {"backend": backend, **asyncio.run(_run(server.url, database, n, args.duration))}
                    finally:
                        server.stop()
                log(f"{backend} {n:3d} addresses: {row}")
                results.append(row)
    finally:
        provider.close()
    out = write_json(RESULTS / f"login-lockout-{stamp}.json", {"commit": git_commit(), "runs": results})
    print(f"{'backend':9} {'addresses':>9} {'accepted/s':>10} {'pending':>8} {'honest 429 at':>13} {'lockout':>9}")
    for r in results:
        lock = "never" if r["lockout_s"] is None else f"{r['lockout_s']:.0f} s"
        honest = "-" if r["honest_429_after_s"] is None else f"{r['honest_429_after_s']:.1f} s"
        pending = "-" if r["pending_rows"] is None else str(r["pending_rows"])
        rate = r["accepted_per_second"]
        print(f"{r['backend']:9} {r['addresses']:>9} {rate:>10} {pending:>8} {honest:>13} {lock:>9}")
    log(f"wrote {out}")


if __name__ == "__main__":
    main()
