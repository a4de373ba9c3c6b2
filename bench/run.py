"""HTTP benchmark of the service against a bare ASGI baseline; see bench/README.md.

    python bench/run.py --backend sqlite|postgres|both [--repos 100000] [--duration 10] [--runs 3]

Steps: load a fresh database (100k repos) through the store layer; serve it with `platform-api serve`
pinned to core 0; drive it with wrk pinned to core 1; the same for bench/hello.py (bare ASGI app on
the same Granian settings). Prints a table and writes bench/results/bench-<time>.json.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import re
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
RESULTS = BENCH / "results"
PG_ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/test"
SERVER_CPU = "0"
CLIENT_CPU = "1"
# GET with a valid token (authentication and authorization included) vs the bare hello-world.
TARGET_GET_RATIO = 0.45
TARGET_LIST_P50_MS = 15.0

sys.path.insert(0, str(BENCH))


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


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


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """A server process group pinned to SERVER_CPU; stopped (whole group) on exit."""

    def __init__(self, name: str, argv: list[str], port: int, ready_path: str, env: dict[str, str] | None = None):
        self.name, self.port, self.ready_path = name, port, ready_path
        self.log_path = RESULTS / f"server-{name}.log"
        self._log = open(self.log_path, "wb")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(
            ["taskset", "-c", SERVER_CPU, *argv],
            stdout=self._log,
            stderr=subprocess.STDOUT,
            env={**os.environ, **(env or {})},
            cwd=str(ROOT),
            start_new_session=True,  # own process group: Granian's worker goes down with it
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def wait_ready(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.name} exited with {self.proc.returncode}; log:\n{self.tail()}")
            try:
                with urllib.request.urlopen(self.url + self.ready_path, timeout=2) as r:
                    if r.status == 200:
                        return
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            time.sleep(0.2)
        raise RuntimeError(f"{self.name} not ready after {timeout}s; log:\n{self.tail()}")

    def tail(self, n: int = 30) -> str:
        with contextlib.suppress(OSError):
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-n:])
        return ""

    def stop(self) -> None:
        if self.proc.poll() is None:
            for sig, wait in ((signal.SIGINT, 10), (signal.SIGTERM, 5), (signal.SIGKILL, 5)):
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.proc.pid, sig)
                try:
                    self.proc.wait(wait)
                    break
                except subprocess.TimeoutExpired:
                    continue
        # Stragglers in the group (a worker whose parent died first).
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self._log.close()


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


def wrk(url: str, connections: int, duration: int, script: list[str] | None = None, token: str = "") -> dict[str, Any]:
    argv = ["taskset", "-c", CLIENT_CPU, "wrk", "-t1", f"-c{connections}", f"-d{duration}s", "--latency"]
    if token:
        argv += ["-H", f"Authorization: Bearer {token}"]
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


# ---------------------------------------------------------------- backends


def check(url: str, token: str, expect_total: int | None = None) -> dict:
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(request, timeout=30) as r:
        body = json.loads(r.read())
    if expect_total is not None and int(body.get("totalCount", -1)) != expect_total:
        raise RuntimeError(f"{url}: totalCount {body.get('totalCount')}, expected {expect_total}")
    return body


async def _pg_admin(sql: str) -> None:
    import asyncpg

    conn = await asyncpg.connect(PG_ADMIN_URL)
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


def _service_command() -> str:
    """`platform-api` of this interpreter's environment (the venv), else the one on PATH."""
    here = Path(sys.executable).parent / "platform-api"
    found = str(here) if here.exists() else shutil.which("platform-api")
    if not found:
        sys.exit("error: platform-api not found: activate the venv (pip install -e .) first")
    return found


def run_backend(backend: str, args: argparse.Namespace, stamp: str) -> dict:
    from load import load

    log(f"\n== {backend}")
    cleanup: list[Any] = []
    try:
        if backend == "sqlite":
            path = RESULTS / f"bench-{stamp}.db"
            url = f"sqlite:///{path}"
            for suffix in ("", "-wal", "-shm") if not args.keep_db else ():
                cleanup.append(lambda p=Path(str(path) + suffix): p.unlink(missing_ok=True))
        else:
            dbname = f"pa_bench_{secrets.token_hex(4)}"
            asyncio.run(_pg_admin(f"CREATE DATABASE {dbname}"))
            cleanup.append(lambda: asyncio.run(_pg_admin(f"DROP DATABASE IF EXISTS {dbname} WITH (FORCE)")))
            url = PG_ADMIN_URL.rsplit("/", 1)[0] + "/" + dbname
        log(f"  database {url}")
        ds = asyncio.run(load(url, repos=args.repos, groups=args.groups))
        log(f"  loaded {len(ds.repo_uids):,} repos under {1 + len(ds.groups)} groups in {ds.seconds:.1f} s")
        uids_file = RESULTS / f"uids-{backend}-{stamp}.txt"
        uids_file.write_text("\n".join(ds.repo_uids) + "\n")
        cleanup.append(lambda: uids_file.unlink(missing_ok=True))

        port = free_port()
        server = Server(
            f"{backend}-{stamp}",
            [_service_command(), "serve", "--http-port", str(port),
             "--grpc-port", str(free_port()), "--database", url, "--host", "127.0.0.1"],
            port, "/readyz",
        )  # fmt: skip
        cleanup.append(server.stop)
        server.wait_ready()
        base = server.url
        # Every API request carries a valid access token of the owner (minted as `platform-api token` does).
        token = subprocess.run(
            [_service_command(), "token", "--identity", ds.owner, "--database", url, "--ttl", "7200"],
            capture_output=True, text=True, check=True,
        ).stdout.strip()  # fmt: skip
        list_path = f"/registry/v2/repos?uidp.descendants_of={ds.org}&page_size=200"
        # Sanity: the requests measured answer what they should.
        got = check(base + "/registry/v2/repos/" + ds.repo_uids[len(ds.repo_uids) // 2], token)
        assert got["uid"] == ds.repo_uids[len(ds.repo_uids) // 2], got
        assert len(check(base + list_path, token, args.repos)["repos"]) == 200
        named = check(base + list_path + "&order_by=name", token, args.repos)["repos"]
        assert [r["name"] for r in named] == sorted(r["name"] for r in named)

        lua = str(BENCH / "get_random.lua")
        results = {
            "ping": measure("ping", base, "/ping/v2/ping", args),
            "get": measure("get", base, "/registry/v2/repos/<uid>", args, [lua, str(uids_file)], token),
            "list200": measure("list200", base, list_path, args, token=token),
            "list200_name": measure("list200_name", base, list_path + "&order_by=name", args, token=token),
        }
        return {"backend": backend, "load_seconds": ds.seconds, "repos": len(ds.repo_uids),
                "groups": 1 + len(ds.groups), "org": ds.org, "results": results}  # fmt: skip
    finally:
        for fn in reversed(cleanup):
            try:
                fn()
            except Exception as e:  # keep cleaning up
                log(f"  cleanup: {e!r}")


def run_hello(args: argparse.Namespace, stamp: str) -> dict:
    log("\n== hello (bare ASGI on Granian, bench/hello.py)")
    port = free_port()
    server = Server(f"hello-{stamp}", [sys.executable, str(BENCH / "hello.py"), "--port", str(port)], port, "/")
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
    names = {"ping": "ping", "get": "GET repo", "list200": "List(200)", "list200_name": "List(200) by name"}
    for b in backends:
        rows += [(names[k], b["backend"], v) for k, v in b["results"].items()]
    lines = [f"{'endpoint':<20} {'backend':<9} {'req/s (c64)':>12} {'p50 ms (c1)':>12} {'p99 ms (c1)':>12}"]
    lines.append("-" * len(lines[0]))
    for name, backend, r in rows:
        err = "  (errors!)" if r["errors"] else ""
        lines.append(f"{name:<20} {backend:<9} {r['rps']:>12,.0f} {r['p50_ms']:>12.3f} {r['p99_ms']:>12.3f}{err}")
    lines.append("")
    for b in backends:
        ratio = b["results"]["get"]["rps"] / hello["rps"]
        p50 = b["results"]["list200"]["p50_ms"]
        lines.append(
            f"{b['backend']:<9} GET/hello = {ratio:.2f} (target >= {TARGET_GET_RATIO:.2f}: "
            f"{'ok' if ratio >= TARGET_GET_RATIO else 'MISSED'});  List(200) p50 = {p50:.2f} ms "
            f"(target <= {TARGET_LIST_P50_MS:.0f}: {'ok' if p50 <= TARGET_LIST_P50_MS else 'MISSED'});  "
            f"load {b['load_seconds']:.1f} s"
        )
    return "\n".join(lines)


def _interrupt(*_: Any) -> None:
    raise KeyboardInterrupt


def main() -> None:
    p = argparse.ArgumentParser(description="Benchmark the HTTP/JSON API (see bench/README.md)")
    p.add_argument("--backend", choices=("sqlite", "postgres", "both"), default="both")
    p.add_argument("--repos", type=int, default=100_000)
    p.add_argument("--groups", type=int, default=100, help="sub-groups of the org the repos are spread over")
    p.add_argument("--duration", type=int, default=10, help="seconds per wrk run")
    p.add_argument("--warmup", type=int, default=2, help="seconds of discarded wrk warm-up per endpoint")
    p.add_argument("--runs", type=int, default=3, help="throughput runs per endpoint (median reported)")
    p.add_argument("--connections", type=int, default=64)
    p.add_argument("--keep-db", action="store_true", help="keep the SQLite file (PostgreSQL is always dropped)")
    p.add_argument("--pg-url", default=PG_ADMIN_URL, help="PostgreSQL URL to create the scratch database from")
    args = p.parse_args()
    globals()["PG_ADMIN_URL"] = args.pg_url
    require_tools()
    RESULTS.mkdir(parents=True, exist_ok=True)
    # Ctrl-C and SIGTERM unwind through the finally blocks that stop servers and drop databases.
    signal.signal(signal.SIGTERM, _interrupt)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    started = time.time()
    backends = ["sqlite", "postgres"] if args.backend == "both" else [args.backend]
    try:
        hello = run_hello(args, stamp)
        done = [run_backend(b, args, stamp) for b in backends]
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
        },
        "targets": {"get_over_hello_min": TARGET_GET_RATIO, "list200_p50_ms_max": TARGET_LIST_P50_MS},
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
    out = RESULTS / f"bench-{stamp}.json"
    out.write_text(json.dumps(report, indent=2) + "\n")
    print()
    print(table(hello, done))
    print(f"\nresults: {out.relative_to(ROOT)}  (wall {report['wall_seconds']:.0f} s)")


if __name__ == "__main__":
    main()
