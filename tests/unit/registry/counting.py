"""A database wrapper that records every statement it is asked to run: the structural bound of a read (the
queries it makes, the values they name) asserted instead of its time."""

from __future__ import annotations

from typing import Any


class Counting:
    """Passes everything to `db`, recording (sql, args) of each statement."""

    def __init__(self, db: Any) -> None:
        self.db = db
        self.lock_suffix, self.index_hints = db.lock_suffix, db.index_hints
        self.statements: list[tuple[str, tuple[Any, ...]]] = []

    def on(self, table: str) -> list[tuple[str, tuple[Any, ...]]]:
        """The statements reading `table`."""
        return [(sql, args) for sql, args in self.statements if f" {table} " in f"{sql} "]

    async def fetch(self, sql: str, *args: Any) -> Any:
        self.statements.append((sql, args))
        return await self.db.fetch(sql, *args)

    async def fetchrow(self, sql: str, *args: Any) -> Any:
        self.statements.append((sql, args))
        return await self.db.fetchrow(sql, *args)

    async def fetchval(self, sql: str, *args: Any) -> Any:
        self.statements.append((sql, args))
        return await self.db.fetchval(sql, *args)

    async def fetchtuples(self, sql: str, *args: Any) -> Any:
        self.statements.append((sql, args))
        return await self.db.fetchtuples(sql, *args)

    async def execute(self, sql: str, *args: Any) -> Any:
        self.statements.append((sql, args))
        return await self.db.execute(sql, *args)
