"""What the CRUD resources share beyond listing: a name unique under its parent, and the Create / Update /
Delete shapes over a resource's table, so a resource module is mostly its rules.

A `Resource` is declared by the module that owns its table (domain rule: only the owner has SQL on a
table; see `iam/queries.py`). The statements built here from that declaration are the owner's SQL: every
resource row has `uid`, `parent`, `create_time`, `update_time`, `body` (the record as JSON) and the indexed
columns the owner names (`name`, `sink`, ...).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import msgspec

from platform_api.core import clock, errors, fieldmask, uidp, validate
from platform_api.service import storage
from platform_api.service.context import Context
from platform_api.store import rows
from platform_api.store.db import Conn

# A resource record: a struct with uid, create_time and update_time.
R = TypeVar("R", bound=msgspec.Struct)
# The event of the method being served (`events.outbox.emit`: the domains hand it in, service sits below).
Emit = Callable[[Conn, Context, Any], Awaitable[None]]


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


@dataclass(frozen=True)
class Resource(Generic[R]):
    """One resource's table: `record` rows under `resource` (the API's type name).

    Declared by the module that owns the table (tests/unit/store/test_table_owners.py): the RPC module when
    only it works on the table (iam's groups, roles, identities, ...), the domain's `queries.py` when several
    of its modules do (role bindings and group mappings in iam, repos and tags in registry, subscriptions and
    deliveries in the outbox)."""

    table: str
    record: type[R]
    resource: str
    emit: Emit | None = None  # the RPC shapes take one per call where the declaration cannot name it
    names: UniqueName | None = None
    _sql: dict[tuple[str, ...], str] = field(default_factory=dict, compare=False, repr=False)

    async def get(self, conn: Conn, uid: str, *, lock: bool = False) -> R:
        """The row (NOT_FOUND naming the resource; INVALID_ARGUMENT for a malformed uid)."""
        return await storage.get(conn, self.table, self.record, self.resource, uid, lock=lock)

    def _statement(self, key: tuple[str, ...], build: Callable[[], str]) -> str:
        sql = self._sql.get(key)
        if sql is None:
            sql = self._sql[key] = build()
        return sql

    async def insert(
        self, tx: Conn, record: R, parent: str, *, conflict: Exception | None = None, **columns: Any
    ) -> None:
        """INSERT the record under `parent` with its indexed `columns`; a unique violation raises
        `conflict` (default: the name conflict, else ALREADY_EXISTS naming the uid)."""
        rec: Any = record
        names = ("uid", "parent", "create_time", "update_time", "body", *columns)
        sql = self._statement(
            ("insert", *columns),
            lambda: f"INSERT INTO {self.table} ({', '.join(names)}) VALUES ({rows.marks(len(names))})",
        )
        args = (rec.uid, parent, rec.create_time, rec.update_time, rows.body(record), *columns.values())
        await storage.unique_write(tx, conflict or self._conflict(record), sql, *args)

    async def update(self, tx: Conn, record: R, *, conflict: Exception | None = None, **columns: Any) -> int:
        """UPDATE the row's update_time, body and `columns` from the record."""
        rec: Any = record
        sets = ("update_time", "body", *columns)
        sql = self._statement(
            ("update", *columns),
            lambda: (
                f"UPDATE {self.table} SET {', '.join(f'{c} = ${i + 2}' for i, c in enumerate(sets))} WHERE uid = $1"
            ),
        )
        args = (rec.uid, rec.update_time, rows.body(record), *columns.values())
        return await storage.unique_write(tx, conflict or self._conflict(record), sql, *args)

    def _conflict(self, record: R) -> Exception:
        name = getattr(record, "name", None)
        if self.names is not None and isinstance(name, str):
            return self.names.conflict(name)
        uid = getattr(record, "uid", "")
        return errors.already_exists(self.resource, uid, f"{uid} already exists")

    async def delete(self, tx: Conn, uid: str) -> bool:
        """DELETE the row; whether there was one."""
        sql = self._statement(("delete",), lambda: f"DELETE FROM {self.table} WHERE uid = $1")
        return bool(await tx.execute(sql, uid))

    async def any_where(self, conn: Conn, column: str, value: str) -> bool:
        """Whether some row has `value` in `column` (e.g. a child under a group: "parent")."""
        sql = self._statement(("any", column), lambda: f"SELECT 1 FROM {self.table} WHERE {column} = $1 LIMIT 1")
        return await conn.fetchval(sql, value) is not None

    async def delete_where(self, tx: Conn, column: str, value: str) -> None:
        """DELETE the rows with `value` in `column` (what goes with a deleted group, identity, provider)."""
        sql = self._statement(("delete", column), lambda: f"DELETE FROM {self.table} WHERE {column} = $1")
        await tx.execute(sql, value)

    async def delete_descendants(self, tx: Conn, uid: str) -> None:
        """DELETE the rows below `uid` (a deleted parent's children: a repo's tags, a subscription's
        deliveries)."""
        lo, hi = uidp.descendant_range(uid)
        sql = self._statement(("descendants",), lambda: f"DELETE FROM {self.table} WHERE uid > $1 AND uid < $2")
        await tx.execute(sql, lo, hi)

    async def create(
        self,
        tx: Conn,
        record: R,
        parent: str,
        *,
        require: Callable[[Conn], Awaitable[None]] | None = None,
        columns: dict[str, Any] | None = None,
        conflict: Exception | None = None,
    ) -> None:
        """Insert a validated record under `parent` inside `tx`: `require` (the parent exists, locked), the
        name checked, the row inserted with `columns`. No event: the caller's (create_rpc, a data plane)."""
        if require is not None:
            await require(tx)
        name = getattr(record, "name", None)
        if self.names is not None and isinstance(name, str):
            await self.names.check(tx, parent, name, getattr(record, "uid", ""))
        await self.insert(tx, record, parent, conflict=conflict, **(columns or {}))

    # ------------------------------------------------------------------ the RPC shapes

    async def create_rpc(
        self,
        ctx: Context,
        record: R,
        parent: str,
        *,
        require: Callable[[Conn], Awaitable[None]] | None = None,
        columns: dict[str, Any] | None = None,
        conflict: Exception | None = None,
        emit: Emit | None = None,
    ) -> R:
        """CreateX of a validated record under `parent`: `require` (the parent exists, locked), the name
        checked, the row inserted with `columns`, the event emitted."""
        async with ctx.rt.db.transaction() as tx:
            await self.create(tx, record, parent, require=require, columns=columns, conflict=conflict)
            await self._emitter(emit)(tx, ctx, record)
        return record

    async def update_rpc(
        self,
        ctx: Context,
        patch: R,
        mask: str | None,
        updatable: frozenset[str],
        *,
        check: Callable[[R], None] = lambda _: None,
        columns: Callable[[R], dict[str, Any]] = lambda _: {},
        before: Callable[[Conn, R, R], Awaitable[None]] | None = None,
        after: Callable[[Conn, R, R], Awaitable[None]] | None = None,
        emit: Emit | None = None,
        check_name: bool = True,
    ) -> R:
        """UpdateX: the row locked, the mask applied, `check`ed; unchanged answers as is; otherwise the name
        checked (when it changed), `before`, the row written with `columns`, `after`, the event emitted."""
        async with ctx.rt.db.transaction() as tx:
            current = await self.get(tx, getattr(patch, "uid", ""), lock=True)
            new: Any = fieldmask.apply(current, patch, mask, updatable)
            check(new)
            if new == current:
                return current
            name = getattr(new, "name", None)
            changed = name != getattr(current, "name", None)
            if check_name and self.names is not None and isinstance(name, str) and changed:
                await self.names.check(tx, uidp.parent(new.uid), name, new.uid)
            if before is not None:
                await before(tx, current, new)
            new.update_time = clock.now()
            await self.update(tx, new, **columns(new))
            if after is not None:
                await after(tx, current, new)
            await self._emitter(emit)(tx, ctx, new)
        result: R = new
        return result

    async def delete_rpc(
        self,
        ctx: Context,
        req: Any,
        *,
        missing_ok: bool = False,
        children: tuple[Callable[[Conn, str], Awaitable[None]], ...] = (),
        emit: Emit | None = None,
    ) -> bool:
        """DeleteX of `req.uid`: NOT_FOUND when there is no such row (or, `missing_ok`, success without an
        event); the `children` cleanups run in the same transaction. Whether a row was deleted."""
        validate.uid(req.uid)
        async with ctx.rt.db.transaction() as tx:
            if not await self.delete(tx, req.uid):
                if missing_ok:
                    return False
                raise errors.not_found(self.resource, req.uid)
            for child in children:
                await child(tx, req.uid)
            await self._emitter(emit)(tx, ctx, req)
        return True

    def _emitter(self, emit: Emit | None) -> Emit:
        found = emit or self.emit
        assert found is not None, f"{self.resource}: no event emitter"
        return found
