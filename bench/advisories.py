"""Advisories benchmark: import throughput of `platform-api import advisories` and ListAdvisories paging.

    python bench/advisories.py --backend sqlite|postgres|both [--packages 20000] [--per-package 10]

1. Generates `--packages` advisory documents (YAML, schema-version 2.0.2) of `--per-package` advisories
   each (default 20,000 x 10 = 200,000 advisories, 2-3 events each) under bench/results/advisory-docs/.
2. Per backend, on a fresh database: `platform-api bootstrap`, then times `platform-api import advisories`
   (docs/s, advisories/s) and the idempotent re-import of the same input (everything unchanged).
3. Serves the database (`platform-api serve`, pinned to CPU 0 when taskset exists) and, as a single
   client, walks ListAdvisories pages with an `artifactNames` filter (`--names` packages per request,
   `--page-size` per page, following nextPageToken) for `--samples` random name sets; reports p50/p90/p99
   per page. Also, for reference, the first page of the whole set with `uidp.descendants_of=<org>` and
   with no filter at all (all 200,000 visible to the owner).

Prints a table and writes bench/results/advisories-<time>.json.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import resource
import shutil
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import (
    PG_ADMIN_URL,
    RESULTS,
    add_backend_options,
    backends,
    cli,
    cli_json,
    log,
    pct,
    pg,
    results_dir,
    scratch_database,
    serve,
    token,
    write_json,
)

PG_URL = os.environ.get("PLATFORM_API_BENCH_PG", PG_ADMIN_URL)
ALPHABET = "23456789cfghjmpqrvwx"


def cga(n: int) -> str:
    digits = []
    for _ in range(12):
        n, r = divmod(n, len(ALPHABET))
        digits.append(ALPHABET[r])
    s = "".join(digits)
    return f"CGA-{s[0:4]}-{s[4:8]}-{s[8:12]}"


def document(p: int, per_package: int) -> tuple[str, str]:
    name = f"pkg-{p:05d}"
    out = [f"schema-version: 2.0.2\n\npackage:\n  name: {name}\n\nadvisories:\n"]
    for i in range(per_package):
        n = p * per_package + i
        out.append(
            f"  - id: {cga(n * 7919 + 13)}\n    aliases:\n      - CVE-20{20 + n % 5}-{10000 + n}\n"
            "    events:\n"
            f"      - timestamp: 2024-0{1 + n % 9}-1{n % 10}T0{n % 10}:00:00Z\n        type: detection\n"
            "        data:\n          type: scan/v1\n          data:\n"
            f"            subpackageName: {name}\n            componentID: {n:016x}\n"
            f"            componentName: github.com/example/mod{n % 500}\n            componentVersion: v1.{n % 30}.0\n"
            "            componentType: go-module\n"
            f"            componentLocation: /usr/bin/{name}\n            scanner: grype\n"
        )
        kind = n % 3
        if kind == 0:
            out.append(
                "      - timestamp: 2024-10-01T00:00:00Z\n        type: fixed\n        data:\n"
                f"          fixed-version: 1.{n % 30}.1-r0\n"
            )
        elif kind == 1:
            out.append(
                "      - timestamp: 2024-10-01T00:00:00Z\n        type: false-positive-determination\n"
                "        data:\n          type: vulnerable-code-not-in-execution-path\n"
                "          note: The vulnerable function is never called.\n"
            )
        else:
            out.append(
                "      - timestamp: 2024-10-01T00:00:00Z\n        type: true-positive-determination\n"
                "        data:\n          note: Reachable.\n"
                "      - timestamp: 2024-10-02T00:00:00Z\n        type: pending-upstream-fix\n"
                "        data:\n          note: Waiting for upstream.\n"
            )
    return name, "".join(out)


def generate(directory: Path, packages: int, per_package: int) -> list[str]:
    marker = directory / f".generated-{packages}x{per_package}"
    names = [f"pkg-{p:05d}" for p in range(packages)]
    if marker.exists():
        return names
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True)
    for p in range(packages):
        name, text = document(p, per_package)
        (directory / f"{name}.advisories.yaml").write_text(text)
    marker.write_text("")
    return names


def child_cpu() -> float:
    """User + system CPU seconds of finished child processes (the import's own work, whatever else the
    machine runs meanwhile)."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_backend(backend: str, args: argparse.Namespace, docs: Path, names: list[str], stamp: str) -> dict[str, Any]:
    log(f"\n== {backend}")
    with contextlib.ExitStack() as stack:
        url = stack.enter_context(
            scratch_database(backend, RESULTS / f"advisories-{stamp}.db", "pa_bench_adv_", PG_URL)
        )
        boot = json.loads(cli(url, "bootstrap"))
        org, owner = boot["organization"], boot["identity"]
        total = len(names) * args.per_package

        t, cpu = time.perf_counter(), child_cpu()
        summary = cli_json(url, "import", "advisories", str(docs), "--group", org)
        import_s, import_cpu = time.perf_counter() - t, child_cpu() - cpu
        assert summary["created"] == total, summary
        log(
            f"  import: {import_s:.1f} s ({import_cpu:.1f} s CPU of the import process), {len(names) / import_s:,.0f}"
            f" docs/s, {total / import_s:,.0f} advisories/s"
        )
        t = time.perf_counter()
        again = cli_json(url, "import", "advisories", str(docs), "--group", org)
        reimport_s = time.perf_counter() - t
        assert again["unchanged"] == total and again["created"] == again["updated"] == 0, again
        log(f"  re-import (all unchanged): {reimport_s:.1f} s")
        if backend == "postgres":
            # What autovacuum does soon after a bulk load (statistics, visibility map for index-only counts).
            pg("VACUUM ANALYZE", url)

        server = serve(url, RESULTS / f"server-advisories-{backend}-{stamp}.log", cpu="0",
                       env={"PLATFORM_API_LOG_LEVEL": "warning"})  # fmt: skip
        stack.callback(server.stop)
        base = server.url
        # A token as `platform-api token` mints it once the server has recorded its issuer.
        bearer = token(url, owner)
        rng = random.Random(7)
        pages: list[float] = []
        first_pages: list[float] = []
        subtree_pages: list[float] = []
        with httpx.Client(base_url=base, headers={"authorization": f"Bearer {bearer}"}, timeout=30) as c:
            for _ in range(20):  # warm-up
                c.get("/vulnerabilities/v2/advisories", params={"artifact_names": rng.sample(names, args.names)})
            for _ in range(args.samples):
                chosen = rng.sample(names, args.names)
                params: dict[str, Any] = {"artifact_names": chosen, "page_size": args.page_size}
                seen = 0
                while True:
                    t = time.perf_counter()
                    r = c.get("/vulnerabilities/v2/advisories", params=params)
                    pages.append((time.perf_counter() - t) * 1000)
                    assert r.status_code == 200, r.text
                    body = r.json()
                    assert body["totalCount"] == str(args.names * args.per_package), body.get("totalCount")
                    seen += len(body["advisories"])
                    if not body.get("nextPageToken"):
                        break
                    params["page_token"] = body["nextPageToken"]
                assert seen == args.names * args.per_package, seen
            for _ in range(50):
                t = time.perf_counter()
                r = c.get("/vulnerabilities/v2/advisories", params={"page_size": args.page_size})
                first_pages.append((time.perf_counter() - t) * 1000)
                assert r.status_code == 200 and r.json()["totalCount"] == str(total), r.text[:200]
            for _ in range(50):
                t = time.perf_counter()
                r = c.get(
                    "/vulnerabilities/v2/advisories", params={"uidp.descendants_of": org, "page_size": args.page_size}
                )
                subtree_pages.append((time.perf_counter() - t) * 1000)
                assert r.status_code == 200 and r.json()["totalCount"] == str(total), r.text[:200]
        result = {
            "backend": backend, "documents": len(names), "advisories": total,
            "import_seconds": round(import_s, 2),
            "import_cpu_seconds": round(import_cpu, 2), "docs_per_second": round(len(names) / import_s, 1),
            "advisories_per_second": round(total / import_s, 1), "reimport_seconds": round(reimport_s, 2),
            "list_pages": len(pages), "list_names_per_request": args.names, "page_size": args.page_size,
            "list_page_ms": {"p50": round(statistics.median(pages), 2), "p90": round(pct(pages, 0.9), 2),
                             "p99": round(pct(pages, 0.99), 2)},
            "subtree_first_page_ms": {"p50": round(statistics.median(subtree_pages), 2),
                                      "p99": round(pct(subtree_pages, 0.99), 2)},
            "unfiltered_first_page_ms": {"p50": round(statistics.median(first_pages), 2),
                                         "p99": round(pct(first_pages, 0.99), 2)},
        }  # fmt: skip
        log(f"  ListAdvisories artifactNames x{args.names}, page_size {args.page_size}: {result['list_page_ms']}")
        return result


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_backend_options(p, pg_url=False)
    p.add_argument("--packages", type=int, default=20_000)
    p.add_argument("--per-package", type=int, default=10)
    p.add_argument("--names", type=int, default=10, help="artifactNames per List request")
    p.add_argument("--page-size", type=int, default=20)
    p.add_argument("--samples", type=int, default=300, help="name sets walked")
    args = p.parse_args()
    results_dir()
    stamp = time.strftime("%Y%m%d-%H%M%S")
    docs = RESULTS / "advisory-docs"
    t = time.perf_counter()
    names = generate(docs, args.packages, args.per_package)
    log(f"documents: {len(names):,} x {args.per_package} advisories in {docs} ({time.perf_counter() - t:.1f} s)")
    results = [run_backend(b, args, docs, names, stamp) for b in backends(args)]
    print(f"\n{'backend':<10} {'docs/s':>8} {'adv/s':>8} {'import s':>9} {'reimport s':>10} "
          f"{'page p50':>9} {'p90':>7} {'p99':>7} {'subtree p50':>12} {'no-filter p50':>14}")  # fmt: skip
    for r in results:
        lp = r["list_page_ms"]
        print(f"{r['backend']:<10} {r['docs_per_second']:>8,.0f} {r['advisories_per_second']:>8,.0f} "
              f"{r['import_seconds']:>9.1f} {r['reimport_seconds']:>10.1f} {lp['p50']:>7.2f}ms {lp['p90']:>5.2f}ms "
              f"{lp['p99']:>5.2f}ms {r['subtree_first_page_ms']['p50']:>10.2f}ms"
              f" {r['unfiltered_first_page_ms']['p50']:>12.2f}ms")  # fmt: skip
    out = write_json(RESULTS / f"advisories-{stamp}.json", {"args": vars(args), "results": results})
    log(f"wrote {out}")


if __name__ == "__main__":
    main()
