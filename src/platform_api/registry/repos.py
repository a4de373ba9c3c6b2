"""Registry repos: /registry/v2/repos (ReposService), including the readme sub-resource."""

from __future__ import annotations

from msgspec import UNSET

from platform_api.core import clock, errors, fieldmask, uidp, validate
from platform_api.gen.records._base import Empty
from platform_api.gen.records.registry_v2 import (
    CreateRepoRequest,
    DeleteRepoRequest,
    GetRepoReadmeRequest,
    GetRepoRequest,
    ListReposRequest,
    ListReposResponse,
    Repo,
    RepoReadme,
    UpdateRepoReadmeRequest,
    UpdateRepoRequest,
)
from platform_api.iam import groups
from platform_api.outbox import outbox
from platform_api.registry import queries
from platform_api.registry import readme as readme_safety
from platform_api.service import listing
from platform_api.service.context import Context, rpc
from platform_api.store.db import Conn

SERVICE = "chainguard.platform.registry.v2.ReposService."
RESOURCE = queries.REPO
NAMES = queries.REPO_NAMES
TABLE = queries.REPOS_TABLE
UPDATABLE = frozenset({"name", "description", "aliases", "active_tags"})
MAX_README = 512 * 1024


def _check(repo: Repo) -> None:
    validate.name(repo.name)
    validate.description(repo.description)
    for alias in repo.aliases:
        validate.alias(alias)
    for tag in repo.active_tags:
        validate.tag_name(tag, "active_tags")


async def fetch(conn: Conn, uid: str, lock: bool = False) -> Repo:
    return await queries.REPOS.get(conn, uid, lock=lock)


@rpc(SERVICE + "CreateRepo")
async def create_repo(req: CreateRepoRequest, ctx: Context) -> Repo:
    repo = new(req.parent, req.repo or Repo())
    async with ctx.rt.db.transaction() as tx:
        await insert(tx, repo, req.parent)
        await outbox.emit(tx, ctx, repo)
    return repo


def new(parent: str, given: Repo) -> Repo:
    """The repo `given` describes, as created under group `parent` now (INVALID_ARGUMENT for a bad value)."""
    validate.uid(parent, "parent")
    now = clock.now()
    repo = Repo(
        uid=uidp.new_child(parent),
        name=given.name,
        description=given.description,
        aliases=given.aliases,
        active_tags=given.active_tags,
        create_time=now,
        update_time=now,
    )
    _check(repo)
    return repo


async def insert(tx: Conn, repo: Repo, parent: str) -> None:
    """Store a new repo (`new`'s) inside `tx`: the group must exist, the name be free in it. No event (the
    caller's: CreateRepo, or the registry's data plane for a first push)."""
    await queries.REPOS.create(
        tx, repo, parent, require=lambda tx: groups.require(tx, parent, "parent"), columns={"name": repo.name}
    )


@rpc(SERVICE + "GetRepo")
async def get_repo(req: GetRepoRequest, ctx: Context) -> Repo:
    return await fetch(ctx.rt.db, req.uid)


@rpc(SERVICE + "ListRepos")
async def list_repos(req: ListReposRequest, ctx: Context) -> ListReposResponse:
    where = listing.filters(req)
    if req.name is not UNSET:
        where.eq("name", req.name)
    return await listing.answer(ctx, TABLE, where, req, ListReposResponse, "repos", Repo)


@rpc(SERVICE + "UpdateRepo")
async def update_repo(req: UpdateRepoRequest, ctx: Context) -> Repo:
    return await queries.REPOS.update_rpc(
        ctx, req.repo or Repo(), req.update_mask, UPDATABLE, check=_check, columns=lambda r: {"name": r.name}
    )


@rpc(SERVICE + "DeleteRepo")
async def delete_repo(req: DeleteRepoRequest, ctx: Context) -> Empty:
    # A repo's tags go with it.
    await queries.REPOS.delete_rpc(ctx, req, children=(queries.TAGS.delete_descendants, queries.delete_history_below))
    return Empty()


@rpc(SERVICE + "GetRepoReadme")
async def get_repo_readme(req: GetRepoReadmeRequest, ctx: Context) -> RepoReadme:
    validate.uid(req.uid)
    content = await queries.repo_readme(ctx.rt.db, req.uid)
    if content is None:
        raise errors.not_found(RESOURCE, req.uid)
    return RepoReadme(uid=req.uid, content=content)


@rpc(SERVICE + "UpdateRepoReadme")
async def update_repo_readme(req: UpdateRepoReadmeRequest, ctx: Context) -> RepoReadme:
    readme = req.repo_readme or RepoReadme()
    mask = fieldmask.parse(req.update_mask, RepoReadme)
    if mask is not None and ["content"] not in mask:
        return await get_repo_readme(GetRepoReadmeRequest(uid=readme.uid), ctx)
    if len(readme.content.encode()) > MAX_README:
        raise errors.invalid_argument("content", f"content must be at most {MAX_README} bytes")
    if not readme_safety.is_safe(readme.content):
        raise errors.invalid_argument("content", "readme contained unsafe html content")
    async with ctx.rt.db.transaction() as tx:
        repo = await fetch(tx, readme.uid, lock=True)
        repo.update_time = clock.now()
        await queries.set_repo_readme(tx, repo, readme.content)
        result = RepoReadme(uid=readme.uid, content=readme.content)
        await outbox.emit(tx, ctx, result)
    return result
