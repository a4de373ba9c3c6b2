"""Storage: the database engine (`db`), row helpers (`rows`), migrations, and the errors storage raises."""

from platform_api.store.errors import Conflict, NotFound, StorageError, Unavailable

__all__ = ["Conflict", "NotFound", "StorageError", "Unavailable"]
