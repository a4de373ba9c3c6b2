"""What every database handle is to its callers, whichever engine is behind it (see `store.db`): rows,
connections and transactions (`Conn`), the database (`Database`), listeners; and what the two engines share."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol

log = logging.getLogger(__name__)


class Row(Protocol):
    """A result row: `row["column"]` (and, where a column list is built at run time, `row[i]`)."""

    def __getitem__(self, key: str | int, /) -> Any: ...
    def __len__(self) -> int: ...
    def keys(self) -> Any: ...


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
