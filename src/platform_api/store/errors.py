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


# What became of a request the store refused (the ErrorInfo reason of its 503: docs/reference/behaviour.md).
NOTHING_STORED = "NOTHING_STORED"
COMMIT_OUTCOME_UNKNOWN = "COMMIT_OUTCOME_UNKNOWN"


class Unavailable(StorageError):
    """The store could not take this request now and kept none of it (the database unreachable, a connection
    lost before COMMIT, a lost SQLite group commit, another process holding the SQLite write lock past the busy
    timeout): the same request may be sent again. Answered as 503 UNAVAILABLE, reason NOTHING_STORED."""

    reason = NOTHING_STORED

    def __init__(self, message: str) -> None:
        super().__init__(f"{message}; nothing of this request was stored: send it again")


class OutcomeUnknown(Unavailable):
    """The connection to the database was lost while a write was committing (or while a write statement ran
    outside a transaction): PostgreSQL may have committed it or not, and nobody can tell from here. Answered as
    503 UNAVAILABLE, reason COMMIT_OUTCOME_UNKNOWN: a client reads before it writes again (a create sent again
    answers ALREADY_EXISTS where its name is unique)."""

    reason = COMMIT_OUTCOME_UNKNOWN

    def __init__(self, message: str) -> None:
        StorageError.__init__(
            self, f"{message}; the change may or may not be stored: read it back before sending it again"
        )


class CannotConnect(StorageError):
    """The database could not be opened at all (unreachable, missing, refused the login, a SQLite path that
    cannot be created): the message is one line for the operator, what failed, where and what to do
    (`store.connect_failure`)."""
