"""Libraries benchmark: `platform-api import libraries` throughput and ArtifactsService latency.

    python bench/libraries.py --backend sqlite|postgres|both [--artifacts 100000] [--versions 3] [--samples 200]

Per backend, on a fresh database:
1. Generates the input in a scratch folder: 80% of `--artifacts` as PEP 691 project pages (one JSON file
   per project, `--versions` versions of one wheel each) and 20% as Maven `maven-metadata.xml` files
   (`--versions` + 1 versions each). Project names are `lib<n>-<word>` with one of 50 words, so a query for
   a word matches 2% of them.
2. Times `platform-api import libraries python <dir>` and `... java <dir>` (parse + one transaction),
   then the same Python import again (everything unchanged: nothing written).
3. Serves the database and measures, with one client over HTTP (single-client latency, the server not
   pinned), p50/p99 of: ListArtifacts with a `query` (first page, then pages reached by token), ListArtifacts
   of everything by name (pages by token), ListArtifactVersions of random artifacts, GetArtifactCount.
Prints a table and writes bench/results/libraries-<time>.json. Never fails on numbers.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import random
import secrets
import shutil
import statistics
import sys
import tempfile
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
    pct,
    results_dir,
    scratch_database,
    serve,
    write_json,
)

WORDS = [f"w{chr(97 + i // 26)}{chr(97 + i % 26)}" for i in range(50)]


def generate(folder: Path, artifacts: int, versions: int) -> tuple[Path, Path, list[str]]:
    """The two input folders and the uids of the artifacts they describe."""
    py, java = folder / "python", folder / "java"
    py.mkdir(parents=True)
    java.mkdir(parents=True)
    uids: list[str] = []
    rng = random.Random(11)
    n_java = artifacts // 5
    for i in range(artifacts - n_java):
        name = f"lib{i:06d}-{WORDS[i % len(WORDS)]}"
        files = []
        for v in range(versions):
            version = f"{v // 3}.{v % 3}.{rng.randrange(20)}"
            files.append({
                "filename": f"{name.replace('-', '_')}-{version}-py3-none-any.whl",
                "url": f"https://files.example/{name}/{version}.whl",
                "hashes": {"sha256": secrets.token_hex(32)},
                "size": rng.randrange(1000, 10_000_000),
                "upload-time": f"20{10 + v:02d}-0{1 + v % 9}-1{v % 10}T12:00:00.000000Z",
            })  # fmt: skip
        page = {"meta": {"api-version": "1.1"}, "name": name, "files": files}
        (py / f"{name}.json").write_text(json.dumps(page))
        uids.append(f"python:{name}")
    for i in range(n_java):
        group, artifact = f"org.bench{i % 100}", f"jlib{i:06d}-{WORDS[i % len(WORDS)]}"
        vs = "".join(f"<version>{1 + v}.{v % 4}{'-rc1' if v == 0 else ''}</version>" for v in range(versions + 1))
        xml = (f"<metadata><groupId>{group}</groupId><artifactId>{artifact}</artifactId><versioning>"
               f"<versions>{vs}</versions><lastUpdated>20240102030405</lastUpdated>"
               "</versioning></metadata>")  # fmt: skip
        d = java / group / artifact
        d.mkdir(parents=True)
        (d / "maven-metadata.xml").write_text(xml)
        uids.append(f"java:{group}:{artifact}")
    return py, java, uids


def timed_import(database: str, ecosystem: str, folder: Path) -> tuple[float, dict[str, Any]]:
    start = time.perf_counter()
    summary = json.loads(cli(database, "import", "libraries", ecosystem, str(folder)))
    return time.perf_counter() - start, summary


def percentiles(samples: list[float]) -> dict[str, float | None]:
    if not samples:  # e.g. no query had a second page (small --artifacts)
        return {"p50_ms": None, "p99_ms": None, "n": 0}
    return {"p50_ms": round(statistics.median(samples) * 1000, 2), "p99_ms": round(pct(samples, 0.99) * 1000, 2),
            "n": len(samples)}  # fmt: skip


def measure(base: str, token: str, uids: list[str], samples: int) -> dict[str, dict[str, float | None]]:
    out: dict[str, dict[str, float | None]] = {}
    rng = random.Random(5)
    with httpx.Client(base_url=base, headers={"authorization": f"Bearer {token}"}, timeout=60) as c:

        def get(path: str, params: dict[str, Any]) -> tuple[float, dict[str, Any]]:
            t = time.perf_counter()
            r = c.get(path, params=params)
            took = time.perf_counter() - t
            if r.status_code != 200:
                sys.exit(f"{path} {params}: {r.status_code} {r.text}")
            return took, r.json()

        both = ["ECOSYSTEM_PYTHON", "ECOSYSTEM_JAVA"]
        for _ in range(20):  # warm-up
            get("/libraries/v2/artifacts", {"ecosystems": both, "query": rng.choice(WORDS)})
        first, by_token = [], []
        while len(first) < samples:
            params = {"ecosystems": both, "query": rng.choice(WORDS), "pageSize": 50}
            took, body = get("/libraries/v2/artifacts", params)
            first.append(took)
            for _ in range(3):
                if not body.get("nextPageToken"):
                    break
                took, body = get("/libraries/v2/artifacts", {**params, "pageToken": body["nextPageToken"]})
                by_token.append(took)
        out["ListArtifacts query, first page (50)"] = percentiles(first)
        out["ListArtifacts query, page by token"] = percentiles(by_token)
        walk: list[float] = []
        params = {"ecosystems": both, "pageSize": 50}
        took, body = get("/libraries/v2/artifacts", params)
        while len(walk) < samples and body.get("nextPageToken"):
            took, body = get("/libraries/v2/artifacts", {**params, "pageToken": body["nextPageToken"]})
            walk.append(took)
        out["ListArtifacts all by name, page by token"] = percentiles(walk)
        py_only = []
        for _ in range(samples):
            took, body = get("/libraries/v2/artifacts", {"ecosystems": "ECOSYSTEM_PYTHON", "query": rng.choice(WORDS)})
            py_only.append(took)
        out["ListArtifacts python + query, first page (50)"] = percentiles(py_only)
        versions = []
        for _ in range(samples):
            took, body = get(f"/libraries/v2/artifacts/{rng.choice(uids)}/versions", {})
            versions.append(took)
        out["ListArtifactVersions"] = percentiles(versions)
        counts = []
        for _ in range(samples):
            took, _ = get("/libraries/v2/artifacts/count", {"ecosystems": both})
            counts.append(took)
        out["GetArtifactCount"] = percentiles(counts)
    return out


def run_backend(backend: str, args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    with contextlib.ExitStack() as stack:
        sqlite_path = RESULTS / f"libraries-{secrets.token_hex(4)}.db"
        database = stack.enter_context(scratch_database(backend, sqlite_path, "pa_bench_", args.pg_url))
        py_s, py_sum = timed_import(database, "python", folder / "python")
        log(f"{backend}: python import {py_s:.1f} s {py_sum}")
        java_s, java_sum = timed_import(database, "java", folder / "java")
        log(f"{backend}: java import {java_s:.1f} s {java_sum}")
        again_s, again_sum = timed_import(database, "python", folder / "python")
        log(f"{backend}: python re-import {again_s:.1f} s {again_sum}")
        server = serve(database, RESULTS / f"libraries-{backend}.log")
        stack.callback(server.stop)
        base = server.url
        token = json.loads(cli(database, "bootstrap"))["token"]
        uids = [*(f"python:{p.stem}" for p in (folder / "python").iterdir())]
        latency = measure(base, token, uids, args.samples)
        records = py_sum["created"] + java_sum["created"]
        return {
            "import_python_s": round(py_s, 2), "import_python": py_sum,
            "import_java_s": round(java_s, 2), "import_java": java_sum,
            "reimport_python_s": round(again_s, 2), "reimport_python": again_sum,
            "records_per_s": round(records / (py_s + java_s)), "latency": latency,
        }  # fmt: skip


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_backend_options(p)
    p.add_argument("--artifacts", type=int, default=100_000)
    p.add_argument("--versions", type=int, default=3)
    p.add_argument("--samples", type=int, default=200)
    args = p.parse_args()
    results_dir()
    folder = Path(tempfile.mkdtemp(prefix="libraries-bench-", dir=RESULTS))
    try:
        t = time.perf_counter()
        generate(folder, args.artifacts, args.versions)
        log(f"generated {args.artifacts} artifacts in {time.perf_counter() - t:.1f} s")
        results = {b: run_backend(b, args, folder) for b in backends(args)}
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    doc = {"artifacts": args.artifacts, "versions": args.versions, "samples": args.samples, "commit": git_commit(),
           "machine": {"nproc": os.cpu_count(), "python": platform.python_version()}, "results": results}  # fmt: skip
    path = write_json(RESULTS / f"libraries-{time.strftime('%Y%m%dT%H%M%S')}.json", doc)
    print(f"\n{args.artifacts} artifacts x ~{args.versions} versions")
    names = list(results)
    print(f"{'':52}" + "".join(f"{b:>22}" for b in names))
    rows = [("import python (s)", "import_python_s"), ("import java (s)", "import_java_s"),
            ("re-import python, unchanged (s)", "reimport_python_s"),
            ("import records/s", "records_per_s")]  # fmt: skip
    for label, key in rows:
        print(f"{label:52}" + "".join(f"{results[b][key]:>22}" for b in names))
    for label in results[names[0]]["latency"]:
        lat = [results[b]["latency"][label] for b in names]
        cells = "".join(f"{x['p50_ms']!s:>10} / {x['p99_ms']!s:>7}" for x in lat)
        print(f"{label + ' p50/p99 ms':52}{cells}")
    print(f"\nwritten: {path}")


if __name__ == "__main__":
    main()
