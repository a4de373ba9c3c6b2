"""What happens to the things kept under a resource that is being deleted, declared by their owners.

A group, a role or an identity has dependents in tables other modules (and other domains) own: child
resources that must go first (repos in a group: the delete is refused, naming them), and rows that belong to
it and go with it (role bindings of a deleted identity; advisories imported into a deleted group). The owner
of each such table declares a `Cascade` naming the kind of parent, and its package lists it in its `Domain`;
`app` collects every domain's, so the deleting module runs them all without naming a table it does not own
and without depending on which modules happen to be imported.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Literal

from platform_api.store.db import Conn

Parent = Literal["group", "role", "identity", "identity_provider"]


@dataclass(frozen=True)
class Cascade:
    """Rows of one owner under a parent of kind `of`: `blocks` (the delete is refused while `exists` says
    there are some; `label` names them in the message) or else they are removed with it (`remove`)."""

    of: Parent
    label: str
    exists: Callable[[Conn, str], Awaitable[bool]] | None = None
    remove: Callable[[Conn, str], Awaitable[None]] | None = None

    @property
    def blocks(self) -> bool:
        return self.exists is not None


class Cascades:
    """Every domain's cascades (a Runtime part, set by the app)."""

    def __init__(self, cascades: Iterable[Cascade]) -> None:
        self.all = tuple(cascades)
        for c in self.all:
            if (c.exists is None) == (c.remove is None):
                raise ValueError(f"cascade {c.label!r} of {c.of} must either block or remove")

    async def blocking(self, conn: Conn, of: Parent, uid: str) -> list[str]:
        """The labels of what still keeps `uid` from being deleted, in declaration order."""
        return [c.label for c in self.all if c.of == of and c.exists is not None and await c.exists(conn, uid)]

    async def remove(self, tx: Conn, of: Parent, uid: str) -> None:
        """Remove, inside `tx`, everything that goes with `uid`."""
        for c in self.all:
            if c.of == of and c.remove is not None:
                await c.remove(tx, uid)
