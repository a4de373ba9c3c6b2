"""The authorizer's cache is exactly as fresh as the database, in-process on both backends: a change of
grants made by this process is seen at once (Runtime.grants_changed -> Authorizer.invalidate), one made on
another connection (another process) at the next `sync`; bindings, role capabilities and identities alike."""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from platform_api import iam
from platform_api.auth import capabilities as caps
from platform_api.auth.authz import Authorizer, Principal
from platform_api.auth.tokens import AccessClaims
from platform_api.core import clock, errors, uidp
from platform_api.core.settings import Settings
from platform_api.gen.records.iam_v2 import Group, Identity
from platform_api.iam import identities, queries, roles
from platform_api.service.runtime import Runtime
from platform_api.store import db as store
from platform_api.store import rows
from platform_api.store.migrate import migrate
from tests.helpers import scratch_database

VIEWER = caps.BUILTIN_BY_NAME["viewer"]
EDITOR = caps.BUILTIN_BY_NAME["editor"]


class World:
    """An organization with a sub-group and one identity, written straight to the database."""

    def __init__(self, db: Any) -> None:
        self.db = db
        self.org = secrets.token_hex(20)
        self.team = uidp.new_child(self.org)
        self.other_org = secrets.token_hex(20)
        self.who = secrets.token_hex(20)

    async def create(self) -> None:
        await roles.seed_builtin(self.db)
        now = clock.now()
        async with self.db.transaction() as tx:
            for uid, parent in ((self.org, ""), (self.team, self.org), (self.other_org, "")):
                g = Group(uid=uid, name="g-" + secrets.token_hex(3), create_time=now, update_time=now)
                await tx.execute(
                    "INSERT INTO groups (uid, parent, name, create_time, update_time, body)"
                    " VALUES ($1, $2, $3, $4, $5, $6)",
                    uid, parent, g.name, now, now, rows.body(g),
                )  # fmt: skip
            who = Identity(uid=self.who, name="who", create_time=now, update_time=now)
            await identities.insert(tx, who, "")

    async def bind(self, db: Any, group: str, role: str) -> str:
        async with db.transaction() as tx:
            rb = await queries.insert_role_binding(tx, group, self.who, role, clock.now())
        return rb.uid

    def claims(self) -> AccessClaims:
        return AccessClaims(subject=self.who, expires=time.time() + 600)


def run(backend: str, tmp: Path, body: Callable[[Any, Any, World], Awaitable[None]]) -> None:
    """`body(db, other, world)`: `db` is this process's database, `other` a second connection to the same
    database (what another server process writes through)."""
    with scratch_database(backend, tmp) as url:

        async def go() -> None:
            db = await store.connect(url)
            other = await store.connect(url)
            try:
                await migrate(db)
                world = World(db)
                await world.create()
                await body(db, other, world)
            finally:
                await other.close()
                await db.close()

        asyncio.run(go())


async def decide(authz: Authorizer, world: World, sync: bool = True) -> Principal:
    if sync:
        await authz.sync()
    return await authz.principal(world.claims())


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_grants_changed_in_this_process_apply_to_the_next_decision(backend: str, tmp_path: Path) -> None:
    async def body(db: Any, other: Any, w: World) -> None:
        authz = Authorizer(db, iam.GRANTS)
        rt = Runtime(Settings(), db)
        rt.on_grants_changed.append(authz.invalidate)
        p = await decide(authz, w)
        assert p.held_at(w.org) == 0 and p.held_at(w.team) == 0
        epoch = authz.epoch

        binding = await w.bind(db, w.org, VIEWER.uid)
        rt.grants_changed()
        assert authz.epoch > epoch  # a Principal built before is known to be stale
        # No sync in between: the callback alone makes the very next decision read the new binding.
        p = await decide(authz, w, sync=False)
        assert p.holds(VIEWER.capabilities, w.org) and p.holds(VIEWER.capabilities, w.team)
        assert not p.holds(EDITOR.capabilities, w.team)
        assert p.held_at(w.other_org) == 0

        await db.execute("DELETE FROM role_bindings WHERE uid = $1", binding)
        rt.grants_changed()
        p = await decide(authz, w, sync=False)
        assert p.held_at(w.org) == 0
        with pytest.raises(errors.ApiError) as info:
            p.require(VIEWER.capabilities, w.team, "chainguard.platform.iam.v2.Group")
        assert info.value.code == errors.NOT_FOUND

    run(backend, tmp_path, body)


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_without_grants_changed_the_cache_answers_until_sync(backend: str, tmp_path: Path) -> None:
    """The cache is what makes the callback necessary: a decision without a sync or an invalidation
    reuses the grants it read, and the next sync catches up through the authorization version."""

    async def body(db: Any, other: Any, w: World) -> None:
        authz = Authorizer(db, iam.GRANTS)
        await authz.start()
        try:
            assert (await decide(authz, w)).held_at(w.team) == 0
            await w.bind(db, w.team, EDITOR.uid)
            assert (await decide(authz, w, sync=False)).held_at(w.team) == 0
            p = await decide(authz, w)
            assert p.holds(EDITOR.capabilities, w.team) and p.held_at(w.org) == 0
        finally:
            await authz.stop()

    run(backend, tmp_path, body)


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_changes_from_another_connection_are_seen_at_the_next_sync(backend: str, tmp_path: Path) -> None:
    """Another process changes a binding, a role's capabilities, then deletes the identity: each is in
    effect at this process's next sync (SQLite: data_version; PostgreSQL: NOTIFY or the version row)."""

    async def body(db: Any, other: Any, w: World) -> None:
        authz = Authorizer(db, iam.GRANTS)
        await authz.start()
        try:
            assert (await decide(authz, w)).held_at(w.org) == 0
            now = clock.now()
            role = uidp.new_child(w.org)
            await other.execute(
                "INSERT INTO roles (uid, parent, name, create_time, update_time, body, capabilities)"
                " VALUES ($1, $2, 'custom', $3, $3, '{}', $4)",
                role, w.org, now, "CAP_REPO_LIST",
            )  # fmt: skip
            await w.bind(other, w.org, role)
            list_repos = caps.mask(["CAP_REPO_LIST"])
            create_repo = caps.mask(["CAP_REPO_CREATE"])
            p = await wait_for(authz, w, lambda p: p.holds(list_repos, w.team))
            assert not p.holds(create_repo, w.team)

            await other.execute(
                "UPDATE roles SET capabilities = $2 WHERE uid = $1", role, "CAP_REPO_LIST,CAP_REPO_CREATE"
            )
            await wait_for(authz, w, lambda p: p.holds(create_repo, w.team))

            await other.execute("DELETE FROM identities WHERE uid = $1", w.who)
            await authz.sync()
            with pytest.raises(errors.ApiError) as info:
                await authz.principal(w.claims())
            assert info.value.code == errors.UNAUTHENTICATED
        finally:
            await authz.stop()

    run(backend, tmp_path, body)


async def wait_for(authz: Authorizer, w: World, ok: Callable[[Principal], bool]) -> Principal:
    """The first decision that satisfies `ok`, syncing before each; fails after 5 s. (PostgreSQL's NOTIFY
    reaches the listener asynchronously; SQLite sees the commit on the first sync.)"""
    deadline = time.monotonic() + 5
    while True:
        p = await decide(authz, w)
        if ok(p):
            return p
        assert time.monotonic() < deadline, f"grants not refreshed: {p.grants}"
        await asyncio.sleep(0.05)
