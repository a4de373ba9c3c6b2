"""The public advisory routes and the advisory importer under the issue-16 probes (bounded work).

    python bench/public_advisory.py [--backend sqlite|postgres|both] [--cases cpe,yaml,metadata,documents]

Cases (each prints its figures and goes into bench/results/public-advisory-<time>.json):

- cpe: `platform-api import advisories` of one document whose nvdapi `cpeSearched` is 100 characters of
  `a\\:` (escaped colons, never the 11 components a CPE 2.3 string has): CPU seconds of the import process
  (it is refused either way; before RE2 the refusal took exponential time). Killed after `--cpe-timeout`.
- yaml: `import advisories` of one document at the document size cap in the worst YAML shapes (many tiny
  flow mappings, one long flow sequence, deep nesting): peak RSS and CPU seconds of the import process.
- metadata: one OSV record with 1,000 aliases and 1 MiB of details; an anonymous GET naming 600 of its
  aliases (a ~13 KB URL, page_size 200), and the same request over gRPC: bytes answered and time, single
  client. Then every page is walked to the end (entries, bytes, duplicates).
- documents: a feed of 500 documents x 50 advisories (advisory i of every document aliases CVE-2099-<i>, and
  each advisory a CVE of its own): `GET /advisory/v2/documents?cves=<one shared CVE>` (500 documents, one
  advisory each) and `?cves=<one CVE of its own>` (one document): p50/p99 of one client alone, then of 4
  concurrent client loops with `/ping` latency from a fifth loop meanwhile. The server is pinned to CPU 0
  when taskset exists.

Servers run with the anonymous rate limit off (bench/common.serve): one client loads them.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from pathlib import Path
from typing import Any

import grpc
import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import (
    PG_ADMIN_URL,
    RESULTS,
    ROOT,
    add_backend_options,
    backends,
    cli,
    command,
    log,
    pct,
    pg,
    results_dir,
    scratch_database,
    serve,
    write_json,
)

from platform_api.gen.chainguard.platform.advisory.v2 import advisory_pb2, advisory_pb2_grpc

CASES = ("cpe", "yaml", "metadata", "documents")
ALPHABET = "23456789cfghjmpqrvwx"
QUIET = {"PLATFORM_API_LOG_LEVEL": "warning"}


def cga(n: int) -> str:
    digits = []
    for _ in range(12):
        n, r = divmod(n, len(ALPHABET))
        digits.append(ALPHABET[r])
    s = "".join(digits)
    return f"CGA-{s[0:4]}-{s[4:8]}-{s[8:12]}"


def run_import(database: str, folder: Path, group: str, timeout: float) -> dict[str, Any]:
    """CPU seconds, peak RSS and outcome of `platform-api import advisories folder` (that process alone, by
    wait4), killed after `timeout` seconds."""
    argv = [*command(), "import", "advisories", str(folder), "--group", group, "--database", database]
    with tempfile.TemporaryFile() as err:
        t = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=err, cwd=ROOT)
        timer = threading.Timer(timeout, proc.kill)
        timer.start()
        _, status, usage = os.wait4(proc.pid, 0)
        timer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - t
        err.seek(0)
        lines = err.read().decode(errors="replace").strip().splitlines()
    return {"cpu_s": round(usage.ru_utime + usage.ru_stime, 2), "wall_s": round(wall, 2),
            "peak_rss_mib": round(usage.ru_maxrss / 1024, 1), "exit": proc.returncode,
            "output": (lines[-1] if lines else "")[:160]}  # fmt: skip


# ---------------------------------------------------------------- cpe


def cpe_case(database: str, group: str, args: argparse.Namespace) -> dict[str, Any]:
    folder = RESULTS / "public-advisory-cpe"
    folder.mkdir(parents=True, exist_ok=True)
    cpe = ("cpe:2.3:" + "a\\:" * 40)[:99] + " "  # 100 characters; the space makes every split fail
    doc = (
        "schema-version: 2.0.2\npackage:\n  name: cpe-probe\nadvisories:\n  - id: CGA-2222-2222-2222\n    events:\n"
        "      - timestamp: 2024-01-01T00:00:00Z\n        type: detection\n        data:\n          type: nvdapi\n"
        f"          data:\n            cpeSearched: '{cpe}'\n"
        "            cpeFound: 'cpe:2.3:a:b:c:*:*:*:*:*:*:*:*'\n"
    )
    (folder / "cpe-probe.advisories.yaml").write_text(doc)
    row = {"case": "cpeSearched of 100 characters", **run_import(database, folder, group, args.cpe_timeout)}
    log(f"  cpe: {row}")
    return row


# ---------------------------------------------------------------- yaml


def yaml_shapes(size: int) -> dict[str, str]:
    """Documents of `size` bytes that make a YAML composer build the most nodes per byte."""
    head = "schema-version: 2.0.2\npackage:\n  name: yaml-probe\nadvisories:\n"
    room = size - len(head) - 8
    depth = room // 2
    return {
        "many tiny mappings": head + "  - [" + "{}," * (room // 3 - 1) + "{}]\n",
        "one long flow sequence": head + "  - [" + "a," * (room // 2 - 1) + "a]\n",
        "block sequence of empty mappings": head + "  - {}\n" * (room // 7),
        "deep nesting": head + "  - " + "[" * depth + "]" * depth + "\n",
    }


def yaml_case(database: str, group: str, args: argparse.Namespace) -> list[dict[str, Any]]:
    from platform_api.formats import advisory_yaml

    rows = []
    for name, text in yaml_shapes(min(advisory_yaml.MAX_DOCUMENT, 8 << 20) - 1).items():
        folder = RESULTS / f"public-advisory-yaml-{name.replace(' ', '-')}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "yaml-probe.advisories.yaml").write_text(text)
        row = {"case": name, "bytes": len(text), **run_import(database, folder, group, args.cpe_timeout)}
        log(f"  yaml {name}: {row}")
        rows.append(row)
    return rows


# ---------------------------------------------------------------- metadata


def metadata_record() -> tuple[dict[str, Any], list[str]]:
    aliases = [f"CVE-2099-{100000 + i}" for i in range(1000)]
    rec = {"id": "GHSA-2222-3333-4444", "modified": "2024-01-01T00:00:00Z", "aliases": aliases,
           "summary": "one record, many aliases", "details": "x" * (1 << 20)}  # fmt: skip
    return rec, aliases


def metadata_case(database: str, server: Any, args: argparse.Namespace) -> dict[str, Any]:
    rec, aliases = metadata_record()
    archive = RESULTS / "public-advisory-osv.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_STORED) as z:  # 1 MiB of one letter inflates 1000x
        z.writestr(f"{rec['id']}.json", json.dumps(rec))
    cli(database, "import", "osv", str(archive))
    asked = aliases[:600]
    url = "/advisory/v2/metadata?page_size=200&" + "&".join(f"ids={a}" for a in asked)
    out: dict[str, Any] = {"url_bytes": len(url), "ids_asked": len(asked)}
    with httpx.Client(base_url=server.url, timeout=600) as c:
        t = time.perf_counter()
        r = c.get(url)
        out["http_first_page"] = {"status": r.status_code, "bytes": len(r.content),
                                  "seconds": round(time.perf_counter() - t, 3),
                                  "entries": len(r.json().get("vulnerabilityMetadata", []))}  # fmt: skip
        # Every page to the end: entries, bytes, duplicates.
        token, pages, entries, total_bytes, seen = "", 0, 0, 0, set()
        duplicates = 0
        while pages < 100:
            r = c.get(url + (f"&page_token={token}" if token else ""))
            body = r.json()
            pages += 1
            total_bytes += len(r.content)
            for m in body.get("vulnerabilityMetadata", []):
                entries += 1
                key = (m.get("summary"), len(m.get("details", "")))
                duplicates += key in seen
                seen.add(key)
            token = body.get("nextPageToken", "")
            if not token:
                break
        out["http_all_pages"] = {"pages": pages, "entries": entries, "bytes": total_bytes,
                                 "duplicate_records": duplicates}  # fmt: skip
    channel = grpc.insecure_channel(f"127.0.0.1:{server.grpc_port}", options=[("grpc.max_receive_message_length", -1)])
    stub = advisory_pb2_grpc.SecurityAdvisoryServiceStub(channel)
    t = time.perf_counter()
    resp = stub.ListVulnerabilityMetadata(advisory_pb2.ListVulnerabilityMetadataRequest(ids=asked, page_size=200),
                                          timeout=600)  # fmt: skip
    out["grpc_first_page"] = {"bytes": resp.ByteSize(), "seconds": round(time.perf_counter() - t, 3),
                              "entries": len(resp.vulnerability_metadata)}  # fmt: skip
    channel.close()
    log(f"  metadata: {out}")
    return out


# ---------------------------------------------------------------- documents


def feed(folder: Path, documents: int, per_document: int) -> None:
    marker = folder / f".generated-{documents}x{per_document}"
    if marker.exists():
        return
    folder.mkdir(parents=True, exist_ok=True)
    for d in range(documents):
        name = f"feed-{d:04d}"
        out = [f"schema-version: 2.0.2\npackage:\n  name: {name}\nadvisories:\n"]
        for i in range(per_document):
            n = d * per_document + i
            out.append(
                f"  - id: {cga(n * 7919 + 13)}\n    aliases: [CVE-2099-{i:05d}, CVE-2098-{n:06d}]\n    events:\n"
                f"      - timestamp: 2024-01-0{1 + n % 9}T00:00:00Z\n        type: detection\n        data:\n"
                "          type: scan/v1\n          data:\n"
                f"            subpackageName: {name}\n            componentID: {n:016x}\n"
                f"            componentName: github.com/example/mod{n % 500}\n"
                f"            componentVersion: v1.{n % 30}.0\n            componentType: go-module\n"
                f"            componentLocation: /usr/bin/{name}\n            scanner: grype\n"
                "      - timestamp: 2024-02-01T00:00:00Z\n        type: fixed\n        data:\n"
                f"          fixed-version: 1.{n % 30}.1-r0\n"
            )
        (folder / f"{name}.advisories.yaml").write_text("".join(out))
    marker.write_text("")


def loops(
    base: str, paths: list[str], seconds: float, clients: int, ping: bool = True
) -> tuple[list[float], list[float], int]:
    """`clients` loops over `paths` (and with `ping`, one /ping loop) for `seconds`: (request ms, ping ms,
    errors)."""
    stop = time.monotonic() + seconds
    times: list[float] = []
    pings: list[float] = []
    errors = [0]

    def run(ps: list[str], into: list[float]) -> None:
        with httpx.Client(base_url=base, timeout=60) as c:
            i = 0
            while time.monotonic() < stop:
                t = time.perf_counter()
                r = c.get(ps[i % len(ps)])
                into.append((time.perf_counter() - t) * 1000)
                errors[0] += r.status_code != 200
                i += 1

    threads = [threading.Thread(target=run, args=(paths[k::clients] or paths, times)) for k in range(clients)]
    if ping:
        threads.append(threading.Thread(target=run, args=(["/ping/v2/ping"], pings)))
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    return times, pings, errors[0]


def summary(values: list[float]) -> dict[str, float]:
    return {"n": len(values), "p50_ms": round(statistics.median(values), 2), "p99_ms": round(pct(values, 0.99), 2)}


def documents_case(server: Any, args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {}
    with httpx.Client(base_url=server.url, timeout=60) as c:
        shared = c.get("/advisory/v2/documents", params={"cves": "CVE-2099-00007"}).json()
        assert len(shared["documents"]) == args.documents, len(shared["documents"])
        assert all(len(d["advisories"]) == 1 for d in shared["documents"])
        one = c.get("/advisory/v2/documents", params={"cves": "CVE-2098-000007"}).json()
        assert len(one["documents"]) == 1 and len(one["documents"][0]["advisories"]) == 1, one
    for label, paths in (
        ("shared CVE (500 documents x 1 advisory)",
         [f"/advisory/v2/documents?cves=CVE-2099-{i % args.per_document:05d}" for i in range(64)]),
        ("own CVE (1 document x 1 advisory)",
         [f"/advisory/v2/documents?cves=CVE-2098-{(i * 97) % (args.documents * args.per_document):06d}"
          for i in range(64)]),
    ):  # fmt: skip
        alone, _, errors_alone = loops(server.url, paths, args.seconds, 1, ping=False)
        times, pings, errors = loops(server.url, paths, args.seconds, 4)
        out[label] = {"single_client": summary(alone), "four_loops": summary(times), "ping_meanwhile": summary(pings),
                      "errors": errors + errors_alone}  # fmt: skip
        log(f"  documents {label}: {out[label]}")
    return out


# ---------------------------------------------------------------- main


def run_backend(backend: str, args: argparse.Namespace, cases: list[str], stamp: str) -> dict[str, Any]:
    log(f"[{backend}]")
    result: dict[str, Any] = {"backend": backend}
    with contextlib.ExitStack() as stack:
        database = stack.enter_context(
            scratch_database(backend, RESULTS / f"public-advisory-{stamp}.db", "pa_bench_pub_", args.pg_url)
        )
        group = json.loads(cli(database, "bootstrap"))["organization"]
        if "cpe" in cases:
            result["cpe"] = cpe_case(database, group, args)
        if "yaml" in cases:
            result["yaml"] = yaml_case(database, group, args)
        if "documents" in cases:
            folder = RESULTS / "public-advisory-feed"
            feed(folder, args.documents, args.per_document)
            cli(database, "import", "advisories", str(folder), "--group", group)
            if backend == "postgres":  # what autovacuum does soon after a bulk load (as bench/advisories.py)
                pg("VACUUM ANALYZE", database)
        if "metadata" in cases or "documents" in cases:
            server = serve(database, RESULTS / f"public-advisory-{backend}-{stamp}.log", cpu="0", env=QUIET)
            stack.callback(server.stop)
            if "metadata" in cases:
                result["metadata"] = metadata_case(database, server, args)
            if "documents" in cases:
                result["documents"] = documents_case(server, args)
    return result


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_backend_options(p)
    p.add_argument("--cases", default=",".join(CASES), help="comma-separated: " + ", ".join(CASES))
    p.add_argument("--cpe-timeout", type=float, default=600, help="seconds before an import is killed")
    p.add_argument("--documents", type=int, default=500)
    p.add_argument("--per-document", type=int, default=50)
    p.add_argument("--seconds", type=float, default=10, help="duration of each concurrent-loop run")
    args = p.parse_args()
    args.pg_url = getattr(args, "pg_url", PG_ADMIN_URL)
    cases = [c for c in args.cases.split(",") if c]
    unknown = set(cases) - set(CASES)
    if unknown:
        p.error(f"unknown cases: {', '.join(sorted(unknown))}")
    results_dir()
    stamp = time.strftime("%Y%m%d-%H%M%S")
    results = []
    for backend in backends(args):
        # The import cases do not depend on the backend: run them once, on the first.
        todo = cases if not results else [c for c in cases if c in ("metadata", "documents")]
        results.append(run_backend(backend, args, todo, stamp))
    path = write_json(RESULTS / f"public-advisory-{stamp}.json", {"results": results})
    print(json.dumps(results, indent=2))
    log(f"written {path}")


if __name__ == "__main__":
    main()
