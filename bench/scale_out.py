"""Scale-out on one PostgreSQL database: GETs and creates with 1, 2 and 4 `serve` processes, and with one
process of `--workers 2`; see bench/README.md ("Scale-out benchmark").

    python bench/scale_out.py [--processes 1,2,4] [--workers 2] [--repos 10000] [--duration 10] [--runs 1]

Steps: load a fresh PostgreSQL database (`--repos` repos under an organization and `--groups` sub-groups,
bench/load.py) and VACUUM ANALYZE it. Then per configuration (N processes of one worker each, then one
process of `--workers W`): VACUUM ANALYZE again (autovacuum's part: creates leave dead counter rows), start
the processes on the same database (the first decides the issuer, the others get it as `--public-url`, so
one token works everywhere, as behind a load balancer), and drive them with wrk: one wrk per process, all at
once, the connections split evenly over them; their req/s summed. No load balancer: the client spreads its
connections over the processes' ports. Measured per configuration:

- get: GET /registry/v2/repos/<uid>, uid random among the loaded repos (bench/get_random.lua);
- create_spread: POST /registry/v2/repos/<group>, a unique name each, the parent random among the groups;
- create_one_parent: the same with every create under the organization.

Nothing is pinned: the servers, the wrk processes and PostgreSQL share the machine's cores, so the client's
share grows with the processes it drives (wrk -t1 per process). Writes bench/results/scale-out-<time>.json.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import secrets
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import (
    BENCH,
    PG_ADMIN_URL,
    RESULTS,
    ROOT,
    Server,
    git_commit,
    log,
    pg,
    results_dir,
    scratch_database,
    serve,
    token,
    write_json,
)
from run import parse_wrk, require_tools

# wrk script: POST /registry/v2/repos/<parent> {"name": "<prefix>-<n>"}, the parent picked at random from a
# file of parent uids (one per line; in lockstep round-robin the wrk instances would hit the same parents at the
# same moments). Args: <parents file> <name prefix> <bearer token>.
CREATE_LUA = """\
local parents, n, i, prefix, headers = {}, 0, 0, "", {}
function init(args)
  for line in io.lines(args[1]) do n = n + 1; parents[n] = line end
  prefix = args[2]
  headers = {["Content-Type"] = "application/json", ["Authorization"] = "Bearer " .. args[3]}
  math.randomseed(os.time() * 31 + string.byte(prefix, -1))  -- the last character: the wrk number
end
function request()
  i = i + 1
  local body = '{"name":"' .. prefix .. '-' .. i .. '"}'
  return wrk.format("POST", "/registry/v2/repos/" .. parents[math.random(n)], headers, body)
end
"""


# ---------------------------------------------------------------- wrk, one per process at once


def wrk_all(servers: list[Server], connections: int, duration: int, script: list[str], bearer: str = "") -> dict:
    """One `wrk -t1` per server (connections split evenly), started together; req/s summed. `{instance}` in
    the script's arguments becomes the wrk's number. Latency percentiles cannot be merged from wrk's
    summaries: the worst instance's are kept."""
    share = max(1, connections // len(servers))
    procs = []
    for k, s in enumerate(servers):
        argv = ["wrk", "-t1", f"-c{share}", f"-d{duration}s", "--latency"]
        if bearer:
            argv += ["-H", f"Authorization: Bearer {bearer}"]
        script_args = [a.replace("{instance}", str(k)) for a in script[1:]]
        procs.append(subprocess.Popen([*argv, "-s", script[0], s.url, "--", *script_args],
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))  # fmt: skip
    outs = []
    for p in procs:
        out, err = p.communicate(timeout=duration + 60)
        if p.returncode != 0:
            raise RuntimeError(f"wrk failed ({p.returncode}): {err or out}")
        outs.append(parse_wrk(out))
    res = {
        "rps": sum(o["rps"] for o in outs),
        "requests": sum(o["requests"] for o in outs),
        "p50_ms_max": max(o.get("p50_ms", 0.0) for o in outs),
        "p99_ms_max": max(o.get("p99_ms", 0.0) for o in outs),
        "errors": sum(o["non_2xx"] + o["socket_errors"] for o in outs),
        "per_process_rps": [o["rps"] for o in outs],
    }
    if res["errors"]:
        log(f"    WARNING: {res['errors']} non-2xx responses or socket errors")
    return res


def measure(name: str, servers: list[Server], args: argparse.Namespace, script: Any, bearer: str = "") -> dict:
    """Warm-up (discarded), then `runs` runs: the median req/s. `script` is the wrk script and its
    arguments, or a function of the run's number giving them (creates need fresh names each run)."""
    argv = script if isinstance(script, list) else None
    wrk_all(servers, args.connections, args.warmup, argv or script("w"), bearer)
    runs = []
    for i in range(args.runs):
        r = wrk_all(servers, args.connections, args.duration, argv or script(str(i)), bearer)
        runs.append(r)
        split = " + ".join(f"{x:,.0f}" for x in r["per_process_rps"])
        log(f"    {name} run {i + 1}/{args.runs}: {r['rps']:>8,.0f} req/s ({split}), p99 <= {r['p99_ms_max']:.1f} ms")
    rps = statistics.median(r["rps"] for r in runs)
    return {"rps": rps, "p99_ms_max": max(r["p99_ms_max"] for r in runs),
            "errors": sum(r["errors"] for r in runs), "runs": runs}  # fmt: skip


# ---------------------------------------------------------------- configurations


def start(url: str, count: int, workers: int, stamp: str, label: str) -> list[Server]:
    """`count` serve processes of `workers` workers each on `url`, one issuer for all."""
    servers: list[Server] = []
    try:
        for i in range(count):
            extra = ["--workers", str(workers)] if workers > 1 else []
            if servers:
                extra += ["--public-url", f"http://localhost:{servers[0].port}"]
            servers.append(serve(url, RESULTS / f"scale-out-{label}-{i}-{stamp}.log", *extra))
    except BaseException:
        for s in servers:
            s.stop()
        raise
    return servers


def run_config(label: str, url: str, count: int, workers: int, files: dict[str, Path], owner: str,
               args: argparse.Namespace, stamp: str) -> dict:  # fmt: skip
    log(f"\n== {label}: {count} process(es) x {workers} worker(s)")
    pg("VACUUM ANALYZE", url)
    servers = start(url, count, workers, stamp, label)
    try:
        bearer = token(url, owner)
        tag = secrets.token_hex(3)

        def creates(parents: Path) -> Any:
            # A name prefix per configuration, run and wrk: every create is new.
            return lambda run: [str(files["create_lua"]), str(parents), f"c{tag}{run}-{{instance}}", bearer]

        return {
            "processes": count,
            "workers": workers,
            "get": measure("get", servers, args, [str(BENCH / "get_random.lua"), str(files["uids"])], bearer),
            "create_spread": measure("create_spread", servers, args, creates(files["groups"])),
            "create_one_parent": measure("create_one_parent", servers, args, creates(files["org"])),
        }
    finally:
        for s in servers:
            s.stop()


def table(configs: list[dict]) -> str:
    base = configs[0]
    head = f"{'configuration':<24} {'GET req/s':>10} {'x1':>5} {'creates spread':>15} {'x1':>5} "
    head += f"{'one parent':>11} {'x1':>5}"
    lines = [head, "-" * len(head)]
    for c in configs:
        cells = []
        for k in ("get", "create_spread", "create_one_parent"):
            mark = "!" if c[k]["errors"] else ""
            cells.append(f"{c[k]['rps']:>{10 if k == 'get' else 15 if k == 'create_spread' else 11},.0f}{mark}")
            cells.append(f"{c[k]['rps'] / base[k]['rps']:>5.2f}")
        lines.append(f"{c['label']:<24} " + " ".join(cells))
    lines.append(f"(x1: ratio to the first row, {base['label']}; p99 per run in the JSON; !: errors)")
    return "\n".join(lines)


def _interrupt(*_: Any) -> None:
    raise KeyboardInterrupt


def main() -> None:
    p = argparse.ArgumentParser(description="Scale-out over one PostgreSQL database (see bench/README.md)")
    p.add_argument("--pg-url", default=PG_ADMIN_URL, help="PostgreSQL URL to create the scratch database from")
    p.add_argument("--processes", default="1,2,4", help="process counts, comma-separated (default 1,2,4)")
    p.add_argument("--workers", type=int, default=2, help="--workers of the one-process configuration (0: skip it)")
    p.add_argument("--repos", type=int, default=10_000)
    p.add_argument("--groups", type=int, default=100, help="sub-groups: the parents of the spread creates")
    p.add_argument("--duration", type=int, default=10, help="seconds per run")
    p.add_argument("--warmup", type=int, default=2, help="seconds of discarded warm-up per workload")
    p.add_argument("--runs", type=int, default=1, help="runs per workload (median reported)")
    p.add_argument("--connections", type=int, default=64, help="in all, split evenly over the processes")
    args = p.parse_args()
    require_tools()
    results_dir()
    signal.signal(signal.SIGTERM, _interrupt)
    from load import load

    stamp = time.strftime("%Y%m%d-%H%M%S")
    started = time.time()
    plan = [(f"{n} process{'es' if n > 1 else ''}", n, 1) for n in (int(x) for x in args.processes.split(","))]
    if args.workers > 1:
        plan.append((f"1 process, --workers {args.workers}", 1, args.workers))
    configs = []
    try:
        with contextlib.ExitStack() as stack:
            url = stack.enter_context(scratch_database("postgres", RESULTS / "unused.db", "pa_scale_", args.pg_url))
            ds = asyncio.run(load(url, repos=args.repos, groups=args.groups))
            log(f"  loaded {len(ds.repo_uids):,} repos under {1 + len(ds.groups)} groups in {ds.seconds:.1f} s")
            files = {
                "uids": RESULTS / f"scale-out-uids-{stamp}.txt",
                "groups": RESULTS / f"scale-out-groups-{stamp}.txt",
                "org": RESULTS / f"scale-out-org-{stamp}.txt",
                "create_lua": RESULTS / f"scale-out-create-{stamp}.lua",
            }
            files["uids"].write_text("\n".join(ds.repo_uids) + "\n")
            files["groups"].write_text("\n".join(ds.groups) + "\n")
            files["org"].write_text(ds.org + "\n")
            files["create_lua"].write_text(CREATE_LUA)
            for f in files.values():
                stack.callback(f.unlink, missing_ok=True)
            for label, count, workers in plan:
                configs.append({"label": label, **run_config(label, url, count, workers, files, ds.owner, args, stamp)})
    except KeyboardInterrupt:
        sys.exit("interrupted: servers stopped, scratch database removed")
    report = {
        "time": time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(started)),
        "wall_seconds": round(time.time() - started, 1),
        "git_commit": git_commit(),
        "method": {
            "client": "wrk -t1 per process, all at once, connections split evenly; req/s summed",
            "connections": args.connections,
            "duration_s": args.duration,
            "warmup_s": args.warmup,
            "runs": args.runs,
            "repos": args.repos,
            "groups": args.groups,
            "pinning": "none: servers, wrk and PostgreSQL share the cores",
            "between_configurations": "VACUUM ANALYZE",
        },
        "configurations": configs,
    }
    out = write_json(RESULTS / f"scale-out-{stamp}.json", report)
    print()
    print(table(configs))
    print(f"\nresults: {out.relative_to(ROOT)}  (wall {report['wall_seconds']:.0f} s)")


if __name__ == "__main__":
    main()
