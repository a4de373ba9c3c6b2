"""Row helpers shared by the domains' queries: JSON bodies, dialect differences, conflicts."""

from __future__ import annotations

import sqlite3
from typing import Any, TypeVar

import msgspec

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
