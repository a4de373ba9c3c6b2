"""SQLite: in-process on the event loop, one writer connection and one reader (see `store.db` for the
interface).

A primary-key read costs ~10 µs, far less than handing it to a thread. Writes go through one connection under
a lock (SQLite allows a single writer anyway); reads use a second connection, which in WAL mode sees only
committed data. Writes commit in groups (see `SqliteDatabase.transaction`): concurrent transactions share one
COMMIT, each a savepoint of it, and each caller resumes only after that COMMIT returned.

Reads share one read transaction per turn of the event loop (`SqliteDatabase._snapshot`): each statement
outside a transaction would begin and end one of its own, taking and dropping WAL locks with `fcntl` every
time, and a GET runs two (the authorization freshness check and the read): 10.1 µs for both alone, 4.2 µs
inside a shared transaction (bench/README.md). The transaction begins at the first read of a turn and ends at
the start of the next turn, and at once when this process commits a write. A request's reads therefore see
every commit that finished before the request arrived: a task that became ready after the snapshot began runs
in a later turn, after the snapshot ended.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import sqlite3
import time
import weakref
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import msgspec

from platform_api.store.errors import Unavailable
from platform_api.store.interface import Conn, Listener, Row, _Local, _wake_local
from platform_api.store.outage import Outage

_ANY = "= ANY($"
_encode_list = msgspec.json.Encoder().encode
# SQLite has no notifications between processes: a listener there polls the commit counter this often.
SQLITE_CHANGE_POLL_SECONDS = 0.02


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


class CommitFailed(Unavailable):
    """The COMMIT of the write group holding this caller's transaction failed (or SQLite rolled the group
    back): none of the group's work is stored."""


# How long a write waits for another process's write lock before answering UNAVAILABLE.
BUSY_WAIT = 5.0
_BUSY_TIMEOUT = f"PRAGMA busy_timeout={int(BUSY_WAIT * 1000)}"


class _Group:
    """The open write transaction on the SQLite writer and the callers whose savepoints it holds: they wait
    for `done`, set by its COMMIT to None, or to the error that lost it."""

    __slots__ = ("callers", "channels", "done")

    def __init__(self) -> None:
        self.done: asyncio.Future[BaseException | None] = asyncio.get_running_loop().create_future()
        self.callers = 0
        self.channels: set[str] = set()  # notified in the group: this process's listeners wake at its COMMIT


class _SqliteWriter(_SqliteConn):
    """The writer connection, as the callers of `transaction` see it."""

    group: _Group | None = None

    async def notify(self, channel: str) -> None:
        # A listener woken now would read before the COMMIT (a dispatcher would find no new row): wake this
        # process's at the COMMIT; other processes see the commit itself.
        if self.group is not None:
            self.group.channels.add(channel)
        else:
            _wake_local(self._local, channel)


# Statements SQLite refuses inside a transaction: `execute` runs them on the writer outside any.
_OUTSIDE = ("PRAGMA", "VACUUM", "ATTACH", "DETACH")


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
        self._writer = _SqliteWriter(writer, local)
        self._raw = writer
        writer.execute("PRAGMA busy_timeout=0")  # see _begin; `_alone` waits in SQLite as before
        self._lock = asyncio.Lock()
        self._waiting = 0  # callers queued for the lock
        self._group: _Group | None = None
        self._committer: asyncio.Task[None] | None = None
        # COMMIT (an fsync with synchronous=FULL) runs here while the event loop serves reads; one thread,
        # used only under the lock. An in-memory database (reader and writer one connection) commits inline.
        self._commits = (
            concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="sqlite-commit") if path != ":memory:" else None
        )
        # The shared read transaction of this turn of the loop (not in memory: there one connection writes too).
        self._snapshots = path != ":memory:"
        self._in_snapshot = False
        self._marker: int | None = None  # the commit counter as of this snapshot, once read
        self._outage = Outage("SQLite")
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
            self._marker = None
            self._conn.execute("COMMIT")

    @staticmethod
    def _end_snapshots() -> None:
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
        conn.execute(_BUSY_TIMEOUT)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute(f"PRAGMA synchronous={synchronous}")
        conn.execute("PRAGMA foreign_keys=ON")
        # Reads through a memory map and a 32 MiB page cache: a primary-key read over 100k rows went from
        # 8.8 to 7.1 µs here (the default cache is 2 MiB and every miss is a pread).
        conn.execute("PRAGMA mmap_size=268435456")
        conn.execute("PRAGMA cache_size=-32768")
        # A savepoint's statement journal in memory, not a temporary file opened and unlinked per write.
        conn.execute("PRAGMA temp_store=MEMORY")
        return conn

    # ------------------------------------------------------------------ group commit
    #
    # One write transaction (a group) stays open while callers queue for the writer: each caller's work is a
    # savepoint in it (an error undoes that caller's work only), and one COMMIT makes the whole group durable.
    # The first caller of a group schedules a committer task, which queues for the lock behind the callers
    # already waiting (asyncio.Lock is FIFO: they join the group), then commits in a thread; callers arriving
    # meanwhile form the next group. A caller resumes only after the COMMIT holding its work returned, so
    # when `async with db.transaction()` exits the work is durable, as with a transaction of its own.

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Conn]:
        group = await self._enter()
        try:
            yield self._writer
            self._raw.execute("RELEASE caller")
        except BaseException as e:
            kept = self._undo(group, e)
            self._leave(group)
            if kept and isinstance(e, Exception):  # its answer may rest on what the group read: after the COMMIT
                await self._outcome(group)
            raise
        self._leave(group)
        await self._outcome(group)

    async def _enter(self) -> _Group:
        """Take the writer and open the caller's savepoint, in the open group or a new one."""
        await self._acquire()
        group = self._group
        try:
            if group is None:
                await self._begin()
                group = self._group = self._writer.group = _Group()
            self._raw.execute("SAVEPOINT caller")
            group.callers += 1
        except BaseException as e:
            if group is not None:
                self._abort(group, e)
            self._lock.release()
            raise
        return group

    async def _begin(self) -> None:
        """BEGIN IMMEDIATE, waiting for another process's write lock on the event loop, not in SQLite's busy
        handler (the writer's busy_timeout is 0), so reads go on meanwhile."""
        delay, deadline = 0.001, time.monotonic() + BUSY_WAIT
        while True:
            try:
                self._raw.execute("BEGIN IMMEDIATE")
                return
            except sqlite3.OperationalError as e:
                if e.sqlite_errorcode != sqlite3.SQLITE_BUSY:
                    raise
                if time.monotonic() >= deadline:  # nothing was written: the caller may retry
                    self._outage.failed(e)
                    raise Unavailable("the database is busy with another process's write") from e
            await asyncio.sleep(delay)
            delay = min(delay * 2, 0.05)

    async def _acquire(self) -> None:
        self._waiting += 1
        try:
            await self._lock.acquire()
        finally:
            self._waiting -= 1

    def _undo(self, group: _Group, error: BaseException) -> bool:
        """Roll back the caller's savepoint (the lock held), and whether the group is kept: when SQLite rolled
        back the whole transaction (SQLITE_FULL, IOERR, BUSY, RAISE(ROLLBACK), ...) it is lost, and every
        caller of it fails."""
        if self._raw.in_transaction:
            try:
                self._raw.execute("ROLLBACK TO caller")
                self._raw.execute("RELEASE caller")
                return True
            except Exception as e:
                error = e
        self._abort(group, error)
        return False

    def _abort(self, group: _Group, error: BaseException) -> None:
        with contextlib.suppress(Exception):
            if self._raw.in_transaction:
                self._raw.execute("ROLLBACK")
        self._group = self._writer.group = None
        group.done.set_result(error)

    def _leave(self, group: _Group) -> None:
        """Make sure the group gets committed, and release the writer."""
        try:
            if self._group is group and self._committer is None:
                self._committer = asyncio.get_running_loop().create_task(self._commit_in_turn())
        finally:
            self._lock.release()

    async def _outcome(self, group: _Group) -> None:
        error = group.done.result() if group.done.done() else await asyncio.shield(group.done)
        if error is not None:
            raise CommitFailed(f"the write transaction failed: {error}") from error

    async def _commit_in_turn(self) -> None:
        try:
            async with self._lock:
                self._committer = None  # callers from here on need another
                group = self._group
                if group is not None:
                    # A group of one with nobody queued commits here: the hand-off to the thread cost one client
                    # ~12% of its creates/s. Decided now, a loop turn after the caller left (decided as it leaves,
                    # nobody is ever queued: the loop blocked in every fsync and groups never formed).
                    if group.callers == 1 and self._waiting == 0:
                        self._commit_inline(group)
                    else:
                        await self._commit(group)
        finally:
            if self._committer is asyncio.current_task():  # cancelled while queued
                self._committer = None

    async def _commit(self, group: _Group) -> None:
        """COMMIT the group (the lock held), in the commit thread."""
        if self._commits is None:
            self._commit_inline(group)
            return
        self._group = self._writer.group = None
        done = self._commits.submit(self._raw.execute, "COMMIT")
        error: BaseException | None = None
        try:
            await asyncio.shield(asyncio.wrap_future(done))
        except asyncio.CancelledError:
            # The writer stays ours until the thread is done with it.
            concurrent.futures.wait([done])
            self._committed(group, done.exception())
            raise
        except Exception as e:
            error = e
        self._committed(group, error)

    def _commit_inline(self, group: _Group) -> None:
        self._group = self._writer.group = None
        try:
            self._raw.execute("COMMIT")
        except Exception as e:
            self._committed(group, e)
            return
        self._committed(group, None)

    def _committed(self, group: _Group, error: BaseException | None) -> None:
        if error is not None:
            with contextlib.suppress(Exception):
                if self._raw.in_transaction:
                    self._raw.execute("ROLLBACK")
            self._outage.failed(error)  # logged once per outage (a full disk fails every group until freed)
        else:
            self._end_snapshots()
            if self._outage.since is not None:
                self._outage.answered(self._outage.failures)
        group.done.set_result(error)
        if error is None:
            for channel in group.channels:
                _wake_local(self._local, channel)

    @asynccontextmanager
    async def _alone(self) -> AsyncIterator[sqlite3.Connection]:
        """The writer connection outside any transaction: the open group committed first."""
        await self._acquire()
        try:
            if self._group is not None:
                group = self._group
                await self._commit(group)
                await self._outcome(group)
            self._raw.execute(_BUSY_TIMEOUT)  # migrations and maintenance wait for other processes' locks
            try:
                yield self._raw
            finally:
                self._raw.execute("PRAGMA busy_timeout=0")
        finally:
            self._lock.release()
            self._end_snapshots()

    async def execute(self, sql: str, *args: Any) -> int:
        # A write outside an explicit transaction is a transaction of its own (it joins the group).
        if sql.lstrip()[:6].upper() in _OUTSIDE:
            async with self._alone() as raw:
                return raw.execute(*self._q(sql, args)).rowcount
        async with self.transaction() as tx:
            return await tx.execute(sql, *args)

    async def executemany(self, sql: str, args: Iterable[Sequence[Any]]) -> None:
        async with self.transaction() as tx:
            await tx.executemany(sql, args)

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
        """Run `script` on the writer outside any transaction (it may hold its own BEGIN ... COMMIT)."""
        async with self._alone() as raw:
            raw.executescript(script)

    def commit_marker_now(self) -> int:
        """`commit_marker` without the await (a PRAGMA on the read connection, as of this turn's snapshot: read
        once per snapshot, since nothing another connection commits shows inside it)."""
        if self._marker is not None:
            return self._marker
        if not self._in_snapshot:
            self._snapshot()
        marker = int(self._conn.execute("PRAGMA data_version").fetchone()[0])
        if self._in_snapshot:
            self._marker = marker
        return marker

    async def commit_marker(self) -> int:
        """A value that changes whenever another connection (of this process or another) commits a write.

        `PRAGMA data_version` on the read connection (~3.5 µs). Reading SQLite's commit counter from the
        -shm file directly would cost ~0.1 µs, but it needs a second descriptor on that file, and closing
        one releases every POSIX lock the process holds on it (SQLite's own included): another process may
        then reset the shared memory under SQLite's readers. Not worth 3 µs.
        """
        return int(await self.fetchval("PRAGMA data_version"))

    async def close(self) -> None:
        async with self._alone():  # the open group committed
            pass
        self._end_snapshot()
        _open_databases.discard(self)
        self._conn.close()
        if self._raw is not self._conn:
            self._raw.close()
        if self._commits is not None:
            self._commits.shutdown()


# Every SQLite handle of this process (a process may hold several: a test, a command beside the server).
_open_databases: weakref.WeakSet[SqliteDatabase] = weakref.WeakSet()


def sqlite_path(url: str) -> str:
    """sqlite:///relative/path, sqlite:////absolute/path, sqlite:///:memory:."""
    rest = url[len("sqlite://") :]
    if rest in ("", "/", "/:memory:"):
        return ":memory:"
    return rest[1:] if rest.startswith("/") else rest
