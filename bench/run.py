"""HTTP benchmark of the service against a bare ASGI baseline; see bench/README.md.

    python bench/run.py --backend sqlite|postgres|both [--repos 100000] [--duration 10] [--runs 3]

Steps: load a fresh database (100k repos) through the store layer, then VACUUM ANALYZE it on PostgreSQL;
serve it with `platform-api serve` pinned to core 0; drive it with wrk pinned to core 1; the same for
bench/hello.py (bare ASGI app on the same Granian settings). Prints a table and writes bench/results/bench-<time>.json.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import (
    BENCH,
    RESULTS,
    ROOT,
    Server,
    add_backend_options,
    backends,
    free_port,
    log,
    pg,
    results_dir,
    scratch_database,
    serve,
    token,
    write_json,
)

SERVER_CPU = "0"
CLIENT_CPU = "1"
# GET with a valid token (authentication and authorization included) vs the bare hello-world.
TARGET_GET_RATIO = {"sqlite": 0.60, "postgres": 0.30}
TARGET_LIST_P50_MS = 15.0
# Repo creates per second at 64 concurrent clients (every create durable before its answer).
TARGET_CREATES = {"sqlite": 2000, "postgres": 1500}


# ---------------------------------------------------------------- processes


def require_tools() -> None:
    missing = [t for t in ("wrk", "taskset") if shutil.which(t) is None]
    if missing:
        sys.exit(
            f"error: {', '.join(missing)} not found on PATH. Install with: apt-get install -y "
            + " ".join("util-linux" if t == "taskset" else t for t in missing)
        )
    if (os.cpu_count() or 1) < 2:
        sys.exit("error: the benchmark pins the server to CPU 0 and wrk to CPU 1; it needs at least 2 CPUs")


# ---------------------------------------------------------------- wrk

_UNITS = {"us": 1e-3, "ms": 1.0, "s": 1e3, "m": 60e3}


def _ms(text: str) -> float:
    m = re.fullmatch(r"([\d.]+)(us|ms|s|m)", text.strip())
    if not m:
        raise ValueError(f"cannot parse wrk duration {text!r}")
    return float(m.group(1)) * _UNITS[m.group(2)]


def parse_wrk(out: str) -> dict[str, Any]:
    res: dict[str, Any] = {}
    m = re.search(r"Requests/sec:\s+([\d.]+)", out)
    if not m:
        raise RuntimeError(f"unexpected wrk output:\n{out}")
    res["rps"] = float(m.group(1))
    m = re.search(r"(\d+) requests in", out)
    res["requests"] = int(m.group(1)) if m else 0
    for pct, val in re.findall(r"^\s+(50|75|90|99)%\s+(\S+)", out, re.M):
        res[f"p{pct}_ms"] = _ms(val)
    m = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", out)
    res["non_2xx"] = int(m.group(1)) if m else 0
    m = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    res["socket_errors"] = sum(int(x) for x in m.groups()) if m else 0
    return res


def wrk(
    url: str, connections: int, duration: int, script: list[str] | None = None, token: str = "", header: str = ""
) -> dict[str, Any]:
    argv = ["taskset", "-c", CLIENT_CPU, "wrk", "-t1", f"-c{connections}", f"-d{duration}s", "--latency"]
    if token:
        argv += ["-H", f"Authorization: Bearer {token}"]
    if header:
        argv += ["-H", header]
    if script:
        argv += ["-s", script[0], url, "--", *script[1:]]
    else:
        argv.append(url)
    p = subprocess.run(argv, capture_output=True, text=True, timeout=duration + 60)
    if p.returncode != 0:
        raise RuntimeError(f"wrk failed ({p.returncode}): {p.stderr or p.stdout}")
    res = parse_wrk(p.stdout)
    if res["non_2xx"] or res["socket_errors"]:
        log(f"    WARNING: {res['non_2xx']} non-2xx responses, {res['socket_errors']} socket errors")
    return res


def measure(
    name: str, base: str, path: str, args: argparse.Namespace, script: list[str] | None = None, token: str = ""
) -> dict:
    """Warm-up, `runs` x c64 throughput runs (median), one single-client latency run."""
    url = base if script else base + path  # with a script, the script builds each request's path
    log(f"  {name}: {path}" + (" (with a bearer token)" if token else ""))
    wrk(url, args.connections, args.warmup, script, token)
    runs = []
    for i in range(args.runs):
        r = wrk(url, args.connections, args.duration, script, token)
        runs.append(r)
        log(f"    run {i + 1}/{args.runs} c{args.connections}: {r['rps']:>9,.0f} req/s")
    single = wrk(url, 1, args.duration, script, token)
    log(f"    c1: {single['rps']:,.0f} req/s, p50 {single['p50_ms']:.3f} ms, p99 {single['p99_ms']:.3f} ms")
    return {
        "path": path,
        "rps": statistics.median(r["rps"] for r in runs),
        "p50_ms": single["p50_ms"],
        "p99_ms": single["p99_ms"],
        "runs": runs,
        "single_client": single,
        "errors": sum(r["non_2xx"] + r["socket_errors"] for r in [*runs, single]),
    }


def measure_creates(name: str, base: str, parents: list[str], args: argparse.Namespace, token: str) -> dict:
    """Like `measure`, for POST /registry/v2/repos/<parent> with a new name per request, the parents in turn;
    p50/p99 are those of the median c64 run (the latency a client sees under that load)."""
    log(f"  {name}: POST /registry/v2/repos/<parent> over {len(parents)} parent(s) (with a bearer token)")

    def script() -> list[str]:
        return [str(BENCH / "create_unique.lua"), f"b{os.urandom(4).hex()}-", *parents]

    wrk(base, args.connections, args.warmup, script(), token)
    runs = []
    for i in range(args.runs):
        r = wrk(base, args.connections, args.duration, script(), token)
        runs.append(r)
        log(f"    run {i + 1}/{args.runs} c{args.connections}: {r['rps']:>9,.0f} creates/s, p99 {r['p99_ms']:.1f} ms")
    median = sorted(runs, key=lambda r: r["rps"])[len(runs) // 2]
    return {
        "path": "POST /registry/v2/repos/<parent>",
        "parents": len(parents),
        "rps": median["rps"],
        "p50_ms": median["p50_ms"],
        "p99_ms": median["p99_ms"],
        "latency_at": f"c{args.connections}",
        "runs": runs,
        "errors": sum(r["non_2xx"] + r["socket_errors"] for r in runs),
    }


# ---------------------------------------------------------------- backends


def check(url: str, token: str, expect_total: int | None = None) -> dict:
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(request, timeout=30) as r:
        body = json.loads(r.read())
    if expect_total is not None and int(body.get("totalCount", -1)) != expect_total:
        raise RuntimeError(f"{url}: totalCount {body.get('totalCount')}, expected {expect_total}")
    return body


def run_backend(backend: str, args: argparse.Namespace, stamp: str) -> dict:
    from load import load

    log(f"\n== {backend}")
    with contextlib.ExitStack() as stack:
        url = stack.enter_context(
            scratch_database(backend, RESULTS / f"bench-{stamp}.db", "pa_bench_", args.pg_url, keep_sqlite=args.keep_db)
        )
        log(f"  database {url}")
        ds = asyncio.run(load(url, repos=args.repos, groups=args.groups))
        log(f"  loaded {len(ds.repo_uids):,} repos under {1 + len(ds.groups)} groups in {ds.seconds:.1f} s")
        if backend == "postgres":
            # What autovacuum leaves a table in after a bulk load: visibility map set (index-only scans),
            # no dead row versions, fresh statistics. SQLite gets none: see bench/README.md.
            t0 = time.perf_counter()
            pg("VACUUM ANALYZE", url)
            log(f"  VACUUM ANALYZE in {time.perf_counter() - t0:.1f} s")
        uids_file = RESULTS / f"uids-{backend}-{stamp}.txt"
        uids_file.write_text("\n".join(ds.repo_uids) + "\n")
        stack.callback(lambda: uids_file.unlink(missing_ok=True))

        server = serve(url, RESULTS / f"server-{backend}-{stamp}.log", cpu=SERVER_CPU)
        stack.callback(server.stop)
        base = server.url
        # Every API request carries a valid access token of the owner (minted as `platform-api token` does).
        bearer = token(url, ds.owner)
        list_path = f"/registry/v2/repos?uidp.descendants_of={ds.org}&page_size=200"
        # Sanity: the requests measured answer what they should.
        got = check(base + "/registry/v2/repos/" + ds.repo_uids[len(ds.repo_uids) // 2], bearer)
        assert got["uid"] == ds.repo_uids[len(ds.repo_uids) // 2], got
        assert len(check(base + list_path, bearer, args.repos)["repos"]) == 200
        named = check(base + list_path + "&order_by=name", bearer, args.repos)["repos"]
        assert [r["name"] for r in named] == sorted(r["name"] for r in named)

        lua = str(BENCH / "get_random.lua")
        results = {
            "ping": measure("ping", base, "/ping/v2/ping", args),
            "get": measure("get", base, "/registry/v2/repos/<uid>", args, [lua, str(uids_file)], bearer),
            "list200": measure("list200", base, list_path, args, token=bearer),
            "list200_name": measure("list200_name", base, list_path + "&order_by=name", args, token=bearer),
            # Last: they add rows. Names are new on every request (bench/create_unique.lua, a prefix per run).
            "create_one_parent": measure_creates("create_one_parent", base, [ds.org], args, bearer),
            "create_spread": measure_creates("create_spread", base, ds.groups, args, bearer),
        }
        return {"backend": backend, "load_seconds": ds.seconds, "repos": len(ds.repo_uids),
                "groups": 1 + len(ds.groups), "org": ds.org, "results": results}  # fmt: skip


def run_hello(args: argparse.Namespace, stamp: str) -> dict:
    log("\n== hello (bare ASGI on Granian, bench/hello.py)")
    port = free_port()
    argv = [sys.executable, str(BENCH / "hello.py"), "--port", str(port)]
    server = Server(RESULTS / f"server-hello-{stamp}.log", argv, port, "/", cpu=SERVER_CPU)
    try:
        server.wait_ready()
        return measure("hello", server.url, "/", args)
    finally:
        server.stop()


# ---------------------------------------------------------------- report


def machine() -> dict:
    def git(*a: str) -> str:
        p = subprocess.run(["git", *a], capture_output=True, text=True, cwd=ROOT)
        return p.stdout.strip()

    cpu = ""
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    from granian import __version__ as granian_version

    wrk_version = subprocess.run(["wrk", "-v"], capture_output=True, text=True).stdout.splitlines()[:1]
    return {
        "nproc": os.cpu_count(),
        "cpu": cpu,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "granian": granian_version,
        "wrk": wrk_version[0] if wrk_version else "",
        "git_commit": git("rev-parse", "HEAD"),
        "git_dirty": bool(git("status", "--porcelain", "--untracked-files=no")),
    }


def table(hello: dict, backends: list[dict]) -> str:
    rows = [("hello (bare ASGI)", "-", hello)]
    names = {"ping": "ping", "get": "GET repo", "list200": "List(200)", "list200_name": "List(200) by name",
             "create_one_parent": "create, 1 parent*", "create_spread": "create, spread*"}  # fmt: skip
    for b in backends:
        rows += [(names[k], b["backend"], v) for k, v in b["results"].items()]
    lines = [f"{'endpoint':<20} {'backend':<9} {'req/s (c64)':>12} {'p50 ms (c1)':>12} {'p99 ms (c1)':>12}"]
    lines.append("-" * len(lines[0]))
    for name, backend, r in rows:
        err = "  (errors!)" if r["errors"] else ""
        lines.append(f"{name:<20} {backend:<9} {r['rps']:>12,.0f} {r['p50_ms']:>12.3f} {r['p99_ms']:>12.3f}{err}")
    lines.append("* creates: p50/p99 at c64 (the median run), not c1")
    lines.append("")
    for b in backends:
        ratio = b["results"]["get"]["rps"] / hello["rps"]
        p50 = b["results"]["list200"]["p50_ms"]
        creates = b["results"]["create_one_parent"]["rps"]
        want, want_creates = TARGET_GET_RATIO[b["backend"]], TARGET_CREATES[b["backend"]]
        ok = {True: "ok", False: "MISSED"}
        lines.append(
            f"{b['backend']:<9} GET/hello = {ratio:.2f} (target >= {want:.2f}: {ok[ratio >= want]});  "
            f"List(200) p50 = {p50:.2f} ms (target <= {TARGET_LIST_P50_MS:.0f}: {ok[p50 <= TARGET_LIST_P50_MS]});  "
            f"creates (1 parent, c64) = {creates:,.0f}/s (target >= {want_creates:,}: {ok[creates >= want_creates]});  "
            f"load {b['load_seconds']:.1f} s"
        )
    return "\n".join(lines)


def _interrupt(*_: Any) -> None:
    raise KeyboardInterrupt


def main() -> None:
    p = argparse.ArgumentParser(description="Benchmark the HTTP/JSON API (see bench/README.md)")
    add_backend_options(p)
    p.add_argument("--repos", type=int, default=100_000)
    p.add_argument("--groups", type=int, default=100, help="sub-groups of the org the repos are spread over")
    p.add_argument("--duration", type=int, default=10, help="seconds per wrk run")
    p.add_argument("--warmup", type=int, default=2, help="seconds of discarded wrk warm-up per endpoint")
    p.add_argument("--runs", type=int, default=3, help="throughput runs per endpoint (median reported)")
    p.add_argument("--connections", type=int, default=64)
    p.add_argument("--keep-db", action="store_true", help="keep the SQLite file (PostgreSQL is always dropped)")
    args = p.parse_args()
    require_tools()
    results_dir()
    # Ctrl-C and SIGTERM unwind through the finally blocks that stop servers and drop databases.
    signal.signal(signal.SIGTERM, _interrupt)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    started = time.time()
    try:
        hello = run_hello(args, stamp)
        done = [run_backend(b, args, stamp) for b in backends(args)]
    except KeyboardInterrupt:
        sys.exit("interrupted: servers stopped, scratch databases removed")
    report = {
        "time": time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(started)),
        "wall_seconds": round(time.time() - started, 1),
        "machine": machine(),
        "method": {
            "server_cpu": SERVER_CPU,
            "client_cpu": CLIENT_CPU,
            "wrk_threads": 1,
            "connections": args.connections,
            "duration_s": args.duration,
            "warmup_s": args.warmup,
            "runs": args.runs,
            "rps": "median of runs at -c{connections}",
            "latency": "p50/p99 of one single-client run (-c1 --latency)",
            "after_load": {"postgres": "VACUUM ANALYZE", "sqlite": "nothing (the service never runs ANALYZE)"},
        },
        "targets": {
            "get_over_hello_min": TARGET_GET_RATIO,
            "list200_p50_ms_max": TARGET_LIST_P50_MS,
            "creates_per_s_min": TARGET_CREATES,
        },
        "hello": hello,
        "backends": {
            b["backend"]: {
                **b,
                "get_over_hello": b["results"]["get"]["rps"] / hello["rps"],
                "list200_p50_ms": b["results"]["list200"]["p50_ms"],
            }
            for b in done
        },
    }
    out = write_json(RESULTS / f"bench-{stamp}.json", report)
    print()
    print(table(hello, done))
    print(f"\nresults: {out.relative_to(ROOT)}  (wall {report['wall_seconds']:.0f} s)")


if __name__ == "__main__":
    main()
