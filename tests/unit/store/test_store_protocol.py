"""The store's Database protocol, in-process on both backends: executemany, claim, listen/notify, row
locks, and the storage errors (and their mapping to API errors in `service.storage`)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from platform_api.core import errors
from platform_api.service import storage
from platform_api.store import Conflict, NotFound, rows
from platform_api.store import db as store
from tests.helpers import scratch_database

SCHEMA = (
    "CREATE TABLE t (uid TEXT PRIMARY KEY, name TEXT UNIQUE, body TEXT NOT NULL DEFAULT '{}',"
    " state INTEGER NOT NULL DEFAULT 1, claim TEXT NOT NULL DEFAULT '')"
)


@pytest.fixture(params=["sqlite", "postgres"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    with scratch_database(request.param, tmp_path) as url:
        yield url


@asynccontextmanager
async def opened(url: str) -> AsyncIterator[Any]:
    db = await store.connect(url)
    try:
        yield db
    finally:
        await db.close()


def run(url: str, body: Callable[[Any], Awaitable[None]]) -> None:
    async def go() -> None:
        async with opened(url) as db:
            await db.execute(SCHEMA)
            await body(db)

    asyncio.run(go())


async def eventually(check: Callable[[], bool], seconds: float = 5.0) -> None:
    for _ in range(int(seconds / 0.01)):
        if check():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("condition not reached")


def test_executemany_in_and_outside_a_transaction(url: str) -> None:
    async def body(db: Any) -> None:
        await db.executemany("INSERT INTO t (uid, name) VALUES ($1, $2)", [("a", "x"), ("b", "y")])
        async with db.transaction() as tx:
            await tx.executemany("UPDATE t SET state = $2 WHERE uid = $1", [("a", 2), ("b", 3)])
        assert sorted(tuple(r) for r in await db.fetch("SELECT uid, state FROM t")) == [("a", 2), ("b", 3)]
        with pytest.raises(RuntimeError):  # a failing transaction leaves nothing of its batch
            async with db.transaction() as tx:
                await tx.executemany("INSERT INTO t (uid) VALUES ($1)", [("c",), ("d",)])
                raise RuntimeError
        assert await db.fetchval("SELECT COUNT(*) FROM t") == 2

    run(url, body)


def test_claim_takes_each_row_once(url: str) -> None:
    pick = "SELECT uid FROM t WHERE state = 1 AND claim = '' ORDER BY uid LIMIT $2"
    sql = "UPDATE t SET claim = $1 WHERE uid IN ({pick}) RETURNING uid"

    async def body(db: Any) -> None:
        assert await db.claim(sql, pick, "me", 10) == []  # nothing due: no writer taken
        await db.executemany("INSERT INTO t (uid) VALUES ($1)", [(f"r{i}",) for i in range(5)])
        first = sorted(r[0] for r in await db.claim(sql, pick, "one", 3))
        second, third = await asyncio.gather(db.claim(sql, pick, "two", 3), db.claim(sql, pick, "three", 3))
        got = first + [r[0] for r in second] + [r[0] for r in third]
        assert first == ["r0", "r1", "r2"] and sorted(got) == [f"r{i}" for i in range(5)]

    run(url, body)


def test_notify_wakes_this_process_listeners_by_the_commit(url: str) -> None:
    """SQLite: at the COMMIT (a listener woken earlier would read on the other connection before the write
    is there); PostgreSQL: at once as well (a claim skips the rows it cannot see; NOTIFY comes at commit)."""

    async def body(db: Any) -> None:
        woken: list[str] = []
        a = await db.listen("chan_a", lambda: woken.append("a"))
        b = await db.listen("chan_b", lambda: woken.append("b"))
        try:
            async with db.transaction() as tx:
                await tx.notify("chan_a")
                assert woken == ([] if db.name == "sqlite" else ["a"])
            assert "a" in woken  # PostgreSQL: its NOTIFY may have come back by now too
            assert a.changed()
            await db.notify("chan_b")
            assert "b" in woken
        finally:
            await a.close()
            await b.close()
        woken.clear()
        await db.notify("chan_a")
        assert woken == []  # closed listeners hear nothing

    run(url, body)


def test_another_connection_s_commit_reaches_the_listener(url: str) -> None:
    """PostgreSQL: NOTIFY from another pool at commit; SQLite: another connection's commit shows in the
    commit counter (changed() and wait())."""

    async def body(db: Any) -> None:
        woken = asyncio.Event()
        listener = await db.listen("chan", woken.set)
        try:
            assert listener.changed()  # the first call: nothing known yet
            assert not listener.changed()
            async with opened(url) as other:
                async with other.transaction() as tx:
                    await tx.execute("INSERT INTO t (uid) VALUES ('x')")
                    await tx.notify("chan")
                await eventually(listener.changed)
                assert not listener.changed()
                waiter = asyncio.Event()
                await listener.wait(waiter, 0.0)  # arms SQLite's commit marker
                await other.execute("INSERT INTO t (uid) VALUES ('y')")
                if db.claims_need_lease:
                    await asyncio.wait_for(listener.wait(waiter, 5.0), 2.0)  # returns on the commit
                else:
                    await other.notify("chan")
                    await asyncio.wait_for(woken.wait(), 5.0)
        finally:
            await listener.close()

    run(url, body)


def test_postgres_listener_reconnects_after_losing_its_connection(url: str) -> None:
    if not url.startswith("postgres"):
        pytest.skip("PostgreSQL LISTEN")

    async def body(db: Any) -> None:
        calls: list[int] = []
        listener = await db.listen("chan", lambda: calls.append(1))
        try:
            assert listener.changed() and not listener.changed()
            pid = listener._conn.get_server_pid()
            await db.execute("SELECT pg_terminate_backend($1)", pid)
            await eventually(lambda: listener._conn is None)
            assert calls and listener.changed() and listener.changed()  # not trusted while down
            await eventually(lambda: listener._conn is not None and listener._conn.get_server_pid() != pid)
            calls.clear()
            await db.notify("chan")
            await eventually(lambda: len(calls) >= 2)  # at once, and again through LISTEN
        finally:
            await listener.close()

    run(url, body)


def test_storage_errors_and_their_api_mapping(url: str) -> None:
    async def body(db: Any) -> None:
        await db.execute("INSERT INTO t (uid, name, body) VALUES ('g/1', 'n', '{\"a\": 1}')")
        assert await rows.get(db, "t", dict, "g/1") == {"a": 1}
        with pytest.raises(NotFound) as nf:
            await rows.get(db, "t", dict, "g/2")
        assert (nf.value.table, nf.value.key) == ("t", "g/2")
        with pytest.raises(errors.ApiError) as api:
            await storage.get(db, "t", dict, "chainguard.platform.iam.v2.Group", "f" * 40)
        want = errors.not_found("chainguard.platform.iam.v2.Group", "f" * 40)
        assert (api.value.code, api.value.message, api.value.details) == (want.code, want.message, want.details)
        with pytest.raises(Conflict):
            await rows.unique_write(db, "INSERT INTO t (uid, name) VALUES ('g/3', 'n')")
        taken = errors.already_exists("T", "g/3", "taken")
        with pytest.raises(errors.ApiError) as api:
            await storage.unique_write(db, taken, "INSERT INTO t (uid, name) VALUES ('g/3', 'n')")
        assert api.value is taken
        async with db.transaction() as tx:  # the lock suffix is valid SQL on both
            assert await rows.get(tx, "t", dict, "g/1", lock=True) == {"a": 1}
            assert await tx.fetchval("SELECT name FROM t WHERE uid = 'g/1'" + rows.for_update(tx)) == "n"

    run(url, body)
