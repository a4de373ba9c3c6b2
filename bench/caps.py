"""Repeated request fields at and beyond their caps (issue 16, item 2): what one oversized message costs.

    python bench/caps.py --backend sqlite|postgres|both [--values 100000] [--advisories 2000]

Per backend, on a fresh database with `--advisories` imported advisories (generated YAML, one organization),
`platform-api serve` (server not pinned), then one run each:
- gRPC ListAdvisories with `event_types` x `--values` (one byte each: a ~100 KB message), while a second
  client GETs /ping/v2/ping in a loop: the call's status and seconds, and the longest /ping wait meanwhile;
- the same with `event_types` x 32,768 (one past PostgreSQL's 32,767 bind parameters) and x 250,001 (one
  past SQLite's 250,000 host parameters): status and seconds;
- gRPC ListRepos with `uidp.ids` x 17,000 (about 1 MB, near the 1 MiB gRPC takes): status, seconds;
- at the caps, over gRPC: ListRepos with 1,000 `uidp.ids`, ListAdvisories with 1,000 `aliases` (an event
  subquery) and with 1,000 `advisory_ids`: status and seconds.

Only the wire is used, so the same script measures any checkout. Prints a table and writes
bench/results/caps-<time>.json. No targets: it reports.
"""

from __future__ import annotations

import argparse
import json
import secrets
import sys
import threading
import time
from pathlib import Path
from typing import Any

import grpc
import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))

import advisories as advisories_bench
from common import (
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

from platform_api.gen.chainguard.platform.registry.v2 import repos_pb2, repos_pb2_grpc
from platform_api.gen.chainguard.platform.vulnerabilities.v2 import advisories_pb2, advisories_pb2_grpc


class PingWatch:
    """GETs /ping in a loop on its own thread; the longest single wait while running."""

    def __init__(self, url: str) -> None:
        self.url, self.longest, self._stop = url, 0.0, threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        with httpx.Client(base_url=self.url, timeout=120) as c:
            while not self._stop.is_set():
                t = time.perf_counter()
                c.get("/ping/v2/ping")
                self.longest = max(self.longest, time.perf_counter() - t)
                time.sleep(0.01)

    def __enter__(self) -> PingWatch:
        self._thread.start()
        return self

    def __exit__(self, *_: Any) -> None:
        self._stop.set()
        self._thread.join()


def _call(stub_call: Any, request: Any, token: str) -> tuple[str, float, str]:
    t = time.perf_counter()
    try:
        stub_call(request, metadata=[("authorization", f"Bearer {token}")], timeout=600)
        code, text = "OK", ""
    except grpc.RpcError as e:
        code, text = e.code().name, (e.details() or "")[:120]
    return code, time.perf_counter() - t, text


def run_backend(backend: str, args: argparse.Namespace, out: Path) -> list[dict[str, Any]]:
    docs = out / "caps-advisory-docs"
    advisories_bench.generate(docs, args.advisories, 1)
    rows: list[dict[str, Any]] = []
    with scratch_database(backend, out / f"caps-{secrets.token_hex(3)}.db", "pa_caps_", args.pg_url) as url:
        cli(url, "migrate")
        server = serve(url, out / f"caps-{backend}.log")
        try:
            boot = json.loads(cli(url, "bootstrap"))
            org, token = boot["organization"], boot["token"]
            cli(url, "import", "advisories", str(docs), "--group", org)
            channel = grpc.insecure_channel(f"127.0.0.1:{server.grpc_port}")
            advisories = advisories_pb2_grpc.AdvisoriesServiceStub(channel).ListAdvisories
            repos = repos_pb2_grpc.ReposServiceStub(channel).ListRepos
            fixed = advisories_pb2.EventTypeFilter.Value("EVENT_TYPE_FILTER_FIXED")

            def types(n: int) -> Any:
                return advisories_pb2.ListAdvisoriesRequest(event_types=[fixed] * n)

            with PingWatch(server.url) as watch:
                code, seconds, text = _call(advisories, types(args.values), token)
            rows.append({"case": f"ListAdvisories event_types x {args.values:,}", "code": code,
                         "seconds": seconds, "ping_longest": watch.longest, "message": text})  # fmt: skip
            for n in (32_768, 250_001):
                code, seconds, text = _call(advisories, types(n), token)
                rows.append({"case": f"ListAdvisories event_types x {n:,}", "code": code, "seconds": seconds,
                             "message": text})  # fmt: skip
            ids = [f"{org}/{secrets.token_hex(8)}" for _ in range(17_000)]
            code, seconds, text = _call(repos, repos_pb2.ListReposRequest(uidp={"ids": ids}), token)
            rows.append({"case": "ListRepos uidp.ids x 17,000", "code": code, "seconds": seconds, "message": text})
            code, seconds, text = _call(repos, repos_pb2.ListReposRequest(uidp={"ids": ids[:1000]}), token)
            rows.append({"case": "ListRepos uidp.ids x 1,000", "code": code, "seconds": seconds, "message": text})
            aliases = advisories_pb2.ListAdvisoriesRequest(aliases=[f"CVE-2024-{10000 + n}" for n in range(1000)])
            code, seconds, text = _call(advisories, aliases, token)
            rows.append({"case": "ListAdvisories aliases x 1,000", "code": code, "seconds": seconds, "message": text})
            at_cap = advisories_pb2.ListAdvisoriesRequest(
                advisory_ids=[advisories_bench.cga(n * 7919 + 13) for n in range(1000)]
            )
            code, seconds, text = _call(advisories, at_cap, token)
            rows.append(
                {"case": "ListAdvisories advisory_ids x 1,000", "code": code, "seconds": seconds, "message": text}
            )
            channel.close()
        finally:
            server.stop()
    for r in rows:
        r["backend"] = backend
    return rows


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_backend_options(p)
    p.add_argument("--values", type=int, default=100_000)
    p.add_argument("--advisories", type=int, default=2000)
    args = p.parse_args()
    out = results_dir()
    rows: list[dict[str, Any]] = []
    for backend in backends(args):
        log(f"{backend} ...")
        rows += run_backend(backend, args, out)
    print(f"{'backend':9} {'case':40} {'code':18} {'seconds':>8} {'/ping max':>9}")
    for r in rows:
        ping = f"{r['ping_longest']:.2f}" if "ping_longest" in r else ""
        print(f"{r['backend']:9} {r['case']:40} {r['code']:18} {r['seconds']:8.2f} {ping:>9}  {r['message'][:60]}")
    path = write_json(out / f"caps-{time.strftime('%Y%m%d-%H%M%S')}.json", {"commit": git_commit(), "rows": rows})
    log(f"wrote {path}")


if __name__ == "__main__":
    main()
