"""Bulk-load a benchmark dataset straight through the store layer (no HTTP).

One root organization (with an owner identity bound to it), `groups` sub-groups under it, and `repos`
repos: a tenth directly under the organization, the rest spread evenly over the sub-groups. Rows are what
the service itself writes: uids from platform_api.core.uidp, times from platform_api.core.clock, bodies from
`rows.body(Group(...))` / `rows.body(Repo(...))` as in iam/groups.py and registry/repos.py. The
per-parent counters (child_counts) are maintained by the schema's triggers, as for API writes.

SQLite: executemany in transactions of BATCH rows. PostgreSQL: COPY (asyncpg copy_records_to_table)
in transactions of BATCH rows, then ANALYZE (what autovacuum would do shortly after such a load).
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from typing import Any

from platform_api.auth import capabilities
from platform_api.core import clock, uidp
from platform_api.gen.records.iam_v2 import Group, Identity
from platform_api.gen.records.registry_v2 import Repo
from platform_api.iam import identities, queries, roles
from platform_api.store import db as store
from platform_api.store import rows
from platform_api.store.migrate import migrate

BATCH = 10_000
COLUMNS = ("uid", "parent", "name", "create_time", "update_time", "body")


@dataclass
class Dataset:
    org: str = ""
    # An identity bound as owner at the organization: the benchmark's requests carry its token.
    owner: str = ""
    groups: list[str] = field(default_factory=list)
    repo_uids: list[str] = field(default_factory=list)
    seconds: float = 0.0


def _group_row(uid: str, parent: str, name: str) -> tuple[str, ...]:
    now = clock.now()
    g = Group(uid=uid, name=name, description=f"benchmark group {name}", create_time=now, update_time=now)
    return (g.uid, parent, g.name, now, now, rows.body(g))


def _repo_row(parent: str, i: int) -> tuple[str, ...]:
    now = clock.now()
    name = f"repo-{i:06d}"
    r = Repo(
        uid=uidp.new_child(parent),
        name=name,
        description=f"benchmark repository {i}",
        create_time=now,
        update_time=now,
    )
    return (r.uid, parent, r.name, now, now, rows.body(r))


def _progress(done: int, total: int, t0: float) -> None:
    rate = done / max(time.perf_counter() - t0, 1e-9)
    tty = sys.stderr.isatty()  # redraw one line on a terminal, a line per batch in a log
    line = f"  loading repos: {done:>7}/{total} ({100 * done // total:3d}%, {rate:,.0f} rows/s)"
    sys.stderr.write(("\r" + line + "   " if tty else line) + ("\n" if done >= total or not tty else ""))
    sys.stderr.flush()


async def insert_rows(database: Any, table: str, columns: list[str], batch: list[tuple[Any, ...]]) -> None:
    """`batch` into `table` in one transaction: COPY on PostgreSQL, executemany on SQLite (under the store's
    placeholder rewrite)."""
    if isinstance(database, store.PostgresDatabase):
        async with database.pool.acquire() as conn, conn.transaction():
            await conn.copy_records_to_table(table, records=batch, columns=columns)
        return
    marks = ", ".join(f"${i + 1}" for i in range(len(columns)))
    async with database.transaction() as tx:
        await tx.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})", batch)


async def settle(database: Any) -> None:
    """After a bulk load: statistics on PostgreSQL (ANALYZE), the WAL folded into the file on SQLite."""
    if isinstance(database, store.PostgresDatabase):
        await database.execute("ANALYZE")
    else:
        await database.execute("PRAGMA wal_checkpoint(TRUNCATE)")


async def load(url: str, repos: int = 100_000, groups: int = 100) -> Dataset:
    t0 = time.perf_counter()
    database = await store.connect(url)
    try:
        await migrate(database)
        if await database.fetchval("SELECT COUNT(*) FROM repos"):
            raise RuntimeError(f"{url} already holds repos: the benchmark needs a fresh database")
        ds = Dataset(org=uidp.new_root())
        group_rows = [_group_row(ds.org, "", "bench-org")]
        for g in range(groups):
            uid = uidp.new_child(ds.org)
            ds.groups.append(uid)
            group_rows.append(_group_row(uid, ds.org, f"team-{g:03d}"))
        await insert_rows(database, "groups", list(COLUMNS), group_rows)
        await roles.seed_builtin(database)
        now = clock.now()
        ds.owner = uidp.new_root()
        owner = Identity(uid=ds.owner, name="bench-owner", create_time=now, update_time=now, last_seen_time=now)
        async with database.transaction() as tx:
            await identities.insert(tx, owner, "")
            await queries.insert_role_binding(tx, ds.org, ds.owner, capabilities.OWNER.uid, now)

        parents = [ds.org] * (repos // 10 if groups else repos)
        if groups:
            rest = repos - len(parents)
            for g, uid in enumerate(ds.groups):
                parents += [uid] * (rest // groups + (1 if g < rest % groups else 0))
        batch: list[tuple[str, ...]] = []
        for i, parent in enumerate(parents):
            row = _repo_row(parent, i)
            ds.repo_uids.append(row[0])
            batch.append(row)
            if len(batch) == BATCH or i == len(parents) - 1:
                await insert_rows(database, "repos", list(COLUMNS), batch)
                batch = []
                _progress(i + 1, len(parents), t0)

        count = int(await database.fetchval("SELECT COUNT(*) FROM repos"))
        counted = int(await database.fetchval("SELECT COALESCE(SUM(n), 0) FROM child_counts WHERE tbl = 'repos'"))
        if count != repos or counted != repos:
            raise RuntimeError(f"loaded {count} repos (counters say {counted}), expected {repos}")
        await settle(database)
    finally:
        await database.close()
    ds.seconds = time.perf_counter() - t0
    return ds
