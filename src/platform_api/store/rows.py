"""Row helpers shared by the domains' queries: JSON bodies, row locks, missing rows, unique conflicts."""

from __future__ import annotations

import sqlite3
from typing import Any, TypeVar

import msgspec

from platform_api.store.db import Conn
from platform_api.store.errors import Conflict, NotFound

T = TypeVar("T")
encode = msgspec.json.Encoder().encode


_decoders: dict[type, msgspec.json.Decoder[Any]] = {}


def decode(t: type[T], body: str | bytes) -> T:
    dec = _decoders.get(t)
    if dec is None:
        dec = _decoders[t] = msgspec.json.Decoder(t)
    result: T = dec.decode(body)
    return result


def body(record: Any) -> str:
    return encode(record).decode()


async def get(conn: Conn, table: str, record: type[T], uid: str, *, lock: bool = False) -> T:
    """The record stored under `uid` in `table`; `NotFound` when there is none. `lock` holds the row until
    the transaction ends (read-modify-write)."""
    body = await conn.fetchval(f"SELECT body FROM {table} WHERE uid = $1" + (conn.lock_suffix if lock else ""), uid)
    if body is None:
        raise NotFound(table, uid)
    return decode(record, body)


def marks(count: int, first: int = 1) -> str:
    """The placeholders `$first, ..., $(first + count - 1)` of a VALUES list. (A list of values to match is
    one argument instead, `column = ANY($n)`: see store.db.)"""
    return ", ".join(f"${i}" for i in range(first, first + count))


async def bodies(conn: Conn, table: str, uids: set[str]) -> dict[str, str]:
    """uid -> stored body of the rows of `table` among `uids` that exist."""
    if not uids:
        return {}
    found = await conn.fetch(f"SELECT uid, body FROM {table} WHERE uid = ANY($1)", list(uids))
    return {r["uid"]: r["body"] for r in found}


def for_update(conn: Conn) -> str:
    """Row lock suffix for read-modify-write (SQLite's single writer already serializes)."""
    return conn.lock_suffix


async def unique_write(conn: Conn, sql: str, *args: Any) -> int:
    """Execute a write that a unique constraint guards; a violation raises `Conflict`."""
    try:
        return await conn.execute(sql, *args)
    except Exception as e:
        if is_unique_violation(e):
            raise Conflict() from None
        raise


def is_unique_violation(exc: BaseException) -> bool:
    if isinstance(exc, sqlite3.IntegrityError):
        return "UNIQUE" in str(exc)
    return type(exc).__name__ == "UniqueViolationError"
