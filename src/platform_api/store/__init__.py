"""Storage: the database engine (`db`), row helpers (`rows`), migrations, and the errors storage raises."""

from platform_api.store.errors import Conflict, NotFound, OutcomeUnknown, StorageError, Unavailable

__all__ = ["Conflict", "NotFound", "OutcomeUnknown", "StorageError", "Unavailable"]
