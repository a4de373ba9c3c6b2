"""SQLite group commit, in-process on a file: concurrent transactions share one COMMIT, each a savepoint of
it; an error undoes its own caller's work only; a caller resumes only once the COMMIT holding its work
returned (another connection sees the row when `async with` exits); a lost group fails every caller of it."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from platform_api.store import db as store

SCHEMA = "CREATE TABLE t (k TEXT PRIMARY KEY, v TEXT NOT NULL DEFAULT '')"


def run(tmp_path: Path, body: Callable[[store.SqliteDatabase, Callable[[], list[str]]], Awaitable[None]]) -> None:
    """`body(db, stored)`: `stored()` reads the keys of t on a connection of its own (committed data only)."""
    path = str(tmp_path / "g.db")

    def stored() -> list[str]:
        other = sqlite3.connect(path)
        try:
            return sorted(r[0] for r in other.execute("SELECT k FROM t"))
        finally:
            other.close()

    async def go() -> None:
        db = store.SqliteDatabase(path)
        try:
            await db.execute(SCHEMA)
            await body(db, stored)
        finally:
            await db.close()

    asyncio.run(go())


async def _queued(db: store.SqliteDatabase, n: int) -> None:
    """Until `n` callers wait for the writer (they join the open group when it is their turn)."""
    while db._waiting < n:
        await asyncio.sleep(0)


def test_concurrent_transactions_share_a_commit_and_an_error_undoes_only_its_own(tmp_path: Path) -> None:
    async def body(db: store.SqliteDatabase, stored: Callable[[], list[str]]) -> None:
        first_in = asyncio.Event()
        release = asyncio.Event()
        seen: dict[str, list[str]] = {}
        visible_at_exit: dict[str, list[str]] = {}

        async def first() -> None:
            async with db.transaction() as tx:
                await tx.execute("INSERT INTO t (k) VALUES ('a')")
                first_in.set()
                await release.wait()  # the others queue for the writer meanwhile
            visible_at_exit["a"] = stored()

        async def writer(k: str, fail: bool = False) -> None:
            async with db.transaction() as tx:
                await tx.execute("INSERT INTO t (k) VALUES ($1)", k)
                # In the open group: the earlier callers' work is visible here, not to another connection.
                seen[k] = sorted(r[0] for r in await tx.fetch("SELECT k FROM t"))
                assert "a" not in stored()
                if fail:
                    raise RuntimeError("this caller fails")
            visible_at_exit[k] = stored()

        task = asyncio.create_task(first())
        await first_in.wait()
        others = [asyncio.create_task(writer(k, fail=k == "c")) for k in ("b", "c", "d")]
        await _queued(db, 3)
        release.set()
        await task
        results = await asyncio.gather(*others, return_exceptions=True)
        assert [type(r).__name__ for r in results] == ["NoneType", "RuntimeError", "NoneType"]
        assert seen == {"b": ["a", "b"], "c": ["a", "b", "c"], "d": ["a", "b", "d"]}  # c's row undone at once
        # Each caller resumed after the COMMIT holding its row: another connection saw it then.
        assert all(k in visible_at_exit[k] for k in ("a", "b", "d"))
        assert stored() == ["a", "b", "d"]

    run(tmp_path, body)


def test_a_failed_statement_fails_only_its_caller(tmp_path: Path) -> None:
    """A unique violation (SQLite keeps the transaction) is one caller's error; its neighbours commit."""

    async def body(db: store.SqliteDatabase, stored: Callable[[], list[str]]) -> None:
        await db.execute("INSERT INTO t (k) VALUES ('taken')")

        async def create(k: str) -> None:
            async with db.transaction() as tx:
                await tx.execute("INSERT INTO t (k, v) VALUES ($1, 'first')", k + "-1")
                await asyncio.sleep(0)  # let the others queue
                await tx.execute("INSERT INTO t (k) VALUES ($1)", k)

        keys = [f"k{i}" for i in range(10)]
        keys[4] = keys[7] = "taken"
        results = await asyncio.gather(*(create(k) for k in keys), return_exceptions=True)
        failed = [i for i, r in enumerate(results) if r is not None]
        assert failed == [4, 7] and all(isinstance(results[i], sqlite3.IntegrityError) for i in failed)
        want = {"taken"} | {k for k in keys if k != "taken"} | {k + "-1" for k in keys if k != "taken"}
        assert stored() == sorted(want)

    run(tmp_path, body)


def test_a_group_sqlite_rolled_back_fails_every_caller_of_it(tmp_path: Path) -> None:
    """RAISE(ROLLBACK) in a trigger rolls back the whole transaction (as SQLITE_FULL or IOERR would): the
    callers whose work it held fail too, none of it is stored, and the next transaction works."""

    async def body(db: store.SqliteDatabase, stored: Callable[[], list[str]]) -> None:
        await db.execute(
            "CREATE TRIGGER boom BEFORE INSERT ON t WHEN NEW.k = 'boom' BEGIN SELECT RAISE(ROLLBACK, 'boom'); END"
        )
        entered, gate = asyncio.Event(), asyncio.Event()

        async def create(k: str, hold: bool = False) -> None:
            async with db.transaction() as tx:
                await tx.execute("INSERT INTO t (k) VALUES ($1)", k)
                if hold:
                    entered.set()
                    await gate.wait()

        head = asyncio.create_task(create("a", hold=True))
        await entered.wait()
        tail = [asyncio.create_task(create(k)) for k in ("b", "boom", "c")]
        await _queued(db, 3)
        gate.set()
        results = await asyncio.gather(head, *tail, return_exceptions=True)
        names = [type(r).__name__ for r in results]
        # a and b were in the lost group; boom gets its own error; c started a new group after it.
        assert names == ["CommitFailed", "CommitFailed", "IntegrityError", "NoneType"], results
        assert stored() == ["c"]
        await db.execute("INSERT INTO t (k) VALUES ('d')")
        assert stored() == ["c", "d"]

    run(tmp_path, body)


class _FailingCommit:
    """The writer connection, except that COMMIT fails (as a full disk would make it)."""

    def __init__(self, raw: sqlite3.Connection) -> None:
        self.raw = raw
        self.fail = True

    def execute(self, sql: str, *args: Any) -> Any:
        if sql == "COMMIT" and self.fail:
            raise sqlite3.OperationalError("database or disk is full")
        return self.raw.execute(sql, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.raw, name)


def test_a_failed_commit_fails_every_caller_of_its_group(tmp_path: Path) -> None:
    async def body(db: store.SqliteDatabase, stored: Callable[[], list[str]]) -> None:
        failing = _FailingCommit(db._raw)
        db._raw = failing  # type: ignore[assignment]
        results = await asyncio.gather(
            *(db.execute("INSERT INTO t (k) VALUES ($1)", f"k{i}") for i in range(5)), return_exceptions=True
        )
        assert all(isinstance(r, store.CommitFailed) for r in results), results
        assert stored() == []
        failing.fail = False
        await db.execute("INSERT INTO t (k) VALUES ('after')")
        assert stored() == ["after"]

    run(tmp_path, body)


def test_this_process_listeners_wake_after_the_commit(tmp_path: Path) -> None:
    async def body(db: store.SqliteDatabase, stored: Callable[[], list[str]]) -> None:
        at_wake: list[list[str]] = []
        listener = await db.listen("chan", lambda: at_wake.append(stored()))
        try:

            async def write(k: str) -> None:
                async with db.transaction() as tx:
                    await tx.execute("INSERT INTO t (k) VALUES ($1)", k)
                    await tx.notify("chan")
                    await asyncio.sleep(0)

            await asyncio.gather(*(write(f"k{i}") for i in range(4)))
            assert at_wake and all(seen for seen in at_wake)  # every wake found rows stored
            assert at_wake[-1] == ["k0", "k1", "k2", "k3"]
        finally:
            await listener.close()

    run(tmp_path, body)


def test_scripts_and_pragmas_run_after_the_open_group_commits(tmp_path: Path) -> None:
    async def body(db: store.SqliteDatabase, stored: Callable[[], list[str]]) -> None:
        entered, gate = asyncio.Event(), asyncio.Event()

        async def held() -> None:
            async with db.transaction() as tx:
                await tx.execute("INSERT INTO t (k) VALUES ('held')")
                entered.set()
                await gate.wait()

        task = asyncio.create_task(held())
        await entered.wait()
        script = asyncio.create_task(db.executescript("BEGIN IMMEDIATE; INSERT INTO t (k) VALUES ('script'); COMMIT;"))
        pragma = asyncio.create_task(db.execute("PRAGMA wal_checkpoint(TRUNCATE)"))
        await _queued(db, 2)
        gate.set()
        await asyncio.gather(task, script, pragma)
        assert stored() == ["held", "script"]

    run(tmp_path, body)


@pytest.mark.parametrize("inside", [False, True])
def test_claim_and_executemany_join_the_group(tmp_path: Path, inside: bool) -> None:
    async def body(db: store.SqliteDatabase, stored: Callable[[], list[str]]) -> None:
        await db.executemany("INSERT INTO t (k, v) VALUES ($1, 'due')", [("x",), ("y",)])
        pick = "SELECT k FROM t WHERE v = 'due' ORDER BY k LIMIT $2"
        sql = "UPDATE t SET v = $1 WHERE k IN ({pick}) RETURNING k"
        if inside:
            async with db.transaction() as tx:
                await tx.execute("INSERT INTO t (k) VALUES ('z')")
                claimed = asyncio.create_task(db.claim(sql, pick, "mine", 5))
                await _queued(db, 1)
        else:
            claimed = asyncio.create_task(db.claim(sql, pick, "mine", 5))
        assert sorted(r[0] for r in await claimed) == ["x", "y"]
        assert await db.fetchval("SELECT COUNT(*) FROM t WHERE v = 'mine'") == 2

    run(tmp_path, body)
