"""What the CRUD resources share beyond listing: a name unique under its parent."""

from __future__ import annotations

from dataclasses import dataclass

from platform_api.core import errors
from platform_api.store.db import Conn


@dataclass(frozen=True)
class UniqueName:
    """Rows of `table` whose `name` is unique per `parent` (the database's UNIQUE constraint backs it;
    the check gives the ALREADY_EXISTS answer naming the other resource)."""

    table: str
    resource: str  # chainguard.platform.registry.v2.Repo
    noun: str  # "a repo"
    scope: str  # "in this group"

    def conflict(self, name: str, other: str = "") -> errors.ApiError:
        return errors.already_exists(self.resource, other, f"{self.noun} named {name!r} already exists {self.scope}")

    async def check(self, conn: Conn, parent: str, name: str, uid: str) -> None:
        """ALREADY_EXISTS if another row under `parent` has this name (`uid` is the row being written)."""
        other = await conn.fetchval(f"SELECT uid FROM {self.table} WHERE parent = $1 AND name = $2", parent, name)
        if other is not None and other != uid:
            raise self.conflict(name, other)
