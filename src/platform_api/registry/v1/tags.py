"""/registry/v1/tags (chainguard.platform.registry.Registry: CreateTag, UpdateTag, ListTags, DeleteTag) over
registry/tags.py: `id` for `uid`, `repo_id` for `parent`, `lastUpdated` for `updateTime`.

v1 differences:
- ListTags lists every tag unless `excludeReferrers` / `excludeDates` / `excludeEpochs` says otherwise (v2's
  `include_*` flags default the other way).
- CreateTag and UpdateTag need no `digest` (the vendor's Terraform provider never sends one): without one a
  new tag points nowhere until a push or a write with a digest fills it (v2 shows it without `digest`), and an
  existing tag keeps its own. UpdateTag (PUT, no v2 counterpart) points the tag at `digest` and sets
  `deprecated` through the v2 create's write (an upsert by name: the same validation, lock and write), emitting
  the v1 method's `tag.updated` event (with the v2 twin's subject and source). A tag is not renamed: a `name`
  other than the tag's is refused.
- GetRepoTagsSummary (/registry/v1/repotagssummary/{repo_id}) is one v2 ListTags page: its total count and
  its most recently updated tag (`lastUpdated` is that tag's). `latestVersion` is not kept (no version is
  derived from tag names here) and answers "".
- `bundles` is not kept: it answers empty, and bundles sent are refused (INVALID_ARGUMENT) rather than dropped.
"""

from __future__ import annotations

from platform_api.core import errors, uidp, validate
from platform_api.gen.records import registry_v2 as v2
from platform_api.gen.records._base import Empty
from platform_api.gen.records.common import UIDPFilter
from platform_api.gen.records.registry import (
    CreateTagRequest,
    DeleteTagRequest,
    GetRepoTagsSummaryRequest,
    RepoTagsSummary,
    Tag,
    TagFilter,
    TagList,
)
from platform_api.registry import repos, tags
from platform_api.service import v1
from platform_api.service.context import Context, rpc

SERVICE = "chainguard.platform.registry.Registry."
NAMES = {"id": "uid", "last_updated": "update_time"}


def to_v1(tag: v2.Tag) -> Tag:
    return v1.convert(tag, Tag, NAMES)


def _v2(tag: Tag, at: str) -> v2.Tag:
    if tag.bundles:
        raise errors.invalid_argument(at + "bundles", "bundles are not kept by this service")
    return v2.Tag(name=tag.name, digest=tag.digest, deprecated=tag.deprecated)


@rpc(SERVICE + "CreateTag")
async def create(req: CreateTagRequest, ctx: Context) -> Tag:
    given = _v2(req.tag or Tag(), "tag.")
    return to_v1(await tags.write(v1.twin(ctx, tags.create_tag), req.repo_id, given, digest_optional=True))


@rpc(SERVICE + "UpdateTag")
async def update(req: Tag, ctx: Context) -> Tag:
    validate.uid(req.id, "id")
    given = _v2(req, "")
    current = await v1.call(ctx, tags.get_tag, v2.GetTagRequest(uid=req.id))
    if given.name != current.name:
        raise errors.invalid_argument("name", f"a tag is not renamed: this tag is {current.name!r}")
    # The v2 create is the one write of a tag's digest and deprecation (an upsert by name). It runs as its v2
    # twin (the event's subject, source and body are v2's, as for every v1 write) but the event it emits is the
    # v1 method's, tag.updated: v2 has no update of a tag to take it from.
    twin = v1.twin(ctx, tags.create_tag, event_type=ctx.info.event_type if ctx.info else "")
    return to_v1(await tags.write(twin, uidp.parent(req.id), given, digest_optional=True))


@rpc(SERVICE + "ListTags")
async def list_(req: TagFilter, ctx: Context) -> TagList:
    ask = v2.ListTagsRequest(
        uidp=v1.uidp_of(req.uidp, req.id),
        name=req.name,
        updated_since=req.updated_since,
        include_referrers=not req.exclude_referrers,
        include_dates=not req.exclude_dates,
        include_epochs=not req.exclude_epochs,
        digest=req.digest,
    )
    return TagList(items=await v1.every(ctx, tags.list_tags, ask, "tags", to_v1))


@rpc(SERVICE + "DeleteTag")
async def delete(req: DeleteTagRequest, ctx: Context) -> Empty:
    return await v1.call(ctx, tags.delete_tag, v2.DeleteTagRequest(uid=req.id))


@rpc(SERVICE + "GetRepoTagsSummary")
async def summary(req: GetRepoTagsSummaryRequest, ctx: Context) -> RepoTagsSummary:
    # NOT_FOUND for a repo that does not exist (a v2 list of its tags would answer an empty page).
    await v1.call(ctx, repos.get_repo, v2.GetRepoRequest(uid=req.repo_id))
    ask = v2.ListTagsRequest(
        uidp=UIDPFilter(children_of=req.repo_id),
        include_referrers=not req.exclude_referrers,
        include_dates=not req.exclude_dates,
        include_epochs=not req.exclude_epochs,
        page_size=1,
        order_by="updated_at desc",
    )
    page = await v1.call(ctx, tags.list_tags, ask)
    latest = to_v1(page.tags[0]) if page.tags else None
    out = RepoTagsSummary(id=req.repo_id, last_updated=latest.last_updated if latest else None, latest_tag=latest)
    if page.tags:  # a count left at its default is omitted as proto3 JSON omits a zero (msgspec: by identity)
        out.tag_count = str(page.total_count)
    return out
