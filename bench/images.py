"""Registry images benchmark: one repo with 1,000,000 tags, ListTags pages reached by page token, GetSize.

    python bench/images.py --backend sqlite|postgres|both [--tags 1000000] [--samples 200]

Loads a fresh database through the store layer (bench/load.py's organization and owner, one repo, the
tags as rows the service writes, one image index with two platform manifests through registry.images),
serves it with `platform-api serve`, walks every page of ListTags (pageSize 200) once to collect page
tokens, then times `samples` requests each of the first, the middle and the last page (pageSize 100,
reached by token) and of GetSize. Sequential requests on one keep-alive connection (latency, not
throughput). Target: p99 <= 50 ms for any page. Prints a table, writes bench/results/images-<time>.json.
Not a test: nothing asserts timings.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import secrets
import sys
import time
from pathlib import Path
from typing import Any

import httpx

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

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
from load import insert_rows, load, settle  # noqa: E402

from platform_api.core import clock, uidp  # noqa: E402
from platform_api.gen.records.registry_v2 import Repo, Tag  # noqa: E402
from platform_api.registry import images, oci  # noqa: E402
from platform_api.store import db as store  # noqa: E402
from platform_api.store import rows  # noqa: E402

TARGET_PAGE_P99_MS = 50.0
BATCH = 20_000
TAG_COLUMNS = ["uid", "parent", "name", "digest", "kind", "create_time", "update_time", "body"]


async def load_images(url: str, tags: int) -> dict[str, Any]:
    t0 = time.perf_counter()
    ds = await load(url, repos=0, groups=0)
    database = await store.connect(url)
    try:
        now = clock.now()
        repo = Repo(uid=uidp.new_child(ds.org), name="big", create_time=now, update_time=now)
        await insert_rows(database, "repos", ["uid", "parent", "name", "create_time", "update_time", "body"],
                      [(repo.uid, ds.org, repo.name, now, now, rows.body(repo))])  # fmt: skip
        manifests = [
            oci.Image(digest="sha256:" + secrets.token_hex(32), media_type=oci.OCI_MANIFEST, is_index=False,
                      size=1000 + i, os="linux", architecture=a, layers=[1000 + i])
            for i, a in enumerate(("amd64", "arm64"))
        ]  # fmt: skip
        children = [{"digest": m.digest, "mediaType": m.media_type, "size": 500, "os": "linux",
                     "architecture": m.architecture} for m in manifests]  # fmt: skip
        index = oci.Image(digest="sha256:" + secrets.token_hex(32), media_type=oci.OCI_INDEX, is_index=True,
                          children=children)  # fmt: skip
        async with database.transaction() as tx:
            for image in [*manifests, index]:
                await images.put(tx, repo.uid, image)
        batch: list[tuple[Any, ...]] = []
        for i in range(tags):
            tag = Tag(
                uid=uidp.new_child(repo.uid), name=f"v{i:07d}", digest=index.digest, create_time=now, update_time=now
            )
            batch.append((tag.uid, repo.uid, tag.name, tag.digest, 0, now, now, rows.body(tag)))
            if len(batch) == BATCH or i == tags - 1:
                await insert_rows(database, "tags", TAG_COLUMNS, batch)
                batch = []
                sys.stderr.write(f"\r  loading tags: {i + 1:>8}/{tags}")
        sys.stderr.write("\n")
        await settle(database)
    finally:
        await database.close()
    return {"owner": ds.owner, "repo": repo.uid, "index": index.digest, "seconds": time.perf_counter() - t0}


def timed(client: httpx.Client, path: str, params: dict[str, Any], samples: int) -> dict[str, float]:
    for _ in range(5):
        client.get(path, params=params).raise_for_status()
    ms = []
    for _ in range(samples):
        t = time.perf_counter()
        r = client.get(path, params=params)
        ms.append((time.perf_counter() - t) * 1000)
        r.raise_for_status()
    return {"p50_ms": round(pct(ms, 0.5), 2), "p99_ms": round(pct(ms, 0.99), 2), "max_ms": round(max(ms), 2)}


def run_backend(backend: str, args: argparse.Namespace, stamp: str) -> dict[str, Any]:
    log(f"\n== {backend}")
    with contextlib.ExitStack() as stack:
        url = stack.enter_context(scratch_database(backend, RESULTS / f"images-{stamp}.db", "pa_images_"))
        ds = asyncio.run(load_images(url, args.tags))
        log(f"  loaded {args.tags:,} tags in {ds['seconds']:.1f} s")
        server = serve(url, RESULTS / f"server-images-{backend}-{stamp}.log", "--no-dispatcher", cpu="0")
        stack.callback(server.stop)
        bearer = token(url, ds["owner"])
        client = httpx.Client(base_url=server.url, headers={"authorization": f"Bearer {bearer}"}, timeout=60)
        base = {"uidp.childrenOf": ds["repo"]}
        t0 = time.perf_counter()
        tokens, page, seen = [""], None, 0
        while True:
            r = client.get("/registry/v2/tags", params=base | {"pageSize": 200, "pageToken": tokens[-1]})
            r.raise_for_status()
            page = r.json()
            seen += len(page.get("tags", []))
            if not page.get("nextPageToken"):
                break
            tokens.append(page["nextPageToken"])
        walk = time.perf_counter() - t0
        assert seen == args.tags, (seen, args.tags)
        log(f"  walked {len(tokens)} pages of 200 in {walk:.1f} s ({1000 * walk / len(tokens):.1f} ms a page)")
        results: dict[str, Any] = {"walk_pages": len(tokens), "walk_ms_per_page": round(1000 * walk / len(tokens), 2)}
        for name, tok in (("first", ""), ("middle", tokens[len(tokens) // 2]), ("last", tokens[-2])):
            results[f"page_{name}"] = timed(client, "/registry/v2/tags", base | {"pageSize": 100, "pageToken": tok},
                                            args.samples)  # fmt: skip
            log(f"  page {name}: {results[f'page_{name}']}")
        size_path = f"/registry/v2/repos/{ds['repo']}/digests/{ds['index']}/size"
        results["get_size"] = timed(client, size_path, {"architecture": "arm64"}, args.samples)
        log(f"  GetSize: {results['get_size']}")
        client.close()
        return {"backend": backend, "tags": args.tags, **results}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_backend_options(parser, pg_url=False)
    parser.add_argument("--tags", type=int, default=1_000_000)
    parser.add_argument("--samples", type=int, default=200)
    args = parser.parse_args()
    results_dir()
    stamp = time.strftime("%Y%m%d-%H%M%S")
    out = [run_backend(b, args, stamp) for b in backends(args)]
    print(
        f"\n{'backend':<10} {'page':<8} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}  (target p99 <= {TARGET_PAGE_P99_MS})"
    )
    for r in out:
        for name in ("page_first", "page_middle", "page_last", "get_size"):
            m = r[name]
            print(f"{r['backend']:<10} {name:<12} {m['p50_ms']:>8} {m['p99_ms']:>8} {m['max_ms']:>8}")
    path = write_json(RESULTS / f"images-{stamp}.json", out)
    print(f"\nwrote {path}")


if __name__ == "__main__":
    main()
