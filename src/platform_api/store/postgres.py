"""PostgreSQL through an asyncpg pool (see `store.db` for the interface).

A lost connection or an unreachable database is `Unavailable` (503, nothing stored) wherever it happens before
a COMMIT, and `OutcomeUnknown` (503, COMMIT_OUTCOME_UNKNOWN) when it happens during one, or during a write
statement outside a transaction: the server may have committed it. The connection it happened on is
terminated, never handed out again (our pool reset is a no-op, so the pool itself would not find out). The
outage is logged once when it starts and once when it ends (`store.outage`), not per request.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from contextlib import asynccontextmanager
from typing import Any, TypeVar

from platform_api.store.errors import OutcomeUnknown, Unavailable
from platform_api.store.interface import Conn, Listener, Row, _Local, _wake_local, log
from platform_api.store.outage import Outage

T = TypeVar("T")
LISTEN_RETRY_SECONDS = 5.0  # after a failed LISTEN
LISTEN_LOST_RETRY_SECONDS = 1.0  # after the listening connection was lost
# Opening a connection (a database that drops packets answers nothing: without this asyncpg waits 60 s).
CONNECT_TIMEOUT = 5.0
# Waiting for a connection of the pool, opening one included: beyond it the request is refused (503), not queued
# for ever behind a database that does not answer.
ACQUIRE_TIMEOUT = 10.0
UNREACHABLE = "the database is unavailable"
LOST_IN_WRITE = "the connection to the database was lost during the write"
# asyncpg's InterfaceError / InternalClientError texts that mean the connection, not the statement, is broken.
_BROKEN = ("connection is closed", "another operation", "pool is clos", '"failed" state')


class _PoolFloorRetries(logging.Filter):
    """Drops asyncpg's "Failed to restore the pool connection floor; retrying" (a traceback every 1, 2, 4, ...
    60 s while the database is unreachable): the outage is logged once by `Outage`."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("Failed to restore the pool connection floor")


_POOL_FLOOR_RETRIES = _PoolFloorRetries()


def _closed(conn: Any) -> bool:
    try:
        return bool(conn.is_closed())
    except Exception:  # a pool proxy already detached: the connection went back to the pool, closed
        return True


def _connection_failed(e: BaseException, conn: Any) -> bool:
    """Whether `e` says the database or the connection failed rather than the statement: a retry may succeed."""
    import asyncpg

    if isinstance(
        e,
        OSError  # refused, reset, unreachable
        | TimeoutError  # connecting, or waiting for a connection of the pool
        | asyncpg.PostgresConnectionError  # SQLSTATE class 08, ConnectionDoesNotExistError
        | asyncpg.AdminShutdownError  # 57P01: pg_terminate_backend, a fast shutdown
        | asyncpg.CrashShutdownError
        | asyncpg.CannotConnectNowError  # 57P03: starting up, shutting down, recovering
        | asyncpg.IdleSessionTimeoutError
        | asyncpg.TooManyConnectionsError  # 53300
        | asyncpg.ObjectNotInPrerequisiteStateError,  # 55xxx, e.g. lock_not_available
    ):
        return True
    if isinstance(e, asyncpg.InterfaceError | asyncpg.InternalClientError):
        return (conn is not None and _closed(conn)) or any(text in str(e) for text in _BROKEN)
    return False


def _reads(sql: str) -> bool:
    """Whether a statement outside a transaction only reads, so that losing it mid-way stored nothing."""
    return sql.lstrip()[:6].upper() == "SELECT"


class _PgConn:
    """The statements of a transaction, on its connection (and, overridden by PostgresDatabase, of the pool)."""

    dialect = "postgres"
    lock_suffix = " FOR UPDATE"
    key_share_suffix = " FOR KEY SHARE"
    index_hints = False

    def __init__(self, conn: Any, local: _Local, db: PostgresDatabase) -> None:
        self._c = conn
        self._local = local
        self._db = db

    async def _run(self, op: str, sql: str, args: Sequence[Any]) -> Any:
        # Lost in a transaction: it was not committed (the server rolls back a transaction whose connection ends).
        return await self._db._checked(getattr(self._c, op)(sql, *args), self._c, Unavailable)

    async def fetch(self, sql: str, *args: Any) -> list[Row]:
        rows: list[Row] = await self._run("fetch", sql, args)
        return rows

    async def fetchrow(self, sql: str, *args: Any) -> Row | None:
        row: Row | None = await self._run("fetchrow", sql, args)
        return row

    async def fetchtuples(self, sql: str, *args: Any) -> list[Sequence[Any]]:
        rows: list[Sequence[Any]] = await self._run("fetch", sql, args)
        return rows

    async def fetchval(self, sql: str, *args: Any) -> Any:
        return await self._run("fetchval", sql, args)

    async def execute(self, sql: str, *args: Any) -> int:
        status: str = await self._run("execute", sql, args)
        tail = status.rsplit(" ", 1)[-1]
        return int(tail) if tail.isdigit() else 0

    async def executemany(self, sql: str, args: Iterable[Sequence[Any]]) -> None:
        await self._run("executemany", sql, (args,))

    async def notify(self, channel: str) -> None:
        # Delivered to every listener (this process's included) when the transaction commits; this
        # process's are woken at once as well, so they need not wait for the round trip.
        await self._run("execute", "SELECT pg_notify($1, '')", (channel,))
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
        self._warned = False  # about the current streak of failed LISTENs (one line, not one per retry)
        db._local.setdefault(channel, []).append(self)

    async def _connect(self) -> bool:
        conn = None
        try:
            conn = await self._db.pool.acquire()
            await conn.add_listener(self._channel, self._notified)
            conn.add_termination_listener(self._lost)
        except Exception:  # the database is unreachable: callers poll until it is back
            if not self._warned:
                log.warning("LISTEN %s unavailable; retrying every %ss", self._channel, LISTEN_RETRY_SECONDS)
                self._warned = True
            if conn is not None:
                with contextlib.suppress(Exception):
                    await self._db.pool.release(conn)
            return False
        self._conn, self._dirty, self._warned = conn, True, False
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


async def _rollback(tx: Any, conn: Any) -> None:
    """Undo a transaction whose body failed. A connection that cannot (lost, or mid-way through a cancelled
    statement) is terminated instead: the server rolls back the transaction of a connection that ends."""
    if _closed(conn):
        return
    try:
        await tx.rollback()
    except BaseException as e:
        with contextlib.suppress(Exception):
            conn.terminate()
        if not isinstance(e, Exception):
            raise


class PostgresDatabase(_PgConn):
    claims_need_lease = False
    name = "postgres"

    def __init__(self, pool: Any) -> None:
        super().__init__(pool, {}, self)
        self.pool = pool
        self._outage = Outage("PostgreSQL")

    @classmethod
    async def connect(cls, url: str, min_size: int = 2, max_size: int = 10) -> PostgresDatabase:
        import asyncpg

        # A connection goes back to the pool as it is: asyncpg's default reset (`SELECT pg_advisory_unlock_all();
        # CLOSE ALL; UNLISTEN *; RESET ALL`) is a round trip on every release, and our code leaves no session
        # state to reset (no SET, no cursors; advisory locks and LISTEN are undone by the code that takes them;
        # an open transaction is still rolled back by asyncpg itself). A connection that failed is terminated
        # where it failed (`_refusal`), so no reset has to find that out either.
        logging.getLogger("asyncpg.pool").addFilter(_POOL_FLOOR_RETRIES)  # once: filters are a set
        pool = await asyncpg.create_pool(
            url, min_size=min_size, max_size=max_size, reset=_keep_session, timeout=CONNECT_TIMEOUT
        )
        return cls(pool)

    def _refusal(self, e: BaseException, conn: Any, kind: type[Unavailable]) -> Unavailable | None:
        """`kind` to raise for `e` when it is a failed connection or database (the connection, if any,
        terminated; the outage noted), else None: `e` is the statement's own error."""
        if not _connection_failed(e, conn):
            return None
        if conn is not None:
            with contextlib.suppress(Exception):
                conn.terminate()
        self._outage.failed(e)
        return kind(LOST_IN_WRITE if kind is OutcomeUnknown else UNREACHABLE)

    async def _checked(self, step: Awaitable[T], conn: Any, kind: type[Unavailable]) -> T:
        """`step`'s result; its failed connection as `kind` (see `_refusal`)."""
        try:
            return await step
        except Exception as e:
            refusal = self._refusal(e, conn, kind)
            if refusal is None:
                raise
            raise refusal from e

    async def _acquire(self) -> Any:
        try:
            # A timeout costs 11 µs (asyncio.timeout; acquire(timeout=) runs a task: 23 µs), a tenth of a GET:
            # only where every connection is in use and the wait has no end of its own (opening one has
            # CONNECT_TIMEOUT). asyncpg's queue of free connections (private; asyncpg is pinned).
            if self.pool._queue.empty():
                async with asyncio.timeout(ACQUIRE_TIMEOUT):
                    return await self.pool.acquire()
            return await self.pool.acquire()
        except Exception as e:
            refusal = self._refusal(e, None, Unavailable)
            if refusal is None:
                raise
            raise refusal from e

    async def _release(self, conn: Any) -> None:
        try:
            await self.pool.release(conn)
        except Exception:  # the pool terminated it: the work on it is done (or already refused)
            log.debug("connection release failed", exc_info=True)

    async def _run(self, op: str, sql: str, args: Sequence[Any]) -> Any:
        """One statement on a connection of the pool, a transaction of its own."""
        outage = self._outage
        began = outage.failures
        conn = await self._acquire()
        try:
            kind = Unavailable if _reads(sql) else OutcomeUnknown
            result = await self._checked(getattr(conn, op)(sql, *args), conn, kind)
        finally:
            await self._release(conn)
        if outage.since is not None:
            outage.answered(began)
        return result

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Conn]:
        outage = self._outage
        began = outage.failures
        conn = await self._acquire()
        try:
            tx = conn.transaction()
            await self._checked(tx.start(), conn, Unavailable)
            try:
                yield _PgConn(conn, self._local, self)
            except BaseException:
                await _rollback(tx, conn)
                raise
            # Closed already (lost in the body, the error caught there): the server rolled it back.
            await self._checked(tx.commit(), conn, Unavailable if _closed(conn) else OutcomeUnknown)
        finally:
            await self._release(conn)
        if outage.since is not None:
            outage.answered(began)

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
