"""Authorization decision cost, in process (see bench/README.md).

    python bench/authz.py [--groups 5000] [--levels 6] [--bindings 10000] [--identities 1000] [--decisions 100000]

Builds a tree of `groups` groups `levels` deep (one organization), `bindings` role bindings of built-in
roles spread over `identities` root-level identities and random groups, on a fresh SQLite file; then times
decisions through the service's own code path (auth.access.Access.authenticate -> Principal.require):
- warm: the identity's grants are cached (the steady state of a busy service);
- cold: the first decision for an identity after its grants were dropped (it reads its bindings).
Prints p50/p99/max per decision. Target: p99 <= 1 ms. Not a test: nothing asserts timings.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import log, pct

from platform_api.auth import capabilities, keys
from platform_api.auth.access import Access
from platform_api.core import clock, errors, uidp
from platform_api.gen.records.iam_v2 import Group, Identity
from platform_api.iam import identities, queries, roles
from platform_api.store import db as store
from platform_api.store import rows
from platform_api.store.migrate import migrate

TARGET_P99_MS = 1.0


def tree(groups: int, levels: int) -> list[str]:
    """An organization and groups-1 descendants spread over levels-1 levels below it (random parents)."""
    org = uidp.new_root()
    out, parents = [org], [org]
    rest = groups - 1
    for level in range(levels - 1):
        width = rest // (levels - 1 - level)
        nxt = [uidp.new_child(random.choice(parents)) for _ in range(width)]
        out += nxt
        rest -= width
        parents = nxt
    return out


async def main(args: argparse.Namespace) -> None:
    random.seed(args.seed)
    path = Path(tempfile.mkdtemp(prefix="authz-bench-")) / "authz.db"
    database = await store.connect(f"sqlite:///{path}")
    await migrate(database)
    await roles.seed_builtin(database)
    await keys.ensure(database)
    now = clock.now()
    groups = tree(args.groups, args.levels)
    depth = [g.count("/") + 1 for g in groups]
    log(f"tree: {len(groups)} groups, depth {min(depth)}..{max(depth)}")
    async with database.transaction() as tx:
        for g in groups:
            body = rows.body(Group(uid=g, name=g[-8:], create_time=now, update_time=now))
            await tx.execute(
                "INSERT INTO groups (uid, parent, name, create_time, update_time, body)"
                " VALUES ($1, $2, $3, $4, $5, $6)",
                g, uidp.parent(g), g[-8:], now, now, body,
            )  # fmt: skip
        ids = [uidp.new_root() for _ in range(args.identities)]
        for i in ids:
            await identities.insert(tx, Identity(uid=i, name="bench", create_time=now, update_time=now), "")
        builtin = [r.uid for r in capabilities.BUILTIN_ROLES]
        seen = set()
        while len(seen) < args.bindings:
            key = (random.choice(groups), random.choice(ids), random.choice(builtin))
            if key not in seen:
                seen.add(key)
                await queries.insert_role_binding(tx, key[0], key[1], key[2], now)
    access = Access(database, "https://bench.example", "https://bench.example")
    await access.start()
    tokens = {i: access.tokens.mint(i)[0] for i in ids}
    required = capabilities.mask(["CAP_REPO_LIST"])
    targets = [random.choice(groups) + "/" + "0" * 16 for _ in range(args.decisions)]
    who = [random.choice(ids) for _ in range(args.decisions)]

    async def decide(identity: str, target: str) -> float:
        t = time.perf_counter()
        principal = await access.authenticate("Bearer " + tokens[identity])
        with contextlib.suppress(errors.ApiError):
            principal.require(required, target, "chainguard.platform.registry.v2.Repo")
        return (time.perf_counter() - t) * 1000

    for i in ids:  # warm the token cache (signature checks are not authorization)
        await access.tokens.verify(tokens[i])
    warm_up = [await decide(w, t) for w, t in zip(who[:1000], targets[:1000], strict=True)]
    del warm_up
    warm = [await decide(w, t) for w, t in zip(who, targets, strict=True)]
    cold = []
    for w, t in zip(who[: args.cold], targets[: args.cold], strict=True):
        access.authorizer.invalidate()
        cold.append(await decide(w, t))
    # What an unscoped List computes: the subtrees where the caller may list.
    visible = []
    for w in who[: args.cold]:
        principal = await access.authenticate("Bearer " + tokens[w])
        t0 = time.perf_counter()
        principal.visible_roots(required)
        visible.append((time.perf_counter() - t0) * 1000)
    await access.stop()
    await database.close()
    bindings_per_identity = args.bindings / args.identities
    print(f"{args.bindings} bindings over {args.identities} identities ({bindings_per_identity:.0f} each), "
          f"{len(groups)} groups in {args.levels} levels")  # fmt: skip
    for name, values in (("warm", warm), ("cold", cold), ("list visibility", visible)):
        print(f"{name:>15}: n={len(values):>6}  p50 {statistics.median(values) * 1000:7.1f} us  "
              f"p99 {pct(values, 0.99) * 1000:7.1f} us  max {max(values) * 1000:7.1f} us")  # fmt: skip
    verdict = "ok" if pct(warm, 0.99) <= TARGET_P99_MS and pct(cold, 0.99) <= TARGET_P99_MS else "MISSED"
    print(f"target p99 <= {TARGET_P99_MS} ms per decision: {verdict}")


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--groups", type=int, default=5000)
    p.add_argument("--levels", type=int, default=6)
    p.add_argument("--bindings", type=int, default=10_000)
    p.add_argument("--identities", type=int, default=1000)
    p.add_argument("--decisions", type=int, default=100_000)
    p.add_argument("--cold", type=int, default=2000, help="decisions each after dropping the cached grants")
    p.add_argument("--seed", type=int, default=1)
    asyncio.run(main(p.parse_args()))
