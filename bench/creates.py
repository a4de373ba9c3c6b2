"""Write throughput: repo creates (POST /registry/v2/repos/<group>) at 1, 8 and 64 concurrent clients.

    python bench/creates.py --backend sqlite|postgres|both [--duration 10] [--runs 3] [--clients 1,8,64]

Per backend: a fresh database, `platform-api serve` pinned to core 0, `platform-api bootstrap` (an
organization, its owner and a token), 10 sub-groups; then wrk pinned to core 1 (one thread,
bench/create_unique.lua: a new repo name per request) for each client count, first every create under the
organization (one parent: creates serialize on its row), then spread over the 10 sub-groups. Reports
creates/s (median of the runs) and p50/p99 latency (of the median run), checks that every acknowledged
create is stored, and writes bench/results/creates-<time>.json.
"""

from __future__ import annotations

import argparse
import json
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
from run import SERVER_CPU, require_tools, wrk

LUA = str(BENCH / "create_unique.lua")
SUB_GROUPS = 10


def _call(base: str, token: str, method: str, path: str, body: Any = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    request = urllib.request.Request(base + path, data=data, headers=headers, method=method)
    with urllib.request.urlopen(request, timeout=30) as r:
        return json.loads(r.read())


def _count(base: str, token: str, org: str) -> int:
    body = _call(base, token, "GET", f"/registry/v2/repos?uidp.descendants_of={org}&page_size=1")
    return int(body.get("totalCount", 0))


def run_backend(backend: str, args: argparse.Namespace, stamp: str) -> dict[str, Any]:
    log(f"\n== {backend}")
    with scratch_database(backend, RESULTS / f"creates-{stamp}.db", "pa_bench_", args.pg_url) as url:
        server = serve(url, RESULTS / f"server-creates-{backend}-{stamp}.log", cpu=SERVER_CPU)
        try:
            boot = json.loads(cli(url, "bootstrap"))
            token, org = boot["token"], boot["organization"]
            groups = [
                _call(server.url, token, "POST", f"/iam/v2/groups/{org}", {"name": f"team-{i}"})["uid"]
                for i in range(SUB_GROUPS)
            ]
            layouts = {"one_parent": [org], "ten_parents": groups}
            results: dict[str, Any] = {}
            acknowledged = 0
            for layout, parents in layouts.items():
                for clients in args.clients:
                    prefix = f"{layout[:3]}-c{clients}-"
                    wrk(server.url, clients, args.warmup, [LUA, prefix + "w-", *parents], token)
                    runs = []
                    for i in range(args.runs):
                        r = wrk(server.url, clients, args.duration, [LUA, f"{prefix}{i}-", *parents], token)
                        runs.append(r)
                        log(f"  {layout} c{clients} run {i + 1}: {r['rps']:,.0f} creates/s, p99 {r['p99_ms']:.2f} ms")
                    median = sorted(runs, key=lambda r: r["rps"])[len(runs) // 2]
                    results[f"{layout}_c{clients}"] = {
                        "layout": layout,
                        "clients": clients,
                        "creates_per_s": statistics.median(r["rps"] for r in runs),
                        "p50_ms": median["p50_ms"],
                        "p99_ms": median["p99_ms"],
                        "runs": runs,
                        "errors": sum(r["non_2xx"] + r["socket_errors"] for r in runs),
                    }
            # Every create wrk counted as answered 2xx must be stored (more may be: wrk stops with requests
            # in flight). Warm-ups are not counted; the stored total includes them.
            acknowledged = sum(r["requests"] - r["non_2xx"] for res in results.values() for r in res["runs"])
            stored = _count(server.url, token, org)
            if stored < acknowledged:
                raise RuntimeError(f"{stored} repos stored, {acknowledged} creates acknowledged")
            log(f"  stored {stored:,} repos ({acknowledged:,} acknowledged in the measured runs)")
            return {"backend": backend, "results": results, "stored": stored}
        finally:
            server.stop()


def table(done: list[dict[str, Any]]) -> str:
    lines = [f"{'backend':<9} {'layout':<12} {'clients':>7} {'creates/s':>10} {'p50 ms':>8} {'p99 ms':>8}"]
    lines.append("-" * len(lines[0]))
    for b in done:
        for r in b["results"].values():
            err = "  (errors!)" if r["errors"] else ""
            lines.append(
                f"{b['backend']:<9} {r['layout']:<12} {r['clients']:>7} {r['creates_per_s']:>10,.0f}"
                f" {r['p50_ms']:>8.2f} {r['p99_ms']:>8.2f}{err}"
            )
    return "\n".join(lines)


def _server_tree() -> dict[str, str]:
    import platform_api

    tree = Path(platform_api.__file__).resolve().parents[2]
    head = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, cwd=tree).stdout.strip()
    return {"path": str(tree), "commit": head}


def _interrupt(*_: Any) -> None:
    raise KeyboardInterrupt


def main() -> None:
    p = argparse.ArgumentParser(description="Benchmark repo creates (see bench/README.md)")
    add_backend_options(p)
    p.add_argument("--duration", type=int, default=10, help="seconds per wrk run")
    p.add_argument("--warmup", type=int, default=2, help="seconds of discarded wrk warm-up per client count")
    p.add_argument("--runs", type=int, default=3, help="runs per client count (median reported)")
    p.add_argument("--clients", type=lambda s: [int(c) for c in s.split(",")], default=[1, 8, 64])
    args = p.parse_args()
    require_tools()
    results_dir()
    signal.signal(signal.SIGTERM, _interrupt)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    try:
        done = [run_backend(b, args, stamp) for b in backends(args)]
    except KeyboardInterrupt:
        sys.exit("interrupted: servers stopped, scratch databases removed")
    report = {
        "time": stamp,
        "git_commit": git_commit(),
        # The tree the served code comes from (the interpreter's platform_api: another worktree's venv
        # measures that tree's server with this script).
        "server_tree": _server_tree(),
        "method": {
            "server_cpu": SERVER_CPU,
            "wrk": "one thread on core 1, bench/create_unique.lua",
            "duration_s": args.duration,
            "runs": args.runs,
            "creates_per_s": "median of the runs",
            "latency": "p50/p99 of the median run",
        },
        "backends": {b["backend"]: b for b in done},
    }
    out = write_json(RESULTS / f"creates-{stamp}.json", report)
    print()
    print(table(done))
    print(f"\nresults: {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
