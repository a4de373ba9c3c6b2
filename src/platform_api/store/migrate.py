"""Versioned schema migrations: numbered SQL files per dialect, applied in order, each exactly once.

Applied by `platform-api migrate` and at every start. On PostgreSQL an advisory lock serializes
processes starting together. On SQLite (several `serve --workers` start together on a new file) each
migration runs in a `BEGIN IMMEDIATE` transaction that first records its version: a process that lost the
race finds the version taken, rolls back, and skips it.
"""

from __future__ import annotations

import contextlib
import sqlite3
from importlib import resources

from platform_api.core import clock
from platform_api.store.db import PostgresDatabase, SqliteDatabase

_LOCK_ID = 0x706C6174  # arbitrary, constant: "plat"


def migrations(dialect: str) -> list[tuple[int, str, str]]:
    folder = resources.files("platform_api.store") / "migrations" / dialect
    out = []
    for entry in folder.iterdir():
        if entry.name.endswith(".sql"):
            out.append((int(entry.name.split("_", 1)[0]), entry.name, entry.read_text()))
    return sorted(out)


async def migrate(db: SqliteDatabase | PostgresDatabase) -> list[str]:
    """Apply pending migrations; returns the names applied."""
    if isinstance(db, PostgresDatabase):
        async with db.advisory_lock(_LOCK_ID):
            return await _apply(db)
    return await _apply(db)


async def _apply(db: SqliteDatabase | PostgresDatabase) -> list[str]:
    await db.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL,"
        " applied_at TEXT NOT NULL)"
    )
    done = {row["version"] for row in await db.fetch("SELECT version FROM schema_migrations")}
    applied = []
    for version, name, sql in migrations(db.dialect):
        if version in done:
            continue
        # Each migration and its bookkeeping row commit together; the row comes first, so that on SQLite a
        # second process applying the same version fails before running any of it.
        begin = "BEGIN IMMEDIATE" if db.dialect == "sqlite" else "BEGIN"
        record = f"INSERT INTO schema_migrations VALUES ({version}, '{name}', '{clock.now()}')"
        try:
            await db.executescript(f"{begin};\n{record};\n{sql}\nCOMMIT;")
        except sqlite3.IntegrityError:
            await _rollback(db)
            if await db.fetchval("SELECT 1 FROM schema_migrations WHERE version = $1", version) is None:
                raise
            continue  # applied by another process meanwhile
        applied.append(name)
    return applied


async def _rollback(db: SqliteDatabase | PostgresDatabase) -> None:
    with contextlib.suppress(sqlite3.OperationalError):  # no transaction was open
        await db.executescript("ROLLBACK;")
