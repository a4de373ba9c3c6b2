"""Database access for every domain: one small async interface over stdlib sqlite3 and asyncpg.

SQL is written once with PostgreSQL-style numbered placeholders ($1, $2, ...); SQLite gets them as
?1, ?2 (it supports numbered parameters natively). A list of values is one parameter, written
`column = ANY($n)` with a Python list as the argument (negated: `NOT (column = ANY($n))`): PostgreSQL takes
it natively as an array; SQLite gets `column IN (SELECT value FROM json_each(?n))` with the list as JSON
text. Either way one statement takes any number of values (no placeholder per value, no parameter limit)
and SQLite still probes the column's index. Rows are read by column name, `row["body"]`, on both
dialects (`fetch`, `fetchrow`: `sqlite3.Row` / asyncpg `Record`). `fetchtuples` is the positional fast
path for code that builds its column list itself (listing: ~15% less per row on SQLite).

Everything that differs between the two lives here (and in `rows`, `migrate`): placeholders, row locks
(`lock_suffix`), batch writes (`executemany`), claiming rows among concurrent workers (`claim`), and
notifications between processes (`notify` / `listen`). Code outside `store` never asks which one it has.

SQLite runs in-process on the event loop: a primary-key read costs ~10 µs, far less than handing it to
a thread. Writes go through one connection under a lock, one transaction at a time (SQLite allows a
single writer anyway); reads use a second connection, which in WAL mode sees only committed data.

Reads on SQLite share one read transaction per turn of the event loop (`SqliteDatabase._snapshot`): each
statement outside a transaction would begin and end one of its own, taking and dropping WAL locks with
`fcntl` every time, and a GET runs two (the authorization freshness check and the read): 10.1 µs for both
alone, 4.2 µs inside a shared transaction (bench/README.md). The transaction begins at the first read of a
turn and ends at the start of the next turn, and at once when this process commits a write. A request's
reads therefore see every commit that finished before the request arrived: a task that became ready after
the snapshot began runs in a later turn, after the snapshot ended.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
import time
import weakref
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlparse

import msgspec


class Row(Protocol):
    """A result row: `row["column"]` (and, where a column list is built at run time, `row[i]`)."""

    def __getitem__(self, key: str | int, /) -> Any: ...
    def __len__(self) -> int: ...
    def keys(self) -> Any: ...


_ANY = "= ANY($"
_encode_list = msgspec.json.Encoder().encode
log = logging.getLogger("platform_api.store")

# SQLite has no notifications between processes: a listener there polls the commit counter this often.
SQLITE_CHANGE_POLL_SECONDS = 0.02
LISTEN_RETRY_SECONDS = 5.0  # after a failed LISTEN
LISTEN_LOST_RETRY_SECONDS = 1.0  # after the listening connection was lost


class Conn(Protocol):
    """What domain queries use: the database, or a transaction on it."""

    # Appended to a SELECT to hold its rows until the transaction ends (empty where the single writer
    # already serializes read-modify-write).
    lock_suffix: str
    # Appended to a SELECT to keep its rows from being deleted until the transaction ends, while other
    # transactions may hold the same (creates under one parent do not wait for each other).
    key_share_suffix: str
    # True when the planner has no statistics and listing must pick the access path (SQLite without STAT4).
    index_hints: bool

    async def fetch(self, sql: str, *args: Any) -> list[Row]:
        """The rows, read by column name."""

    async def fetchrow(self, sql: str, *args: Any) -> Row | None:
        """The first row (by column name), or None."""

    async def fetchtuples(self, sql: str, *args: Any) -> list[Sequence[Any]]:
        """The rows by position only (cheapest; for column lists built at run time)."""

    async def fetchval(self, sql: str, *args: Any) -> Any: ...
    async def execute(self, sql: str, *args: Any) -> int: ...
    async def executemany(self, sql: str, args: Iterable[Sequence[Any]]) -> None: ...
    async def notify(self, channel: str) -> None:
        """Wake the listeners of `channel`: this process's at once, other processes' at commit."""


class Listener(Protocol):
    """This process listening on a channel (see `Database.listen`)."""

    # Whether `changed()` returning False proves that no other connection committed since the last call.
    # SQLite: yes (its commit counter is read synchronously). PostgreSQL: no: a NOTIFY reaches the listening
    # connection some time after the commit (tens of milliseconds under load), so a caller that must see every
    # commit of another process at once has to ask the database.
    exact: bool

    def changed(self) -> bool:
        """Whether a notification (SQLite: any commit) may have come since the last call; True while the
        listener is not connected, so a caller never trusts a stale state."""

    async def wait(self, event: asyncio.Event, seconds: float) -> None:
        """Until `event` is set (the callback given to `listen` may set it), any commit becomes visible
        (SQLite, polled) or `seconds` pass."""

    async def close(self) -> None: ...


class Database(Conn, Protocol):
    # True when concurrent claimers cannot skip each other's rows (SQLite): one process at a time claims,
    # holding a lease.
    claims_need_lease: bool
    name: str  # for messages

    def transaction(self) -> Any: ...  # async context manager yielding a Conn
    async def claim(self, sql: str, pick: str, *args: Any) -> list[Row]: ...
    async def listen(self, channel: str, callback: Callable[[], None]) -> Listener: ...
    async def close(self) -> None: ...


class _Notifiable(Protocol):
    def _notified(self, *_: Any) -> None: ...


# This process's listeners per channel, shared by a database and its transactions.
_Local = dict[str, list[_Notifiable]]


def _wake_local(local: _Local, channel: str) -> None:
    for listener in list(local.get(channel, ())):
        listener._notified()


def _sqlite_text(sql: str) -> tuple[str, tuple[int, ...]]:
    """SQLite's text of `sql`: each `= ANY($n)` as `IN (SELECT value FROM json_each(?n))`, each `$n` as `?n`;
    and the indexes of the arguments that are lists (which `_q` passes as JSON text)."""
    lists: set[int] = set()
    pieces = sql.split(_ANY)
    for k in range(1, len(pieces)):
        number, close, rest = pieces[k].partition(")")
        if not close or not number.isdigit():
            raise ValueError(f"write a list parameter as '= ANY($n)': {sql[:200]!r}")
        lists.add(int(number) - 1)
        pieces[k] = f"IN (SELECT value FROM json_each(${number})){rest}"
    if any(form in piece.upper() for piece in pieces for form in ("ANY(", "ANY (")):
        raise ValueError(f"write a list parameter as '= ANY($n)': {sql[:200]!r}")
    parts = "".join(pieces).split("$")
    return parts[0] + "".join(("?" if p[:1].isdigit() else "$") + p for p in parts[1:]), tuple(sorted(lists))


class _SqliteConn:
    dialect = "sqlite"
    lock_suffix = ""
    key_share_suffix = ""
    index_hints = True

    def __init__(self, conn: sqlite3.Connection, local: _Local) -> None:
        self._conn = conn
        self._local = local
        # SQL text -> (SQLite text, indexes of the arguments that are lists), rewritten once per text.
        self._sql: dict[str, tuple[str, tuple[int, ...]]] = {}

    def _prepared(self, sql: str) -> tuple[str, tuple[int, ...]]:
        found = self._sql.get(sql)
        if found is None:
            found = self._sql[sql] = _sqlite_text(sql)
        return found

    def _q(self, sql: str, args: Sequence[Any] = ()) -> tuple[str, Sequence[Any]]:
        """The SQLite text of `sql` and its arguments, lists (`= ANY($n)`) as JSON text."""
        q, lists = self._sql.get(sql) or self._prepared(sql)
        if lists:
            args = list(args)
            for i in lists:
                args[i] = _encode_list(list(args[i])).decode()
        return q, args

    def _named(self, sql: str, args: tuple[Any, ...]) -> sqlite3.Cursor:
        cur = self._conn.cursor()
        cur.row_factory = sqlite3.Row
        return cur.execute(*self._q(sql, args))

    async def fetch(self, sql: str, *args: Any) -> list[Row]:
        return self._named(sql, args).fetchall()

    async def fetchrow(self, sql: str, *args: Any) -> Row | None:
        row: Row | None = self._named(sql, args).fetchone()
        return row

    async def fetchtuples(self, sql: str, *args: Any) -> list[Sequence[Any]]:
        return self._conn.execute(*self._q(sql, args)).fetchall()

    async def fetchval(self, sql: str, *args: Any) -> Any:
        row = self._conn.execute(*self._q(sql, args)).fetchone()
        return None if row is None else row[0]

    async def execute(self, sql: str, *args: Any) -> int:
        return self._conn.execute(*self._q(sql, args)).rowcount

    async def executemany(self, sql: str, args: Iterable[Sequence[Any]]) -> None:
        q, lists = self._prepared(sql)
        self._conn.executemany(q, (self._q(sql, a)[1] for a in args) if lists else args)

    async def notify(self, channel: str) -> None:
        # Other processes see the commit itself (their listeners poll the commit counter).
        _wake_local(self._local, channel)


class _SqliteListener:
    exact = True

    def __init__(self, db: SqliteDatabase, channel: str, callback: Callable[[], None]) -> None:
        self._db = db
        self._channel = channel
        self._callback = callback
        self._dirty = False
        self._marker: int | None = None  # as of the last changed()
        self._wait_marker: int | None = None  # as of the last wait()
        db._local.setdefault(channel, []).append(self)

    def _notified(self, *_: Any) -> None:
        self._dirty = True
        self._callback()

    def changed(self) -> bool:
        marker = self._db.commit_marker_now()
        if marker == self._marker and not self._dirty:
            return False
        self._marker, self._dirty = marker, False
        return True

    async def wait(self, event: asyncio.Event, seconds: float) -> None:
        deadline = time.monotonic() + max(seconds, 0.0)
        while True:
            remaining = deadline - time.monotonic()
            slice_ = min(remaining, SQLITE_CHANGE_POLL_SECONDS)
            try:
                await asyncio.wait_for(event.wait(), timeout=max(slice_, 0.0))
                return
            except TimeoutError:
                if slice_ >= remaining:
                    return
            marker = self._db.commit_marker_now()
            if marker != self._wait_marker:
                self._wait_marker = marker
                return

    async def close(self) -> None:
        listeners = self._db._local.get(self._channel, [])
        if self in listeners:
            listeners.remove(self)


class SqliteDatabase(_SqliteConn):
    claims_need_lease = True
    name = "sqlite"

    def __init__(self, path: str, synchronous: str = "FULL") -> None:
        if path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        writer = self._open(path, synchronous)
        local: _Local = {}
        super().__init__(self._open(path, synchronous) if path != ":memory:" else writer, local)
        self._writer = _SqliteConn(writer, local)
        self._lock = asyncio.Lock()
        # The shared read transaction of this turn of the loop (not in memory: there one connection writes too).
        self._snapshots = path != ":memory:"
        self._in_snapshot = False
        _open_databases.add(self)

    def _snapshot(self) -> None:
        """Open this turn's read transaction on the read connection, unless one is open."""
        if self._in_snapshot or not self._snapshots:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop (a synchronous caller): a statement is its own transaction
            return
        self._conn.execute("BEGIN")
        self._in_snapshot = True
        loop.call_soon(self._end_snapshot)

    def _end_snapshot(self) -> None:
        if self._in_snapshot:
            self._in_snapshot = False
            self._conn.execute("COMMIT")

    def _committed(self) -> None:
        """This process committed a write: every handle's read snapshot ends, so that the next read of the
        committing task (in this turn still) sees it, through any handle of this process."""
        for db in list(_open_databases):
            db._end_snapshot()

    async def fetch(self, sql: str, *args: Any) -> list[Row]:
        if not self._in_snapshot:
            self._snapshot()
        return self._named(sql, args).fetchall()

    async def fetchrow(self, sql: str, *args: Any) -> Row | None:
        if not self._in_snapshot:
            self._snapshot()
        row: Row | None = self._named(sql, args).fetchone()
        return row

    async def fetchtuples(self, sql: str, *args: Any) -> list[Sequence[Any]]:
        if not self._in_snapshot:
            self._snapshot()
        return self._conn.execute(*self._q(sql, args)).fetchall()

    async def fetchval(self, sql: str, *args: Any) -> Any:
        if not self._in_snapshot:
            self._snapshot()
        row = self._conn.execute(*self._q(sql, args)).fetchone()
        return None if row is None else row[0]

    @staticmethod
    def _open(path: str, synchronous: str) -> sqlite3.Connection:
        # isolation_level=None: we issue BEGIN/COMMIT ourselves.
        conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        # First: processes opening a new file together wait for each other's locks instead of failing.
        conn.execute("PRAGMA busy_timeout=5000")
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute(f"PRAGMA synchronous={synchronous}")
        conn.execute("PRAGMA foreign_keys=ON")
        # Reads through a memory map and a 32 MiB page cache: a primary-key read over 100k rows went from
        # 8.8 to 7.1 µs here (the default cache is 2 MiB and every miss is a pread).
        conn.execute("PRAGMA mmap_size=268435456")
        conn.execute("PRAGMA cache_size=-32768")
        return conn

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Conn]:
        async with self._lock:
            raw = self._writer._conn
            raw.execute("BEGIN IMMEDIATE")
            try:
                yield self._writer
            except BaseException:
                raw.execute("ROLLBACK")
                raise
            raw.execute("COMMIT")
            self._committed()

    async def execute(self, sql: str, *args: Any) -> int:
        # A write outside an explicit transaction still goes through the single writer.
        async with self._lock:
            n = await self._writer.execute(sql, *args)
        self._committed()
        return n

    async def executemany(self, sql: str, args: Iterable[Sequence[Any]]) -> None:
        async with self._lock:
            await self._writer.executemany(sql, args)
        self._committed()

    async def claim(self, sql: str, pick: str, *args: Any) -> list[Row]:
        """Run `sql`, an UPDATE of the rows `pick` selects (`{pick}` in it) that marks them claimed,
        returning them. The single writer serializes claimers; it is taken only when `pick` finds a row
        (reads need no writer lock)."""
        self._snapshot()
        if self._conn.execute(*self._q(f"SELECT EXISTS ({pick})", args)).fetchone()[0] == 0:
            return []
        async with self.transaction() as tx:
            return await tx.fetch(sql.format(pick=pick), *args)

    async def listen(self, channel: str, callback: Callable[[], None]) -> Listener:
        """`callback` runs on this process's notifies of `channel`; other processes' commits show in
        `changed()` / `wait()` (SQLite has no notifications between processes)."""
        return _SqliteListener(self, channel, callback)

    async def executescript(self, script: str) -> None:
        async with self._lock:
            self._writer._conn.executescript(script)
        self._committed()

    def commit_marker_now(self) -> int:
        """`commit_marker` without the await (a PRAGMA on the read connection, as of this turn's snapshot)."""
        if not self._in_snapshot:
            self._snapshot()
        return int(self._conn.execute("PRAGMA data_version").fetchone()[0])

    async def commit_marker(self) -> int:
        """A value that changes whenever another connection (of this process or another) commits a write.

        `PRAGMA data_version` on the read connection (~3.5 µs). Reading SQLite's commit counter from the
        -shm file directly would cost ~0.1 µs, but it needs a second descriptor on that file, and closing
        one releases every POSIX lock the process holds on it (SQLite's own included): another process may
        then reset the shared memory under SQLite's readers. Not worth 3 µs.
        """
        return int(await self.fetchval("PRAGMA data_version"))

    async def close(self) -> None:
        self._end_snapshot()
        _open_databases.discard(self)
        self._conn.close()
        if self._writer._conn is not self._conn:
            self._writer._conn.close()


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


# Every SQLite handle of this process (a process may hold several: a test, a command beside the server).
_open_databases: weakref.WeakSet[SqliteDatabase] = weakref.WeakSet()


def sqlite_path(url: str) -> str:
    """sqlite:///relative/path, sqlite:////absolute/path, sqlite:///:memory:."""
    rest = url[len("sqlite://") :]
    if rest in ("", "/", "/:memory:"):
        return ":memory:"
    return rest[1:] if rest.startswith("/") else rest


async def connect(url: str, *, sqlite_synchronous: str = "FULL") -> SqliteDatabase | PostgresDatabase:
    scheme = urlparse(url).scheme
    if scheme == "sqlite":
        return SqliteDatabase(sqlite_path(url), sqlite_synchronous)
    if scheme in ("postgres", "postgresql"):
        return await PostgresDatabase.connect(url)
    raise ValueError(f"unsupported database URL scheme {scheme!r}: use sqlite:///path or postgresql://...")
