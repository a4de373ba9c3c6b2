"""What storage raises: facts about rows, not API errors (the service layer maps them, `service.storage`)."""

from __future__ import annotations


class StorageError(Exception):
    """Base of the errors the store raises on purpose."""


class NotFound(StorageError):
    """No row under `key` in `table`."""

    def __init__(self, table: str, key: str) -> None:
        super().__init__(f"no row {key!r} in {table}")
        self.table = table
        self.key = key


class Conflict(StorageError):
    """A write violated a unique constraint of `table`."""

    def __init__(self, table: str = "") -> None:
        super().__init__(f"unique constraint violated{' in ' + table if table else ''}")
        self.table = table


class Unavailable(StorageError):
    """The store could not take this write now and kept none of it (a lost group commit, another process
    holding the SQLite write lock past the busy timeout): a retry may succeed. Answered as UNAVAILABLE."""
