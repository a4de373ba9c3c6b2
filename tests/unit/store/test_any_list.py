"""One bounded IN-list mechanism: `column = ANY($n)` with a Python list as one argument, on both dialects
(PostgreSQL natively; SQLite as `IN (SELECT value FROM json_each(?n))`). Any number of values in one
statement, no parameter limit, the empty list, integers, negation, and SQLite still probing the index."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from platform_api.service import listing
from platform_api.store import db, rows
from tests.helpers import scratch_database

ROWS = 2000
# Far past SQLite's 250,000 host parameters would need 100 MB of SQL text; 100,000 values already exceed
# PostgreSQL's 32,767 bind parameters and any per-value placeholder list either dialect takes gladly.
MANY = 100_000


def _run(backend: str, tmp: Path, test: Callable[[Any], Awaitable[None]]) -> None:
    with scratch_database(backend, tmp) as url:

        async def go() -> None:
            conn = await db.connect(url)
            try:
                await conn.execute("CREATE TABLE t (name TEXT PRIMARY KEY, n INTEGER NOT NULL, grp TEXT NOT NULL)")
                await conn.execute("CREATE INDEX t_n ON t (n)")
                await conn.executemany(
                    "INSERT INTO t (name, n, grp) VALUES ($1, $2, $3)",
                    [(f"k{i:05d}", i, "ab"[i % 2]) for i in range(ROWS)],
                )
                await test(conn)
            finally:
                await conn.close()

        asyncio.run(go())


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_one_statement_takes_any_number_of_values(backend: str, tmp_path: Path) -> None:
    async def test(conn: Any) -> None:
        names = [f"k{i:05d}" for i in range(MANY)]  # the first ROWS exist
        assert await conn.fetchval("SELECT COUNT(*) FROM t WHERE name = ANY($1)", names) == ROWS
        numbers = list(range(0, MANY * 2, 2))
        assert await conn.fetchval("SELECT COUNT(*) FROM t WHERE n = ANY($1)", numbers) == ROWS // 2
        # After other arguments, twice in one statement, and inside a subquery.
        found = await conn.fetch(
            "SELECT name FROM t WHERE grp = $1 AND n = ANY($2) AND name IN (SELECT name FROM t WHERE n = ANY($3))"
            " ORDER BY name",
            "b", [1, 2, 3, 5, 8], [3, 5, 7],
        )  # fmt: skip
        assert [r["name"] for r in found] == ["k00003", "k00005"]

    _run(backend, tmp_path, test)


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_empty_list_and_negation(backend: str, tmp_path: Path) -> None:
    async def test(conn: Any) -> None:
        assert await conn.fetchval("SELECT COUNT(*) FROM t WHERE name = ANY($1)", []) == 0
        assert await conn.fetchval("SELECT COUNT(*) FROM t WHERE NOT (name = ANY($1))", []) == ROWS
        assert await conn.fetchval("SELECT COUNT(*) FROM t WHERE NOT (n = ANY($1))", list(range(10))) == ROWS - 10
        # Writes too: a DELETE of a list.
        assert await conn.execute("DELETE FROM t WHERE n = ANY($1)", list(range(5))) == 5
        assert await conn.fetchval("SELECT COUNT(*) FROM t") == ROWS - 5

    _run(backend, tmp_path, test)


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_listing_and_rows_helpers_use_it(backend: str, tmp_path: Path) -> None:
    async def test(conn: Any) -> None:
        where = listing.Where()
        where.any_of("name", [f"k{i:05d}" for i in range(MANY)])
        where.any_of("n", list(range(100)))
        where.eq("grp", "a")
        assert len(where.args) == 3  # one argument per list, not per value
        assert await conn.fetchval(f"SELECT COUNT(*) FROM t WHERE {where.sql()}", *where.args) == 50
        await conn.execute("CREATE TABLE b (uid TEXT PRIMARY KEY, body TEXT NOT NULL)")
        await conn.executemany("INSERT INTO b (uid, body) VALUES ($1, $2)", [(f"u{i}", f"{i}") for i in range(3)])
        assert await rows.bodies(conn, "b", {"u0", "u2", "missing"}) == {"u0": "0", "u2": "2"}

    _run(backend, tmp_path, test)


def test_sqlite_still_probes_the_index(tmp_path: Path) -> None:
    async def test(conn: Any) -> None:
        for sql in ("SELECT n FROM t WHERE name = ANY($1)", "SELECT name FROM t WHERE n = ANY($1)"):
            text, args = conn._q(sql, ([1, 2],))
            assert "json_each(?1)" in text and args == ["[1,2]"]
            plan = " | ".join(str(r[-1]) for r in await conn.fetch("EXPLAIN QUERY PLAN " + sql, [1, 2]))
            assert "USING" in plan and "INDEX" in plan, plan  # SEARCH t USING ... INDEX, never SCAN t
            assert "SCAN t" not in plan, plan

    _run("sqlite", tmp_path, test)
