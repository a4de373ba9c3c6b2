"""PostgreSQL through an asyncpg pool (see `store.db` for the interface)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from contextlib import asynccontextmanager
from typing import Any

from platform_api.store.interface import Conn, Listener, Row, _Local, _wake_local, log

LISTEN_RETRY_SECONDS = 5.0  # after a failed LISTEN
LISTEN_LOST_RETRY_SECONDS = 1.0  # after the listening connection was lost


class _PgConn:
    dialect = "postgres"
    lock_suffix = " FOR UPDATE"
    key_share_suffix = " FOR KEY SHARE"
    index_hints = False

    def __init__(self, conn: Any, local: _Local) -> None:
        self._c = conn
        self._local = local

    async def fetch(self, sql: str, *args: Any) -> list[Row]:
        rows: list[Row] = await self._c.fetch(sql, *args)
        return rows

    async def fetchrow(self, sql: str, *args: Any) -> Row | None:
        row: Row | None = await self._c.fetchrow(sql, *args)
        return row

    async def fetchtuples(self, sql: str, *args: Any) -> list[Sequence[Any]]:
        rows: list[Sequence[Any]] = await self._c.fetch(sql, *args)
        return rows

    async def fetchval(self, sql: str, *args: Any) -> Any:
        return await self._c.fetchval(sql, *args)

    async def execute(self, sql: str, *args: Any) -> int:
        status: str = await self._c.execute(sql, *args)
        tail = status.rsplit(" ", 1)[-1]
        return int(tail) if tail.isdigit() else 0

    async def executemany(self, sql: str, args: Iterable[Sequence[Any]]) -> None:
        await self._c.executemany(sql, args)

    async def notify(self, channel: str) -> None:
        # Delivered to every listener (this process's included) when the transaction commits; this
        # process's are woken at once as well, so they need not wait for the round trip.
        await self._c.execute("SELECT pg_notify($1, '')", channel)
        _wake_local(self._local, channel)


class _PgListener:
    """LISTEN on a connection of its own, taken from the pool; reconnects by itself when it fails."""

    exact = False

    def __init__(self, db: PostgresDatabase, channel: str, callback: Callable[[], None]) -> None:
        self._db = db
        self._channel = channel
        self._callback = callback
        self._conn: Any = None
        self._dirty = True
        self._closed = False
        self._retry: asyncio.Task[None] | None = None
        db._local.setdefault(channel, []).append(self)

    async def _connect(self) -> bool:
        conn = None
        try:
            conn = await self._db.pool.acquire()
            await conn.add_listener(self._channel, self._notified)
            conn.add_termination_listener(self._lost)
        except Exception:  # the database is unreachable: callers poll until it is back
            log.warning("LISTEN %s unavailable; retrying every %ss", self._channel, LISTEN_RETRY_SECONDS)
            if conn is not None:
                with contextlib.suppress(Exception):
                    await self._db.pool.release(conn)
            return False
        self._conn, self._dirty = conn, True
        return True

    async def _reconnect(self, delay: float) -> None:
        while not self._closed:
            await asyncio.sleep(delay)
            if self._closed or await self._connect():
                return
            delay = LISTEN_RETRY_SECONDS

    def _schedule(self, delay: float) -> None:
        if not self._closed and (self._retry is None or self._retry.done()):
            # Kept referenced: the loop holds tasks only weakly.
            self._retry = asyncio.get_running_loop().create_task(self._reconnect(delay))

    def _notified(self, *_: Any) -> None:
        self._dirty = True
        self._callback()

    def _lost(self, *_: Any) -> None:
        self._conn = None
        self._dirty = True
        self._schedule(LISTEN_LOST_RETRY_SECONDS)
        self._callback()

    def changed(self) -> bool:
        if self._conn is None:
            return True
        dirty, self._dirty = self._dirty, False
        return dirty

    async def wait(self, event: asyncio.Event, seconds: float) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(event.wait(), timeout=max(seconds, 0.0))

    async def close(self) -> None:
        self._closed = True
        listeners = self._db._local.get(self._channel, [])
        if self in listeners:
            listeners.remove(self)
        if self._retry is not None:
            self._retry.cancel()
            with contextlib.suppress(BaseException):
                await self._retry
        if self._conn is not None:
            conn, self._conn = self._conn, None
            try:
                await conn.remove_listener(self._channel, self._notified)
                await self._db.pool.release(conn)
            except Exception:
                log.debug("listener release failed", exc_info=True)


async def _keep_session(_: Any) -> None:
    """The pool's reset: nothing to do (see PostgresDatabase.connect)."""


class PostgresDatabase(_PgConn):
    claims_need_lease = False
    name = "postgres"

    def __init__(self, pool: Any) -> None:
        super().__init__(pool, {})
        self.pool = pool

    @classmethod
    async def connect(cls, url: str, min_size: int = 2, max_size: int = 10) -> PostgresDatabase:
        import asyncpg

        # A connection goes back to the pool as it is: asyncpg's default reset (`SELECT pg_advisory_unlock_all();
        # CLOSE ALL; UNLISTEN *; RESET ALL`) is a round trip on every release, and our code leaves no session
        # state to reset (no SET, no cursors; advisory locks and LISTEN are undone by the code that takes them;
        # an open transaction is still rolled back by asyncpg itself).
        pool = await asyncpg.create_pool(url, min_size=min_size, max_size=max_size, reset=_keep_session)
        return cls(pool)

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Conn]:
        async with self.pool.acquire() as conn, conn.transaction():
            yield _PgConn(conn, self._local)

    async def claim(self, sql: str, pick: str, *args: Any) -> list[Row]:
        """Run `sql`, an UPDATE of the rows `pick` selects (`{pick}` in it) that marks them claimed,
        returning them: picked FOR UPDATE SKIP LOCKED, so concurrent claimers never take the same row."""
        return await self.fetch(sql.format(pick=pick + " FOR UPDATE SKIP LOCKED"), *args)

    async def listen(self, channel: str, callback: Callable[[], None]) -> Listener:
        """LISTEN on `channel`: `callback` runs on each notification (and when the connection is lost)."""
        listener = _PgListener(self, channel, callback)
        if not await listener._connect():
            listener._schedule(LISTEN_RETRY_SECONDS)
        return listener

    @asynccontextmanager
    async def advisory_lock(self, key: int) -> AsyncIterator[None]:
        """A session-level advisory lock held on a connection of its own."""
        async with self.pool.acquire() as conn:
            await conn.execute("SELECT pg_advisory_lock($1)", key)
            try:
                yield
            finally:
                await conn.execute("SELECT pg_advisory_unlock($1)", key)

    async def executescript(self, script: str) -> None:
        async with self.pool.acquire() as conn:
            await conn.execute(script)

    async def close(self) -> None:
        await self.pool.close()
