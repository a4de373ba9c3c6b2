"""A viewer's largest v1 list versus another tenant's GET (issue 26, item 6), on SQLite and PostgreSQL.

    python bench/v1_full_set.py --backend sqlite|postgres|both [--repos 450] [--seconds 10] [--loopers 2]

Loads a fresh database through the store layer: organization A with one group holding `--repos` repos of
1,000 active tags (128 characters each), 100 aliases and a 512-character description (~150 KB of stored JSON
each: ~67 MB in all, past every v1 budget), a viewer bound at A; organization B with its owner and one repo.
Serves it with `platform-api serve` (one worker, pinned to core 0) and measures B's owner's
`GET /registry/v2/repos/<uid>` on one keep-alive connection, first idle, then while `--loopers` clients each
send A's viewer's `GET /registry/v1/repos?uidp.childrenOf=<group>` in a loop. Prints the GET's p50/p99, the
viewer's answers (status, ErrorInfo reason, latency) and the server's peak RSS; writes
bench/results/v1-full-set-<time>.json. Not a test: nothing asserts timings.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(BENCH.parent))

from common import (  # noqa: E402
    RESULTS,
    add_backend_options,
    backends,
    log,
    pct,
    results_dir,
    scratch_database,
    serve,
    token,
    write_json,
)
from load import insert_rows, settle  # noqa: E402

from platform_api.auth import capabilities  # noqa: E402
from platform_api.core import clock, uidp  # noqa: E402
from platform_api.gen.records.iam_v2 import Group, Identity  # noqa: E402
from platform_api.gen.records.registry_v2 import Repo  # noqa: E402
from platform_api.iam import identities, queries, roles  # noqa: E402
from platform_api.store import db as store  # noqa: E402
from platform_api.store import rows  # noqa: E402
from platform_api.store.migrate import migrate  # noqa: E402

GROUP_COLUMNS = ["uid", "parent", "name", "create_time", "update_time", "body"]
REPO_COLUMNS = ["uid", "parent", "name", "create_time", "update_time", "body"]
BATCH = 50


def big_repo(parent: str, i: int, now: str) -> Repo:
    """A repo as large as the contract's caps let one be written (1,000 active tags, 100 aliases, 512 chars)."""
    return Repo(
        uid=uidp.new_child(parent), name=f"repo-{i:04d}", description="d" * 512,
        aliases=[f"{'a' * 100}/alias-{i}-{a:03d}:{'t' * 128}" for a in range(100)],
        active_tags=[f"{t:04d}{'v' * 124}" for t in range(1000)],
        create_time=now, update_time=now,
    )  # fmt: skip


async def load(url: str, repos: int) -> dict[str, Any]:
    t0 = time.perf_counter()
    database = await store.connect(url)
    try:
        await migrate(database)
        await roles.seed_builtin(database)
        now = clock.now()
        org_a, org_b = uidp.new_root(), uidp.new_root()
        group = uidp.new_child(org_a)
        groups = [
            Group(uid=org_a, name="tenant-a", create_time=now, update_time=now),
            Group(uid=group, name="big", create_time=now, update_time=now),
            Group(uid=org_b, name="tenant-b", create_time=now, update_time=now),
        ]
        for g in groups:
            await insert_rows(database, "groups", GROUP_COLUMNS,
                          [(g.uid, uidp.parent(g.uid), g.name, now, now, rows.body(g))])  # fmt: skip
        viewer, owner_b = uidp.new_root(), uidp.new_root()
        async with database.transaction() as tx:
            for who, name in ((viewer, "viewer-a"), (owner_b, "owner-b")):
                ident = Identity(uid=who, name=name, create_time=now, update_time=now, last_seen_time=now)
                await identities.insert(tx, ident, "")
            await queries.insert_role_binding(tx, org_a, viewer, capabilities.BUILTIN_BY_NAME["viewer"].uid, now)
            await queries.insert_role_binding(tx, org_b, owner_b, capabilities.OWNER.uid, now)
        small = Repo(uid=uidp.new_child(org_b), name="small", create_time=now, update_time=now)
        await insert_rows(database, "repos", REPO_COLUMNS, [(small.uid, org_b, small.name, now, now, rows.body(small))])
        stored = 0
        for start in range(0, repos, BATCH):
            batch = [big_repo(group, i, now) for i in range(start, min(repos, start + BATCH))]
            bodies = [(r.uid, group, r.name, now, now, rows.body(r)) for r in batch]
            stored += sum(len(b[-1]) for b in bodies)
            await insert_rows(database, "repos", REPO_COLUMNS, bodies)
        await settle(database)
    finally:
        await database.close()
    return {"viewer": viewer, "owner_b": owner_b, "group": group, "repo_b": small.uid,
            "stored_bytes": stored, "seconds": time.perf_counter() - t0}  # fmt: skip


def rss_kb(pid: int) -> int:
    """The resident set of `pid` and its children (Granian's worker) in kB, from /proc."""
    total = 0
    pids = [pid]
    with contextlib.suppress(OSError):
        pids += [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    for p in pids:
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
    return total


def gets(client: httpx.Client, path: str, seconds: float) -> list[float]:
    """Latencies (ms) of GETs of `path` sent one after another for `seconds`."""
    ms: list[float] = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        t = time.perf_counter()
        r = client.get(path)
        ms.append((time.perf_counter() - t) * 1000)
        assert r.status_code == 200, r.text
    return ms


def loop_list(base: str, bearer: str, params: dict[str, str], stop: threading.Event, out: list[Any]) -> None:
    """The viewer's v1 list, again and again until `stop`: (status, reason, ms) of each answer."""
    with httpx.Client(base_url=base, headers={"authorization": f"Bearer {bearer}"}, timeout=300) as c:
        while not stop.is_set():
            t = time.perf_counter()
            r = c.get("/registry/v1/repos", params=params)
            ms = (time.perf_counter() - t) * 1000
            reason = ""
            if r.status_code != 200:
                details = r.json().get("details") or [{}]
                reason = details[0].get("reason", "")
            out.append((r.status_code, reason, ms))


def summary(ms: list[float]) -> dict[str, float]:
    return {"n": len(ms), "p50_ms": round(pct(ms, 0.5), 1), "p99_ms": round(pct(ms, 0.99), 1)}


def run_backend(backend: str, args: argparse.Namespace, stamp: str) -> dict[str, Any]:
    log(f"\n== {backend}")
    with contextlib.ExitStack() as stack:
        url = stack.enter_context(scratch_database(backend, RESULTS / f"v1-full-set-{stamp}.db", "pa_v1full_"))
        ds = asyncio.run(load(url, args.repos))
        log(f"  loaded {args.repos} repos, {ds['stored_bytes'] / 1e6:.1f} MB of stored JSON, in {ds['seconds']:.1f} s")
        server = serve(url, RESULTS / f"server-v1-full-set-{backend}-{stamp}.log", "--no-dispatcher", cpu="0")
        stack.callback(server.stop)
        viewer, owner_b = token(url, ds["viewer"]), token(url, ds["owner_b"])
        client = stack.enter_context(
            httpx.Client(base_url=server.url, headers={"authorization": f"Bearer {owner_b}"}, timeout=300)
        )
        path = f"/registry/v2/repos/{ds['repo_b']}"
        gets(client, path, 1)  # warm-up
        idle = summary(gets(client, path, args.seconds))
        log(f"  another tenant's GET, idle:       {idle}   server RSS {rss_kb(server.proc.pid) // 1024} MB")
        stop, answers = threading.Event(), []
        params = {"uidp.childrenOf": ds["group"]}
        loopers = [threading.Thread(target=loop_list, args=(server.url, viewer, params, stop, answers))
                   for _ in range(args.loopers)]  # fmt: skip
        peak = 0
        for t in loopers:
            t.start()
        try:
            time.sleep(1)  # the loops are under way
            sampler_stop = threading.Event()

            def sample() -> None:
                nonlocal peak
                while not sampler_stop.is_set():
                    peak = max(peak, rss_kb(server.proc.pid))
                    time.sleep(0.05)

            sampler = threading.Thread(target=sample)
            sampler.start()
            loaded = summary(gets(client, path, args.seconds))
            sampler_stop.set()
            sampler.join()
        finally:
            stop.set()
            for t in loopers:
                t.join()
        outcomes = sorted({f"{s} {r}".strip() for s, r, _ in answers})
        listed = summary([ms for _, _, ms in answers])
        log(f"  another tenant's GET, {args.loopers} loops: {loaded}   server peak RSS {peak // 1024} MB")
        log(f"  the viewer's v1 list: {listed}   answers: {outcomes}")
        return {"backend": backend, "repos": args.repos, "stored_bytes": ds["stored_bytes"], "idle_get": idle,
                "loaded_get": loaded, "viewer_list": listed, "viewer_answers": outcomes,
                "peak_rss_mb": peak // 1024}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_backend_options(parser, pg_url=False)
    parser.add_argument("--repos", type=int, default=450)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--loopers", type=int, default=2)
    args = parser.parse_args()
    results_dir()
    stamp = time.strftime("%Y%m%d-%H%M%S")
    out = [run_backend(b, args, stamp) for b in backends(args)]
    print(f"\n{'backend':<10} {'another tenant GET':<20} {'p50 ms':>8} {'p99 ms':>8}  viewer list p50 ms, answers")
    for r in out:
        for name in ("idle_get", "loaded_get"):
            m = r[name]
            extra = f"  {r['viewer_list']['p50_ms']} ms, {r['viewer_answers']}" if name == "loaded_get" else ""
            print(f"{r['backend']:<10} {name:<20} {m['p50_ms']:>8} {m['p99_ms']:>8}{extra}")
    path = write_json(RESULTS / f"v1-full-set-{stamp}.json", out)
    print(f"\nwrote {path}")


if __name__ == "__main__":
    main()
