"""The pure parts of the store's answer to a failing database (issue 26 items 8 and 16): which asyncpg errors
mean the connection or the database failed (503, a retry may succeed) rather than the statement, and the outage
log: one line when it starts, one when it ends with the calls refused meanwhile."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import asyncpg
import pytest

from platform_api.store import Unavailable, postgres
from platform_api.store.errors import NOTHING_STORED
from platform_api.store.outage import Outage
from tests.helpers import scratch_database


@pytest.mark.parametrize(
    "error",
    [
        ConnectionRefusedError(111, "Connection refused"),
        ConnectionResetError(104, "Connection reset by peer"),
        TimeoutError(),
        asyncpg.ConnectionDoesNotExistError("connection was closed in the middle of operation"),
        asyncpg.AdminShutdownError("terminating connection due to administrator command"),
        asyncpg.CannotConnectNowError("the database system is shutting down"),
        asyncpg.TooManyConnectionsError("sorry, too many clients already"),
        asyncpg.ObjectNotInPrerequisiteStateError("could not obtain lock"),
        asyncpg.InterfaceError("cannot perform operation: connection is closed"),
        asyncpg.InterfaceError("cannot perform operation: another operation is in progress"),
        asyncpg.InternalClientError("cannot switch to state 12; another operation (11) is in progress"),
    ],
)
def test_connection_failures(error: BaseException) -> None:
    assert postgres._connection_failed(error, None)


@pytest.mark.parametrize(
    "error",
    [
        asyncpg.UniqueViolationError("duplicate key value violates unique constraint"),
        asyncpg.UndefinedTableError('relation "x" does not exist'),
        asyncpg.InterfaceError("the server expects 2 arguments for this query, 1 was passed"),
        asyncpg.DataError("invalid input for query argument $1"),
        ValueError("not ours to map"),
    ],
)
def test_statement_errors_stay_what_they_are(error: BaseException) -> None:
    assert not postgres._connection_failed(error, None)


class Closed:
    def is_closed(self) -> bool:
        return True


def test_any_interface_error_on_a_closed_connection_is_a_failed_connection() -> None:
    assert postgres._connection_failed(asyncpg.InterfaceError("whatever it says"), Closed())


def test_a_statement_outside_a_transaction_may_have_written_unless_it_reads() -> None:
    assert postgres._reads("  select 1") and postgres._reads("SELECT pg_notify($1, '')")
    assert not postgres._reads("UPDATE deliveries SET state = 2") and not postgres._reads("WITH x AS (DELETE ...)")


def test_one_line_when_an_outage_starts_and_one_when_it_ends(caplog: pytest.LogCaptureFixture) -> None:
    outage = Outage("PostgreSQL")
    caplog.set_level(logging.INFO, logger="platform_api.store")
    before_any = outage.failures
    for _ in range(500):
        outage.failed(ConnectionRefusedError(111, "Connection refused"))
    began_during = outage.failures - 1
    outage.answered(began_during)  # began before the last refusal: proves nothing
    outage.answered(before_any)
    assert outage.since is not None
    outage.answered(outage.failures)  # began after the last refusal and succeeded: the database answers
    outage.answered(outage.failures)
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 2, lines
    assert lines[0].startswith("PostgreSQL unavailable (ConnectionRefusedError: [Errno 111] Connection refused)")
    assert lines[1].startswith("PostgreSQL available again after") and "500 calls refused" in lines[1]
    assert outage.since is None and outage.refused == 0


def test_no_connection_free_within_the_acquire_timeout_is_unavailable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every connection of the pool busy for longer than ACQUIRE_TIMEOUT: refused (nothing stored), not queued
    for ever; the next call, a connection free again, succeeds (in-process, on a scratch PostgreSQL database)."""
    monkeypatch.setattr(postgres, "ACQUIRE_TIMEOUT", 0.2)
    with scratch_database("postgres", tmp_path) as url:

        async def go() -> None:
            db = await postgres.PostgresDatabase.connect(url, min_size=1, max_size=1)
            try:
                async with db.transaction() as tx:
                    assert await tx.fetchval("SELECT 1") == 1
                    with pytest.raises(Unavailable) as refused:
                        await db.fetchval("SELECT 2")  # the only connection is the transaction's
                    assert refused.value.reason == NOTHING_STORED
                assert await db.fetchval("SELECT 3") == 3
            finally:
                await db.close()

        asyncio.run(go())
