"""v1 registry lists at their cap: ListRepos of 10,000 repos and ListTags of a repo with 100,000 tags, over HTTP
and gRPC, on SQLite and PostgreSQL.

    python bench/v1_registry.py --backend sqlite|postgres|both [--samples 20]

Loads a fresh database through the store layer (bench/load.py's organization and owner, 9,999 repos, and
one repo "big" holding 100,000 tags as rows the service writes; every 20th tag points at a second digest), serves
it with `platform-api serve` and times sequential requests on one keep-alive connection / one channel:

- ListRepos `uidp.childrenOf=<org>`: exactly v1.MAX_ITEMS (10,000) repos, the largest answer v1 gives;
- ListTags `uidp.childrenOf=<big>`: 100,000 tags match, past the cap: RESOURCE_EXHAUSTED TOO_MANY_ITEMS (HTTP
  413), found from the first v2 page's count; the refusal's latency;
- ListTags `uidp.childrenOf=<big>&digest=<second>`: a filtered list that fits (5,000 tags).

Prints p50/p90 per row, writes bench/results/v1-registry-<time>.json. Not a test: nothing asserts timings.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import secrets
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc
import httpx

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(BENCH.parent))

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
from load import insert_rows, settle  # noqa: E402

from platform_api.auth import capabilities  # noqa: E402
from platform_api.core import clock, uidp  # noqa: E402
from platform_api.gen.chainguard.platform.common import uidp_pb2  # noqa: E402
from platform_api.gen.chainguard.platform.registry.v1 import registry_pb2, registry_pb2_grpc  # noqa: E402
from platform_api.gen.records.iam_v2 import Group, Identity  # noqa: E402
from platform_api.gen.records.registry_v2 import Repo, Tag  # noqa: E402
from platform_api.iam import identities, queries, roles  # noqa: E402
from platform_api.service import v1  # noqa: E402
from platform_api.store import db as store  # noqa: E402
from platform_api.store import rows  # noqa: E402
from platform_api.store.migrate import migrate  # noqa: E402
from tests.helpers import BearerInterceptor  # noqa: E402

BATCH = 20_000
EVERY = 20  # every EVERY-th tag points at the second digest: the filtered list that fits
REPO_COLUMNS = ["uid", "parent", "name", "create_time", "update_time", "body"]
TAG_COLUMNS = ["uid", "parent", "name", "digest", "kind", "create_time", "update_time", "body"]


async def load_registry(url: str, repos: int, tags: int) -> dict[str, Any]:
    """An organization and an owner bound to it (as bench/load.py's), `repos` repos under the organization,
    the last one "big" with `tags` tags, written through the store's `executemany`."""
    t0 = time.perf_counter()
    database = await store.connect(url)
    try:
        await migrate(database)
        now = clock.now()
        org, owner = uidp.new_root(), uidp.new_root()
        g = Group(uid=org, name="bench-org", create_time=now, update_time=now)
        await insert_rows(database, "groups", REPO_COLUMNS, [(org, "", g.name, now, now, rows.body(g))])
        await roles.seed_builtin(database)
        who = Identity(uid=owner, name="bench-owner", create_time=now, update_time=now, last_seen_time=now)
        async with database.transaction() as tx:
            await identities.insert(tx, who, "")
            await queries.insert_role_binding(tx, org, owner, capabilities.OWNER.uid, now)
        made = [Repo(uid=uidp.new_child(org), name=f"repo-{i:06d}", description=f"benchmark repository {i}",
                     create_time=now, update_time=now) for i in range(repos - 1)]  # fmt: skip
        repo = Repo(uid=uidp.new_child(org), name="big", create_time=now, update_time=now)
        made.append(repo)
        for i in range(0, len(made), BATCH):
            await insert_rows(database, "repos", REPO_COLUMNS,
                          [(r.uid, org, r.name, now, now, rows.body(r)) for r in made[i : i + BATCH]])  # fmt: skip
        one, two = "sha256:" + secrets.token_hex(32), "sha256:" + secrets.token_hex(32)
        batch: list[tuple[Any, ...]] = []
        for i in range(tags):
            digest = two if i % EVERY == 0 else one
            tag = Tag(uid=uidp.new_child(repo.uid), name=f"v{i:07d}", digest=digest, create_time=now, update_time=now)
            batch.append((tag.uid, repo.uid, tag.name, tag.digest, 0, now, now, rows.body(tag)))
            if len(batch) == BATCH or i == tags - 1:
                await insert_rows(database, "tags", TAG_COLUMNS, batch)
                batch = []
        await settle(database)
    finally:
        await database.close()
    return {"owner": owner, "org": org, "repo": repo.uid, "second": two, "seconds": time.perf_counter() - t0}


def timed(call: Callable[[], Any], samples: int) -> tuple[dict[str, float], Any]:
    """p50/p90/max in ms of `samples` calls after 2 warm-ups; and the last call's outcome."""
    for _ in range(2):
        call()
    ms, last = [], None
    for _ in range(samples):
        t = time.perf_counter()
        last = call()
        ms.append((time.perf_counter() - t) * 1000)
    return {"p50_ms": round(pct(ms, 0.5), 1), "p90_ms": round(pct(ms, 0.9), 1), "max_ms": round(max(ms), 1)}, last


def http_call(client: httpx.Client, path: str, params: dict[str, Any]) -> Callable[[], Any]:
    def call() -> Any:
        r = client.get(path, params=params)
        if r.status_code != 200:
            body = r.json()
            return f"{r.status_code} {body['details'][0]['reason']}"
        return len(r.json().get("items", []))

    return call


def grpc_call(method: Any, request: Any) -> Callable[[], Any]:
    def call() -> Any:
        try:
            return len(method(request, timeout=120).items)
        except grpc.RpcError as e:
            return f"{e.code().name} {e.details()[:60]}"

    return call


def run_backend(backend: str, args: argparse.Namespace, stamp: str) -> dict[str, Any]:
    log(f"\n== {backend}")
    with contextlib.ExitStack() as stack:
        url = stack.enter_context(scratch_database(backend, RESULTS / f"v1-registry-{stamp}.db", "pa_v1reg_"))
        ds = asyncio.run(load_registry(url, args.repos, args.tags))
        log(f"  loaded {args.repos:,} repos and {args.tags:,} tags in {ds['seconds']:.1f} s")
        server = serve(url, RESULTS / f"server-v1-registry-{backend}-{stamp}.log", "--no-dispatcher", cpu="0")
        stack.callback(server.stop)
        bearer = token(url, ds["owner"])
        client = stack.enter_context(
            httpx.Client(base_url=server.url, headers={"authorization": f"Bearer {bearer}"}, timeout=120)
        )
        channel = grpc.intercept_channel(
            grpc.insecure_channel(
                f"127.0.0.1:{server.grpc_port}", options=[("grpc.max_receive_message_length", 64 << 20)]
            ),
            BearerInterceptor(bearer),
        )
        stack.callback(channel.close)
        stub = registry_pb2_grpc.RegistryStub(channel)
        repo_filter = registry_pb2.RepoFilter(uidp=uidp_pb2.UIDPFilter(children_of=ds["org"]))
        tags_of = uidp_pb2.UIDPFilter(children_of=ds["repo"])
        rows_: dict[str, tuple[Callable[[], Any], int]] = {
            "http ListRepos (10,000)": (
                http_call(client, "/registry/v1/repos", {"uidp.childrenOf": ds["org"]}), args.samples),
            "grpc ListRepos (10,000)": (grpc_call(stub.ListRepos, repo_filter), args.samples),
            "http ListTags (100,000: refused)": (
                http_call(client, "/registry/v1/tags", {"uidp.childrenOf": ds["repo"]}), args.samples * 5),
            "grpc ListTags (100,000: refused)": (
                grpc_call(stub.ListTags, registry_pb2.TagFilter(uidp=tags_of)), args.samples * 5),
            "http ListTags digest (5,000)": (
                http_call(client, "/registry/v1/tags", {"uidp.childrenOf": ds["repo"], "digest": ds["second"]}),
                args.samples),
            "grpc ListTags digest (5,000)": (
                grpc_call(stub.ListTags, registry_pb2.TagFilter(uidp=tags_of, digest=ds["second"])), args.samples),
        }  # fmt: skip
        results: dict[str, Any] = {}
        for name, (call, samples) in rows_.items():
            stats, outcome = timed(call, samples)
            results[name] = {**stats, "samples": samples, "answer": outcome}
            log(f"  {name:<34} {stats}  answer: {outcome}")
        return {"backend": backend, "repos": args.repos, "tags": args.tags, "cap": v1.MAX_ITEMS, **results}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_backend_options(parser, pg_url=False)
    parser.add_argument("--repos", type=int, default=v1.MAX_ITEMS)
    parser.add_argument("--tags", type=int, default=100_000)
    parser.add_argument("--samples", type=int, default=20)
    args = parser.parse_args()
    results_dir()
    stamp = time.strftime("%Y%m%d-%H%M%S")
    out = [run_backend(b, args, stamp) for b in backends(args)]
    print(f"\n{'backend':<10} {'request':<34} {'p50 ms':>8} {'p90 ms':>8} {'max ms':>8}  answer")
    for r in out:
        for name, m in r.items():
            if isinstance(m, dict):
                stats = f"{m['p50_ms']:>8} {m['p90_ms']:>8} {m['max_ms']:>8}"
                print(f"{r['backend']:<10} {name:<34} {stats}  {m['answer']}")
    path = write_json(RESULTS / f"v1-registry-{stamp}.json", out)
    print(f"\nwrote {path}")


if __name__ == "__main__":
    main()
