"""Database access for every domain: one small async interface over stdlib sqlite3 (`store.sqlite`) and
asyncpg (`store.postgres`); this module holds what both are to their callers, and `connect`.

SQL is written once with PostgreSQL-style numbered placeholders ($1, $2, ...); SQLite gets them as
?1, ?2 (it supports numbered parameters natively). A list of values is one parameter, written
`column = ANY($n)` with a Python list as the argument (negated: `NOT (column = ANY($n))`): PostgreSQL takes
it natively as an array; SQLite gets `column IN (SELECT value FROM json_each(?n))` with the list as JSON
text. Either way one statement takes any number of values (no placeholder per value, no parameter limit)
and SQLite still probes the column's index. Rows are read by column name, `row["body"]`, on both
dialects (`fetch`, `fetchrow`: `sqlite3.Row` / asyncpg `Record`). `fetchtuples` is the positional fast
path for code that builds its column list itself (listing: ~15% less per row on SQLite).

Everything that differs between the two lives in `store` (here, the two dialect modules, `rows`, `migrate`):
placeholders, row locks (`lock_suffix`, `key_share_suffix`), batch writes (`executemany`), claiming rows among
concurrent workers (`claim`), and notifications between processes (`notify` / `listen`). Code outside `store`
never asks which one it has.
"""

from __future__ import annotations

import sqlite3
from urllib.parse import urlparse

from platform_api.store import connect_failure
from platform_api.store.errors import CannotConnect
from platform_api.store.interface import Conn, Database, Listener, Row
from platform_api.store.postgres import PostgresDatabase
from platform_api.store.sqlite import CommitFailed, SqliteDatabase, sqlite_path

__all__ = [
    "CommitFailed", "Conn", "Database", "Listener", "PostgresDatabase", "Row", "SqliteDatabase", "connect",
    "sqlite_path",
]  # fmt: skip


async def connect(url: str, *, sqlite_synchronous: str = "FULL") -> SqliteDatabase | PostgresDatabase:
    """The database at `url`; `CannotConnect` (one line: what, where, what to do) when it cannot be opened."""
    scheme = urlparse(url).scheme
    if scheme == "sqlite":
        path = sqlite_path(url)
        try:
            return SqliteDatabase(path, sqlite_synchronous)
        except (OSError, sqlite3.DatabaseError) as e:
            raise connect_failure.sqlite_failure(url, path, e) from e
    if scheme in ("postgres", "postgresql"):
        try:
            return await PostgresDatabase.connect(url)
        except Exception as e:
            refusal = connect_failure.postgres_failure(url, e)
            if refusal is None:
                raise
            raise refusal from e
    raise CannotConnect(
        f"unsupported database URL scheme {scheme!r} in {connect_failure.safe_url(url)}: use sqlite:///path or "
        "postgresql://user@host:5432/db (--database or PLATFORM_API_DATABASE_URL)"
    )
