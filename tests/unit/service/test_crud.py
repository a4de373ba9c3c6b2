"""service/crud.py in-process, on a scratch SQLite and PostgreSQL database: a `Resource` over the repos and
tags tables (with a recording event emitter instead of the outbox) — its statements, the name checks and the
database's own unique constraint, the Create / Update / Delete shapes with their hooks, field masks and
events, and that each shape is one transaction (a failing hook or emitter leaves nothing behind)."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from platform_api.core import errors, uidp
from platform_api.core.settings import Settings
from platform_api.gen.records.registry_v2 import DeleteRepoRequest, Repo, Tag
from platform_api.service import crud
from platform_api.service.context import Context
from platform_api.service.runtime import Runtime
from platform_api.store import rows
from platform_api.store.migrate import migrate
from tests.helpers import run_db, scratch_database

REPO = "chainguard.platform.registry.v2.Repo"
TAG = "chainguard.platform.registry.v2.Tag"
UPDATABLE = frozenset({"name", "description", "aliases"})
NOW = "2026-01-01T00:00:00.000Z"
DIGEST = "sha256:" + "a" * 64


@dataclass
class Emitted:
    """The events a shape emitted, (record, whether the row it describes was visible in the transaction)."""

    events: list[tuple[Any, bool]] = field(default_factory=list)
    fail: bool = False

    async def __call__(self, tx: Any, ctx: Context, record: Any) -> None:
        seen = await tx.fetchval("SELECT COUNT(*) FROM repos WHERE uid = $1", record.uid)
        self.events.append((record, bool(seen)))
        if self.fail:
            raise RuntimeError("the emitter failed")


def resources(emitted: Emitted) -> tuple[crud.Resource[Repo], crud.Resource[Tag]]:
    names = crud.UniqueName("repos", REPO, "a repo", "in this group")
    # Fresh declarations per test: each caches its own statements.
    return crud.Resource("repos", Repo, REPO, emitted, names), crud.Resource("tags", Tag, TAG, emitted)


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def url(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with scratch_database(request.param, tmp_path_factory.mktemp("crud")) as u:
        run_db(u, migrate)
        yield u


def run(url: str, test: Any) -> None:
    """`test(ctx)` with a Context on the database at `url`."""

    async def go(database: Any) -> None:
        await test(Context("test.v1.Service/Method", Runtime(Settings(), database)))

    run_db(url, go)


def repo(org: str, name: str = "", **fields: Any) -> Repo:
    return Repo(uid=uidp.new_child(org), name=name or "r-" + secrets.token_hex(3), create_time=NOW, update_time=NOW,
                **fields)  # fmt: skip


async def stored(conn: Any, uid: str) -> tuple[str, str, Repo] | None:
    """(parent, name column, record) of the repos row, as `conn` sees it."""
    row = await conn.fetchrow("SELECT parent, name, body FROM repos WHERE uid = $1", uid)
    return None if row is None else (row["parent"], row["name"], rows.decode(Repo, row["body"]))


async def name_of(conn: Any, uid: str) -> str:
    found = await stored(conn, uid)
    assert found is not None, uid
    return found[1]


def api_error(e: pytest.ExceptionInfo[errors.ApiError], code: int) -> dict[str, Any]:
    """The error's code, and its one ResourceInfo (or BadRequest) detail."""
    assert e.value.code == code, e.value.message
    (detail,) = e.value.details
    return dict(detail)


def test_insert_get_and_the_statements_each_shape_builds_once(url: str) -> None:
    emitted = Emitted()
    repos, tags = resources(emitted)
    org = uidp.new_root()

    async def go(ctx: Context) -> None:
        r = repo(org, description="d")
        async with ctx.rt.db.transaction() as tx:
            await repos.insert(tx, r, org, name=r.name)
        assert await repos.get(ctx.rt.db, r.uid) == r
        assert await stored(ctx.rt.db, r.uid) == (org, r.name, r)
        async with ctx.rt.db.transaction() as tx:
            changed = Repo(uid=r.uid, name="renamed", create_time=NOW, update_time="2026-01-02T00:00:00.000Z")
            assert await repos.update(tx, changed, name="renamed") == 1
            assert await repos.update(tx, repo(org), name="x") == 0  # no such row: nothing written
        assert await stored(ctx.rt.db, r.uid) == (org, "renamed", changed)
        # One statement per shape and set of indexed columns, built on first use.
        assert sorted(repos._sql) == [("insert", "name"), ("update", "name")]
        insert = repos._sql[("insert", "name")]
        assert insert.startswith("INSERT INTO repos (uid, parent, create_time, update_time, body, name) VALUES")
        async with ctx.rt.db.transaction() as tx:
            await repos.insert(tx, repo(org), org, name="second")
            assert await repos.delete(tx, r.uid) and not await repos.delete(tx, r.uid)
        assert repos._sql[("insert", "name")] is insert and ("delete",) in repos._sql
        assert emitted.events == [] and tags._sql == {}  # the storage shapes emit nothing

    run(url, go)


def test_get_answers_not_found_and_invalid_argument(url: str) -> None:
    repos, _ = resources(Emitted())
    missing = uidp.new_child(uidp.new_root())

    async def go(ctx: Context) -> None:
        with pytest.raises(errors.ApiError) as e:
            await repos.get(ctx.rt.db, missing)
        info = api_error(e, errors.NOT_FOUND)
        assert (info["resourceType"], info["resourceName"]) == (REPO, missing)
        with pytest.raises(errors.ApiError) as e:
            await repos.get(ctx.rt.db, "not-a-uid")
        assert e.value.code == errors.INVALID_ARGUMENT

    run(url, go)


def test_create_checks_the_name_requires_the_parent_and_emits_in_the_transaction(url: str) -> None:
    emitted = Emitted()
    repos, _ = resources(emitted)
    org, other_org = uidp.new_root(), uidp.new_root()

    async def go(ctx: Context) -> None:
        first = await repos.create_rpc(ctx, repo(org, "nginx"), org, columns={"name": "nginx"})
        assert emitted.events == [(first, True)]  # emitted after the insert, inside its transaction
        # Another repo of that name in the same group: ALREADY_EXISTS naming the one that exists.
        with pytest.raises(errors.ApiError) as e:
            await repos.create_rpc(ctx, repo(org, "nginx"), org, columns={"name": "nginx"})
        info = api_error(e, errors.ALREADY_EXISTS)
        assert (
            info["resourceName"] == first.uid
            and "a repo named 'nginx' already exists in this group" in (info["description"])
        )
        # The same name in another group is another repo.
        await repos.create_rpc(ctx, repo(other_org, "nginx"), other_org, columns={"name": "nginx"})
        # `require` runs first: its refusal writes and emits nothing.
        calls: list[str] = []

        async def parent_missing(tx: Any) -> None:
            calls.append("require")
            raise errors.not_found("chainguard.platform.iam.v2.Group", org)

        refused = repo(org, "redis")
        with pytest.raises(errors.ApiError):
            await repos.create_rpc(ctx, refused, org, require=parent_missing, columns={"name": "redis"})
        assert calls == ["require"] and await stored(ctx.rt.db, refused.uid) is None
        assert len(emitted.events) == 2
        # An emitter that fails takes the insert with it.
        emitted.fail = True
        lost = repo(org, "lost")
        with pytest.raises(RuntimeError):
            await repos.create_rpc(ctx, lost, org, columns={"name": "lost"})
        assert await stored(ctx.rt.db, lost.uid) is None
        # An emitter given per call wins over the declared one; none at all is a programming error.
        per_call = Emitted()
        r = repo(org)
        made = await repos.create_rpc(ctx, r, org, columns={"name": r.name}, emit=per_call)
        assert per_call.events == [(made, True)]
        bare = crud.Resource("repos", Repo, REPO)
        with pytest.raises(AssertionError, match="no event emitter"):
            await bare.create_rpc(ctx, repo(org, "unheard"), org, columns={"name": "unheard"})

    run(url, go)


def test_the_databases_unique_constraint_answers_like_the_check(url: str) -> None:
    """Two creations racing past the check meet the UNIQUE constraint: the same ALREADY_EXISTS (without
    the other uid, which the writer cannot know), or ALREADY_EXISTS naming the uid for an unnamed resource."""
    repos, _ = resources(Emitted())
    unnamed = crud.Resource("repos", Repo, REPO, Emitted())
    org = uidp.new_root()

    async def go(ctx: Context) -> None:
        await repos.create_rpc(ctx, repo(org, "taken"), org, columns={"name": "taken"})
        async with ctx.rt.db.transaction() as tx:
            with pytest.raises(errors.ApiError) as e:
                await repos.insert(tx, repo(org, "taken"), org, name="taken")  # as if the check had raced
        info = api_error(e, errors.ALREADY_EXISTS)
        assert info["resourceName"] == "" and "named 'taken' already exists" in info["description"]
        again = repo(org, "taken")
        async with ctx.rt.db.transaction() as tx:
            with pytest.raises(errors.ApiError) as e:
                await unnamed.insert(tx, again, org, name="taken")
        info = api_error(e, errors.ALREADY_EXISTS)
        assert (info["resourceName"], info["description"]) == (again.uid, f"{again.uid} already exists")
        # A conflict given by the caller replaces both.
        own = errors.already_exists(REPO, "x", "its own words")
        async with ctx.rt.db.transaction() as tx:
            with pytest.raises(errors.ApiError) as e:
                await repos.insert(tx, repo(org, "taken"), org, conflict=own, name="taken")
        assert e.value is own

    run(url, go)


def test_update_applies_the_mask_checks_and_runs_the_hooks_in_order(url: str) -> None:
    emitted = Emitted()
    repos, _ = resources(emitted)
    org = uidp.new_root()

    async def go(ctx: Context) -> None:
        r = await repos.create_rpc(ctx, repo(org, "web", description="old", aliases=["a:1"]), org,
                                   columns={"name": "web"})  # fmt: skip
        await repos.create_rpc(ctx, repo(org, "taken"), org, columns={"name": "taken"})
        emitted.events.clear()
        seen: list[tuple[str, str, str]] = []

        async def before(tx: Any, current: Repo, new: Repo) -> None:
            seen.append(("before", current.description, new.description))

        async def after(tx: Any, current: Repo, new: Repo) -> None:
            found = await stored(tx, new.uid)  # already written, in the same transaction
            seen.append(("after", current.description, found[2].description if found else ""))

        def shape(**kw: Any) -> dict[str, Any]:
            return {"before": before, "after": after, "columns": lambda x: {"name": x.name}, **kw}

        # The mask names description: the name in the patch is not taken.
        patch = Repo(uid=r.uid, name="ignored", description="new", aliases=[])
        out = await repos.update_rpc(ctx, patch, "description", UPDATABLE, **shape())
        assert (out.name, out.description, out.aliases) == ("web", "new", ["a:1"])
        assert out.create_time == NOW and out.update_time is not None and out.update_time >= NOW
        assert seen == [("before", "old", "new"), ("after", "old", "new")]
        assert emitted.events == [(out, True)] and await repos.get(ctx.rt.db, r.uid) == out
        # Nothing changes: the row as it is, no hook, no write, no event.
        same = await repos.update_rpc(ctx, Repo(uid=r.uid, description="new"), "description", UPDATABLE, **shape())
        assert same == out and len(seen) == 2 and len(emitted.events) == 1
        # Output-only fields of the patch are ignored, under "*" too.
        star = Repo(uid=r.uid, name="web", description="new", aliases=["a:1"], create_time="2000-01-01T00:00:00Z")
        assert await repos.update_rpc(ctx, star, "*", UPDATABLE, **shape()) == out
        # A rename onto a taken name: ALREADY_EXISTS naming the other repo, nothing written.
        with pytest.raises(errors.ApiError) as e:
            await repos.update_rpc(ctx, Repo(uid=r.uid, name="taken"), "name", UPDATABLE, **shape())
        assert api_error(e, errors.ALREADY_EXISTS)["resourceName"] != r.uid
        assert len(seen) == 2 and await name_of(ctx.rt.db, r.uid) == "web"
        # Without the check the database's constraint answers the same code.
        with pytest.raises(errors.ApiError) as e:
            await repos.update_rpc(ctx, Repo(uid=r.uid, name="taken"), "name", UPDATABLE, check_name=False,
                                   columns=lambda x: {"name": x.name})  # fmt: skip
        assert e.value.code == errors.ALREADY_EXISTS

        # `check` sees the merged record and refuses before any write.
        def no_x(new: Repo) -> None:
            if "x" in new.description:
                raise errors.invalid_argument("repo.description", "no x")

        with pytest.raises(errors.ApiError) as e:
            await repos.update_rpc(ctx, Repo(uid=r.uid, description="x"), "description", UPDATABLE, check=no_x,
                                   **shape())  # fmt: skip
        assert e.value.code == errors.INVALID_ARGUMENT and len(seen) == 2
        # An empty mask changes nothing (the transports always hand one: the caller's or the body's keys).
        for empty in (None, ""):
            assert await repos.update_rpc(ctx, Repo(uid=r.uid, name="z"), empty, UPDATABLE, **shape()) == out
        assert len(seen) == 2
        # "*": every updatable field from the patch (empty ones clear), the indexed column follows.
        out = await repos.update_rpc(ctx, Repo(uid=r.uid, name="site"), "*", UPDATABLE, **shape())
        assert (out.name, out.description, out.aliases) == ("site", "", [])
        assert await name_of(ctx.rt.db, r.uid) == "site"
        # An unknown row is NOT_FOUND; a failing `after` undoes the write.
        missing = uidp.new_child(org)
        with pytest.raises(errors.ApiError) as e:
            await repos.update_rpc(ctx, Repo(uid=missing, name="y"), "name", UPDATABLE)
        assert api_error(e, errors.NOT_FOUND)["resourceName"] == missing

        async def failing(tx: Any, current: Repo, new: Repo) -> None:
            raise RuntimeError("after failed")

        with pytest.raises(RuntimeError):
            await repos.update_rpc(ctx, Repo(uid=r.uid, name="gone"), "name", UPDATABLE, after=failing)
        assert await name_of(ctx.rt.db, r.uid) == "site"

    run(url, go)


def test_delete_takes_the_children_and_only_them(url: str) -> None:
    emitted = Emitted()
    repos, tags = resources(emitted)
    org = uidp.new_root()

    async def go(ctx: Context) -> None:
        doomed = await repos.create_rpc(ctx, repo(org, "doomed"), org, columns={"name": "doomed"})
        kept = await repos.create_rpc(ctx, repo(org, "kept"), org, columns={"name": "kept"})
        for parent in (doomed.uid, kept.uid):
            for n in range(3):
                t = Tag(uid=uidp.new_child(parent), name=f"t{n}", digest=DIGEST, create_time=NOW, update_time=NOW)
                async with ctx.rt.db.transaction() as tx:
                    await tags.insert(tx, t, parent, name=t.name, digest=t.digest)
        emitted.events.clear()
        req = DeleteRepoRequest(uid=doomed.uid)
        assert await repos.delete_rpc(ctx, req, children=(tags.delete_descendants,)) is True
        assert emitted.events == [(req, False)]  # emitted after the delete, in its transaction
        left = await ctx.rt.db.fetch("SELECT parent FROM tags WHERE parent IN ($1, $2)", doomed.uid, kept.uid)
        assert [r["parent"] for r in left] == [kept.uid] * 3
        # Gone: NOT_FOUND naming it, or (missing_ok) no error and no event.
        with pytest.raises(errors.ApiError) as e:
            await repos.delete_rpc(ctx, req)
        assert api_error(e, errors.NOT_FOUND) == {"@type": "type.googleapis.com/google.rpc.ResourceInfo",
                                                  "resourceType": REPO, "resourceName": doomed.uid,
                                                  "description": f"{REPO} not found"}  # fmt: skip
        assert await repos.delete_rpc(ctx, req, missing_ok=True) is False and len(emitted.events) == 1
        with pytest.raises(errors.ApiError) as e:
            await repos.delete_rpc(ctx, DeleteRepoRequest(uid=org + "/x"))
        assert e.value.code == errors.INVALID_ARGUMENT

        # A failing cleanup keeps the row.
        async def failing(tx: Any, uid: str) -> None:
            raise RuntimeError("cleanup failed")

        with pytest.raises(RuntimeError):
            await repos.delete_rpc(ctx, DeleteRepoRequest(uid=kept.uid), children=(tags.delete_descendants, failing))
        assert await stored(ctx.rt.db, kept.uid) is not None
        assert len(await ctx.rt.db.fetch("SELECT uid FROM tags WHERE parent = $1", kept.uid)) == 3

    run(url, go)


def test_delete_descendants_is_the_uid_range_and_nothing_beside_it(url: str) -> None:
    """Rows below the uid go; the uid itself, its siblings and a sibling whose uid shares its prefix stay."""
    repos, _ = resources(Emitted())
    org = uidp.new_root()
    group = org + "/" + "1" * 16
    below = [group + "/" + "2" * 16, group + "/" + "2" * 16 + "/" + "3" * 16]
    beside = [group, org + "/" + "1" * 15 + "2", org]

    async def go(ctx: Context) -> None:
        async with ctx.rt.db.transaction() as tx:
            for n, uid in enumerate(below + beside):
                r = Repo(uid=uid, name=f"n{n}", create_time=NOW, update_time=NOW)
                await repos.insert(tx, r, uidp.parent(uid), name=r.name)
        async with ctx.rt.db.transaction() as tx:
            await repos.delete_descendants(tx, group)
        for uid in below:
            assert await stored(ctx.rt.db, uid) is None, uid
        for uid in beside:
            assert await stored(ctx.rt.db, uid) is not None, uid

    run(url, go)
