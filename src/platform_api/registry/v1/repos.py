"""/registry/v1/repos (chainguard.platform.registry.Registry: CreateRepo, UpdateRepo, ListRepos, DeleteRepo)
over registry/repos.py: `id` for `uid`, `parent_id` for `parent`.

v1 differences:
- The v1-only facts `catalogTier`, `bundles`, `sync_config` and `customOverlay` are not kept by this service:
  they answer their zero values, and a non-zero value sent is refused (INVALID_ARGUMENT naming the field)
  rather than dropped.
- `readme` answers "" (the readme is a v2 sub-resource, /registry/v2/repos/{uid}/readme, whose write needs
  CAP_REPO_INTERNAL_ADMIN too: a v1 Repo write must not bypass that), and a readme sent is refused.
- CreateRepo with `preventExisting` false (the default) answers the existing repo of that name in the parent
  (no event: nothing changed); with `preventExisting` true it is ALREADY_EXISTS, as the v2 create always is.
"""

from __future__ import annotations

from platform_api.core import errors, fieldmask
from platform_api.gen.records import registry_v2 as v2
from platform_api.gen.records._base import Empty
from platform_api.gen.records.common import UIDPFilter
from platform_api.gen.records.registry import (
    CreateRepoRequest,
    CustomOverlay,
    DeleteRepoRequest,
    Repo,
    RepoFilter,
    RepoList,
    SyncConfig,
)
from platform_api.registry import repos
from platform_api.service import v1
from platform_api.service.context import Context, rpc

SERVICE = "chainguard.platform.registry.Registry."
ID = {"id": "uid"}


def to_v1(repo: v2.Repo) -> Repo:
    return v1.convert(repo, Repo, ID)


def _v2(repo: Repo, at: str) -> v2.Repo:
    """The v2 repo of a v1 one; what v2 does not keep is refused when set (`at`: the body's field path)."""
    unkept = {
        "catalog_tier": repo.catalog_tier != "UNKNOWN",
        "bundles": bool(repo.bundles),
        "readme": bool(repo.readme),
        "sync_config": repo.sync_config not in (None, SyncConfig()),
        "custom_overlay": repo.custom_overlay not in (None, CustomOverlay()),
    }
    for name, sent in unkept.items():
        if sent:
            raise fieldmask.not_kept(at + name)
    return v1.convert(repo, v2.Repo, {"uid": "id"})


@rpc(SERVICE + "CreateRepo")
async def create(req: CreateRepoRequest, ctx: Context) -> Repo:
    given = _v2(req.repo or Repo(), "repo.")
    try:
        made = await v1.call(ctx, repos.create_repo, v2.CreateRepoRequest(parent=req.parent_id, repo=given))
    except errors.ApiError as e:
        if e.code != errors.ALREADY_EXISTS or req.prevent_existing:
            raise
        ask = v2.ListReposRequest(uidp=UIDPFilter(children_of=req.parent_id), name=given.name)
        found = await v1.every(ctx, repos.list_repos, ask, "repos")
        if not found:  # the conflict was not a same-named repo in the parent: the v2 answer stands
            raise
        made = found[0]
    return to_v1(made)


@rpc(SERVICE + "UpdateRepo")
async def update(req: Repo, ctx: Context) -> Repo:
    mask = v1.full_mask(repos.UPDATABLE)
    done = await v1.call(ctx, repos.update_repo, v2.UpdateRepoRequest(repo=_v2(req, ""), update_mask=mask))
    return to_v1(done)


@rpc(SERVICE + "ListRepos")
async def list_(req: RepoFilter, ctx: Context) -> RepoList:
    ask = v2.ListReposRequest(uidp=v1.uidp_of(req.uidp, req.id))
    if req.name:
        ask.name = req.name
    return RepoList(items=await v1.every(ctx, repos.list_repos, ask, "repos", to_v1))


@rpc(SERVICE + "DeleteRepo")
async def delete(req: DeleteRepoRequest, ctx: Context) -> Empty:
    return await v1.call(ctx, repos.delete_repo, v2.DeleteRepoRequest(uid=req.id))
