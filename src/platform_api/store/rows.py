"""Row helpers shared by the domains' queries: JSON bodies, dialect differences, conflicts."""

from __future__ import annotations

import sqlite3
from typing import Any, TypeVar

import msgspec

from platform_api.core import errors, validate
from platform_api.store.db import Conn

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


async def get(conn: Conn, table: str, record: type[T], resource: str, uid: str, *, lock: bool = False) -> T:
    """The record stored under `uid` in `table`; NOT_FOUND naming `resource` when there is none. `lock` holds
    the row until the transaction ends (read-modify-write)."""
    validate.uid(uid)
    body = await conn.fetchval(f"SELECT body FROM {table} WHERE uid = $1" + (for_update(conn) if lock else ""), uid)
    if body is None:
        raise errors.not_found(resource, uid)
    return decode(record, body)


def for_update(conn: Conn) -> str:
    """Row lock suffix for read-modify-write (SQLite's single writer already serializes)."""
    return " FOR UPDATE" if conn.dialect == "postgres" else ""


async def unique_write(conn: Conn, conflict: Exception, sql: str, *args: Any) -> int:
    """Execute a write that a unique constraint guards; a violation raises `conflict` instead."""
    try:
        return await conn.execute(sql, *args)
    except Exception as e:
        if is_unique_violation(e):
            raise conflict from None
        raise


def is_unique_violation(exc: BaseException) -> bool:
    if isinstance(exc, sqlite3.IntegrityError):
        return "UNIQUE" in str(exc)
    return type(exc).__name__ == "UniqueViolationError"
