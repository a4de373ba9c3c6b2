"""The one place where storage errors become API errors (same codes, messages and details as the
domains raised before storage had errors of its own).

Domains call these instead of `store.rows.get` / `store.rows.unique_write` when a missing row or a
unique violation is the caller's error.
"""

from __future__ import annotations

from typing import Any, TypeVar

from platform_api.core import errors, validate
from platform_api.store import Conflict, NotFound, Unavailable, rows
from platform_api.store.db import Conn

T = TypeVar("T")


async def get(conn: Conn, table: str, record: type[T], resource: str, uid: str, *, lock: bool = False) -> T:
    """`rows.get` of a valid uid (INVALID_ARGUMENT otherwise); NOT_FOUND naming `resource` (the API's type
    name) and `uid` when there is no such row."""
    validate.uid(uid)
    try:
        return await rows.get(conn, table, record, uid, lock=lock)
    except NotFound:
        raise errors.not_found(resource, uid) from None


def refused(e: Unavailable) -> errors.ApiError:
    """The answer to a request the store could not take: 503 UNAVAILABLE with `Retry-After`, its ErrorInfo
    reason saying what became of the request (NOTHING_STORED, or COMMIT_OUTCOME_UNKNOWN). Every route answers
    it so, the RPCs (api/dispatch) and the routes beside them (token exchange, registry, documents)."""
    return errors.unavailable(str(e), reason=e.reason)


async def unique_write(conn: Conn, conflict: Exception, sql: str, *args: Any) -> int:
    """`rows.unique_write`; a unique violation raises `conflict` (an API error) instead."""
    try:
        return await rows.unique_write(conn, sql, *args)
    except Conflict:
        raise conflict from None
