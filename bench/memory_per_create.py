"""Memory a worker keeps per create: anonymous RSS of the serving worker before and after N repo creates, after a
warm-up (issue 26 item 15: a per-subject cache kept ~440 bytes per create for the process's life).

    python bench/memory_per_create.py --backend sqlite|postgres|both [--warmup 20000] [--creates 50000]

Per backend: a fresh database, `platform-api serve` (one worker), `platform-api bootstrap`, 10 sub-groups; then
`--warmup` creates (caches, pools, allocator arenas reach their working size), the worker's RssAnon
(/proc/<pid>/status), `--creates` more creates, RssAnon again (each read after a 2 s pause, so the worker is
idle). Creates are POST /registry/v2/repos/<group> with a new name each, from `--clients` concurrent HTTP/1.1
connections, spread over the sub-groups. Reports bytes per create = growth / creates (target: under 100) and
writes bench/results/memory-<time>.json. Any answer but 200 stops the run.

On SQLite the worker's page caches (`PRAGMA cache_size=-32768`: up to 32 MiB per connection, store/sqlite.py)
fill as the database grows and count as anonymous memory: bounded, but until they are full they add to the
growth. The warm-up must make the database larger than that (the SQLite line reports the database size) for
the figure to measure what is kept per create; PostgreSQL has no such cache in the worker.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import (
    RESULTS,
    add_backend_options,
    backends,
    cli,
    git_commit,
    log,
    results_dir,
    scratch_database,
    serve,
    write_json,
)

SUB_GROUPS = 10
TARGET_BYTES = 100


def anon_rss(pid: int) -> int:
    """The process's anonymous resident memory in bytes (RssAnon: heap and arenas, not mapped files)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("RssAnon:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no RssAnon for {pid}")


def worker_pid(serve_pid: int) -> int:
    """The Granian worker that runs the application: serve's child with the most anonymous memory."""
    children = [int(c) for c in Path(f"/proc/{serve_pid}/task/{serve_pid}/children").read_text().split()]
    if not children:
        raise RuntimeError("serve has no worker process")
    return max(children, key=anon_rss)


async def creates(base: str, token: str, parents: list[str], prefix: str, n: int, clients: int) -> None:
    """`n` repo creates named `<prefix><i>`, from `clients` connections at once."""
    headers = {"authorization": f"Bearer {token}"}
    todo = iter(range(n))
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(base_url=base, headers=headers, limits=limits, timeout=60) as http:

        async def one_client() -> None:
            for i in todo:
                r = await http.post(f"/registry/v2/repos/{parents[i % len(parents)]}", json={"name": f"{prefix}{i}"})
                if r.status_code != 200:
                    raise RuntimeError(f"create {i}: HTTP {r.status_code} {r.text[:200]}")

        await asyncio.gather(*(one_client() for _ in range(clients)))


def run_backend(backend: str, args: argparse.Namespace, stamp: str) -> dict[str, Any]:
    log(f"\n== {backend}")
    with scratch_database(backend, RESULTS / f"memory-{stamp}.db", "pa_bench_", args.pg_url) as url:
        server = serve(url, RESULTS / f"server-memory-{backend}-{stamp}.log")
        try:
            boot = json.loads(cli(url, "bootstrap"))
            token, org = boot["token"], boot["organization"]
            with httpx.Client(base_url=server.url, headers={"authorization": f"Bearer {token}"}) as http:
                parents = [http.post(f"/iam/v2/groups/{org}", json={"name": f"team-{i}"}).json()["uid"]
                           for i in range(SUB_GROUPS)]  # fmt: skip
            pid = worker_pid(server.proc.pid)
            t0 = time.monotonic()
            asyncio.run(creates(server.url, token, parents, "warm-", args.warmup, args.clients))
            log(f"  warm-up: {args.warmup:,} creates in {time.monotonic() - t0:.0f} s")
            time.sleep(2)
            before = anon_rss(pid)
            t0 = time.monotonic()
            asyncio.run(creates(server.url, token, parents, "m-", args.creates, args.clients))
            seconds = time.monotonic() - t0
            time.sleep(2)
            after = anon_rss(pid)
            per_create = (after - before) / args.creates
            if backend == "sqlite":
                size = sum(p.stat().st_size for p in RESULTS.glob(f"memory-{stamp}.db*"))
                log(f"  database: {size / 2**20:.0f} MiB after {args.warmup + args.creates:,} creates")
            log(f"  {args.creates:,} creates in {seconds:.0f} s: RssAnon {before / 2**20:.1f} -> "
                f"{after / 2**20:.1f} MiB, {per_create:.0f} bytes per create")  # fmt: skip
            return {
                "backend": backend,
                "warmup_creates": args.warmup,
                "creates": args.creates,
                "rss_anon_before": before,
                "rss_anon_after": after,
                "bytes_per_create": per_create,
                "creates_per_s": args.creates / seconds,
            }
        finally:
            server.stop()


def main() -> None:
    p = argparse.ArgumentParser(description="Anonymous memory a worker keeps per create (see bench/README.md)")
    add_backend_options(p)
    p.add_argument("--warmup", type=int, default=20_000, help="creates before the first reading")
    p.add_argument("--creates", type=int, default=50_000, help="creates between the two readings")
    p.add_argument("--clients", type=int, default=16, help="concurrent connections")
    args = p.parse_args()
    results_dir()
    stamp = time.strftime("%Y%m%d-%H%M%S")
    done = [run_backend(b, args, stamp) for b in backends(args)]
    out = write_json(RESULTS / f"memory-{stamp}.json", {"time": stamp, "git_commit": git_commit(), "runs": done})
    print()
    for r in done:
        verdict = "ok" if r["bytes_per_create"] < TARGET_BYTES else f"over the {TARGET_BYTES}-byte target"
        print(f"{r['backend']:<9} {r['bytes_per_create']:>8.0f} bytes per create ({verdict})")
    print(f"results: {out}")
    sys.exit(0 if all(r["bytes_per_create"] < TARGET_BYTES for r in done) else 1)


if __name__ == "__main__":
    main()
