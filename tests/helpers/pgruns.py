"""The PostgreSQL databases a test run creates are named after the run, and a run's start drops those of runs
that are over (a run stopped by Ctrl-C or a kill leaves its databases behind).

Whether a run is over is asked of PostgreSQL itself, not guessed: the run's first process (the pytest-xdist
controller, or the only process with -n 0) holds a session-level advisory lock keyed by the run's number, on a
connection of its own, for the whole run. PostgreSQL releases it when that connection goes, however the process
ends. A database whose run holds no lock is left over; those of another live run on the same server (a second
checkout, a second terminal) stay. Names of another form (made by hand, or by an older suite) are never touched.
"""

from __future__ import annotations

import asyncio
import os
import re
import secrets
import threading

# The run's number: chosen by the first process, inherited by the pytest-xdist workers it starts (they are its
# children, started after this module is imported through tests/conftest.py).
RUN = int(os.environ.setdefault("_PLATFORM_API_TEST_RUN", str(1 + secrets.randbelow(2**31 - 1))))
# The first key of the advisory lock (its second is the run's number): the suite's own, apart from any other
# user of advisory locks on the server.
LOCK_CLASS = 0x7061_7473  # "pats"
NAME = re.compile(r"pa_[a-z]+_r([0-9]+)_[0-9a-f]+")


def database_name(kind: str) -> str:
    """A new database name of this run, e.g. `pa_test_r123456_0a1b2c3d`."""
    return f"pa_{kind}_r{RUN}_{secrets.token_hex(4)}"


async def _live_runs(conn: object) -> set[int]:
    rows = await conn.fetch(  # type: ignore[attr-defined]
        "SELECT objid FROM pg_locks WHERE locktype = 'advisory' AND classid = $1 AND objsubid = 2 AND granted",
        LOCK_CLASS,
    )
    return {int(r["objid"]) for r in rows}


async def sweep(admin_url: str) -> list[str]:
    """Drop every database of a run that is over; the names dropped."""
    import asyncpg

    conn = await asyncpg.connect(admin_url, timeout=5)
    try:
        # Databases first, then locks: a run takes its lock before it creates a database, so a database seen
        # here belongs to a run whose lock (if it lives) is already there when the locks are read.
        names = [r["datname"] for r in await conn.fetch("SELECT datname FROM pg_database")]
        live = await _live_runs(conn)
        stale = [n for n in names if (m := NAME.fullmatch(n)) and int(m[1]) not in live]
        for name in stale:
            await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        return stale
    finally:
        await conn.close()


class RunLock:
    """This run's advisory lock, held on a connection of its own by a thread with its own event loop, until
    `release` (or until this process ends)."""

    def __init__(self, admin_url: str, run: int = RUN) -> None:
        self.admin_url, self.run = admin_url, run
        self._held, self._release = threading.Event(), threading.Event()
        self._error: Exception | None = None
        self._thread = threading.Thread(target=lambda: asyncio.run(self._hold()), name="pa-test-run-lock", daemon=True)

    def acquire(self) -> None:
        self._thread.start()
        self._held.wait(15)
        if self._error is not None:
            raise self._error
        if not self._held.is_set():
            raise TimeoutError(f"the test run's advisory lock ({LOCK_CLASS}, {self.run}) was not granted in 15 s")

    def release(self) -> None:
        self._release.set()
        self._thread.join(10)

    async def _hold(self) -> None:
        import asyncpg

        try:
            conn = await asyncpg.connect(self.admin_url, timeout=5)
            await conn.execute("SELECT pg_advisory_lock($1, $2)", LOCK_CLASS, self.run)
        except Exception as e:  # handed to the caller's thread
            self._error = e
            self._held.set()
            return
        self._held.set()
        try:
            while not self._release.is_set():
                await asyncio.sleep(0.2)
        finally:
            await conn.close()


def _unreachable(e: Exception) -> bool:
    """Refused or timed out, or refused by the server (asyncpg's errors: no such role or database, no right)."""
    return isinstance(e, OSError | TimeoutError) or type(e).__module__.startswith("asyncpg")


def start_of_run(admin_url: str) -> RunLock | None:
    """At the start of a run (first process only): take this run's lock, then drop the databases of runs that
    are over. None, silently, when PostgreSQL cannot be reached (its tests will say so)."""
    lock = RunLock(admin_url)
    try:
        lock.acquire()
    except Exception as e:
        lock.release()
        if _unreachable(e):
            return None
        raise
    try:
        asyncio.run(sweep(admin_url))
    except Exception as e:
        if not _unreachable(e):
            raise
    return lock
