"""OSV benchmark: `platform-api import osv` throughput and ListVulnerabilityMetadata latency with 1,000 ids.

    python bench/osv.py --backend sqlite|postgres|both [--records 50000] [--requests 100] [--ids 1000]

Per backend, on a fresh database:
1. Generates `--records` OSV records into one zip (the shape of OSV's per-ecosystem all.zip): half GHSA
   records aliasing a CVE id, half CVE records; each with a summary, ~400 characters of details, three
   references, a CVSS v3.1 (and every fourth a v4.0) vector.
2. Import: `platform-api import osv all.zip` (wall time of the command, including process start and
   migrations) -> records/s; then the same again (everything unchanged). PostgreSQL then gets ANALYZE
   (what autovacuum does shortly after a bulk load; bench/load.py does the same).
3. Serve (`platform-api serve`, pinned to core 0 with taskset when there is one) and ask for 1,000 ids at
   a time (a fresh random sample per request: half CVE ids that only an alias answers to, half record ids),
   one client, keep-alive: HTTP GET /advisory/v2/metadata with 1,000 repeated `ids=` parameters and
   page_size=200 (the first page, totalCount 1000), the same over gRPC, and the whole 1,000 (5 pages of 200)
   over gRPC. p50 / p99 per row. The GET's URL is ~24 KB: Granian accepts it (httpx refuses URLs over
   64 KiB client-side; proxies often stop at 8-16 KB, where gRPC or smaller batches remain).
Prints a table and writes bench/results/osv-<time>.json. Never fails on the targets.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import statistics
import sys
import time
import zipfile
from pathlib import Path
from typing import Any

import grpc
import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import (
    RESULTS,
    add_backend_options,
    backends,
    free_port,
    log,
    pct,
    pg,
    results_dir,
    scratch_database,
    serve,
    write_json,
)
from common import (
    cli as common_cli,
)

from platform_api.gen.chainguard.platform.advisory.v2 import advisory_pb2, advisory_pb2_grpc

TARGET_P50_MS = 50.0
V3 = ["CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H", "CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N",
      "CVSS:3.1/AV:L/AC:L/PR:L/UI:N/S:U/C:H/I:H/A:H", "CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:H/I:N/A:N"]  # fmt: skip
V4 = "CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N"


def names(i: int) -> tuple[str, str]:
    """(record id, the CVE id it answers to) of record i: even records are GHSA-... aliasing a CVE."""
    cve = f"CVE-2024-{i + 100000}"
    return (f"GHSA-{i:04x}-{(i * 7919) % 65536:04x}-bnch" if i % 2 == 0 else cve), cve


def record(i: int) -> dict[str, Any]:
    rid, cve = names(i)
    severity = [{"type": "CVSS_V3", "score": V3[i % len(V3)]}]
    if i % 4 == 0:
        severity.append({"type": "CVSS_V4", "score": V4})
    return {
        "schema_version": "1.6.0",
        "id": rid,
        "modified": f"2024-{1 + i % 12:02d}-{1 + i % 28:02d}T12:00:00Z",
        "published": "2024-01-01T00:00:00Z",
        "aliases": [cve] if rid != cve else [],
        "summary": f"Benchmark vulnerability {i} in package-{i % 997}",
        "details": (f"Package package-{i % 997} before 1.{i % 50}.0 mishandles crafted input. " * 6)[:400],
        "severity": severity,
        "affected": [{"package": {"ecosystem": "PyPI", "name": f"package-{i % 997}"},
                      "ranges": [{"type": "ECOSYSTEM", "events": [{"introduced": "0"}, {"fixed": f"1.{i % 50}.0"}]}]}],
        "references": [
            {"type": "ADVISORY", "url": f"https://nvd.nist.gov/vuln/detail/{cve}"},
            {"type": "FIX", "url": f"https://github.com/example/package-{i % 997}/commit/{i:040x}"},
            {"type": "WEB", "url": f"https://example.org/advisories/{rid}"},
        ],
    }  # fmt: skip


def generate(path: Path, n: int) -> float:
    t0 = time.perf_counter()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        for i in range(n):
            rid, _ = names(i)
            z.writestr(f"{rid}.json", json.dumps(record(i)))
    return time.perf_counter() - t0


def cli(*args: str, database: str) -> tuple[float, dict[str, Any]]:
    t0 = time.perf_counter()
    summary = json.loads(common_cli(database, *args))
    return time.perf_counter() - t0, summary


def measure(label: str, fn: Any, requests: int) -> dict[str, Any]:
    for _ in range(5):  # warm-up
        fn()
    times = []
    for _ in range(requests):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    row = {"row": label, "p50_ms": round(statistics.median(times), 2), "p99_ms": round(pct(times, 0.99), 2),
           "requests": requests}  # fmt: skip
    log(f"  {label}: p50 {row['p50_ms']} ms, p99 {row['p99_ms']} ms")
    return row


def run_backend(backend: str, args: argparse.Namespace, archive: Path, stamp: str) -> dict[str, Any]:
    log(f"[{backend}]")
    result: dict[str, Any] = {"backend": backend, "records": args.records}
    with contextlib.ExitStack() as stack:
        database = stack.enter_context(scratch_database(backend, RESULTS / f"osv-{stamp}.db", "pa_bench_osv_",
                                                        args.pg_url))  # fmt: skip
        secs, summary = cli("import", "osv", str(archive), database=database)
        assert summary["created"] == args.records, summary
        result["import_s"] = round(secs, 2)
        result["import_records_per_s"] = round(args.records / secs)
        log(f"  import: {secs:.1f} s, {args.records / secs:,.0f} records/s")
        secs, summary = cli("import", "osv", str(archive), database=database)
        assert summary["unchanged"] == args.records, summary
        result["reimport_s"] = round(secs, 2)
        result["reimport_records_per_s"] = round(args.records / secs)
        log(f"  re-import (unchanged): {secs:.1f} s, {args.records / secs:,.0f} records/s")
        if backend == "postgres":  # what autovacuum does shortly after a bulk load (as bench/load.py does)
            pg("ANALYZE vulnerability_metadata; ANALYZE vulnerability_aliases", database)

        port = free_port()
        server = serve(database, RESULTS / f"server-{port}.log", port=port, cpu="0",
                       env={"PLATFORM_API_LOG_LEVEL": "warning"})  # fmt: skip
        stack.callback(server.stop)
        base, target = server.url, f"127.0.0.1:{server.grpc_port}"
        rng = random.Random(7)

        def sample() -> list[str]:
            picks = rng.sample(range(args.records), args.ids)
            return [names(i)[1] if k % 2 else names(i)[0] for k, i in enumerate(picks)]

        client = httpx.Client(base_url=base, timeout=30)
        channel = grpc.insecure_channel(target, options=[("grpc.max_receive_message_length", 64 << 20)])
        stub = advisory_pb2_grpc.SecurityAdvisoryServiceStub(channel)
        query = "&".join(f"ids={i}" for i in sample())
        result["url_bytes"] = len(f"/advisory/v2/metadata?page_size=200&{query}")
        first = client.get(f"/advisory/v2/metadata?page_size=200&{query}").json()
        assert first["totalCount"] == str(args.ids) and len(first["vulnerabilityMetadata"]) == 200, first.keys()

        def http_page() -> None:
            q = "&".join(f"ids={i}" for i in sample())
            r = client.get(f"/advisory/v2/metadata?page_size=200&{q}")
            assert r.status_code == 200 and len(r.json()["vulnerabilityMetadata"]) == 200

        def grpc_page() -> None:
            resp = stub.ListVulnerabilityMetadata(
                advisory_pb2.ListVulnerabilityMetadataRequest(ids=sample(), page_size=200)
            )
            assert len(resp.vulnerability_metadata) == 200

        def grpc_all() -> None:
            ids, token, got = sample(), "", 0
            while True:
                resp = stub.ListVulnerabilityMetadata(
                    advisory_pb2.ListVulnerabilityMetadataRequest(ids=ids, page_size=200, page_token=token)
                )
                got += len(resp.vulnerability_metadata)
                token = resp.next_page_token
                if not token:
                    break
            assert got == args.ids

        rows = [
            measure(f"HTTP GET {args.ids} ids, first page (200)", http_page, args.requests),
            measure(f"gRPC {args.ids} ids, first page (200)", grpc_page, args.requests),
            measure(f"gRPC {args.ids} ids, all 5 pages", grpc_all, max(10, args.requests // 5)),
        ]
        result["rows"] = rows
        client.close()
        channel.close()
    return result


def table(results: list[dict[str, Any]]) -> str:
    lines = [
        "| backend | import records/s | re-import records/s | row | p50 ms | p99 ms |",
        "|---|---|---|---|---|---|",
    ]
    for r in results:
        for row in r["rows"]:
            lines.append(f"| {r['backend']} | {r['import_records_per_s']:,} | {r['reimport_records_per_s']:,} |"
                         f" {row['row']} | {row['p50_ms']} | {row['p99_ms']} |")  # fmt: skip
    return "\n".join(lines)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_backend_options(p)
    p.add_argument("--records", type=int, default=50_000)
    p.add_argument("--ids", type=int, default=1_000)
    p.add_argument("--requests", type=int, default=100)
    args = p.parse_args()
    results_dir()
    stamp = time.strftime("%Y%m%dT%H%M%S")
    archive = RESULTS / f"osv-{stamp}-all.zip"
    log(f"generating {args.records:,} OSV records into {archive.name} ...")
    log(f"  {generate(archive, args.records):.1f} s, {archive.stat().st_size / 1e6:.1f} MB")
    try:
        results = [run_backend(b, args, archive, stamp) for b in backends(args)]
    finally:
        archive.unlink(missing_ok=True)
    out = {"stamp": stamp, "target_p50_ms": TARGET_P50_MS, "cpus": os.cpu_count(), "results": results}
    write_json(RESULTS / f"osv-{stamp}.json", out)
    print(table(results))
    print(f"URL of the 1,000-id GET: {results[0]['url_bytes']:,} bytes")


if __name__ == "__main__":
    main()
