"""`platform-api import oci <repo-uid> <path>`: an OCI image layout directory or one manifest / index JSON
file into the repo's image facts; the layout's `org.opencontainers.image.ref.name` annotations create or
move those tags (with the TagsService.CreateTag event). One transaction: the whole input or nothing."""

from __future__ import annotations

import argparse
from pathlib import Path

from platform_api.core import errors, uidp
from platform_api.registry import images, oci, repos, tags
from platform_api.service import imports
from platform_api.service.imports import BadInput
from platform_api.store.db import Conn

HELP = "an OCI image layout directory or a manifest / image-index JSON file: images, platforms, sizes, tags"
CREATE_TAG = "chainguard.platform.registry.v2.TagsService.CreateTag"


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("repo_uid", help="the repo the images belong to")
    parser.add_argument("path", type=Path, help="an OCI image layout directory, or a manifest / index JSON file")


async def repo_or_bad(tx: Conn, repo_uid: str, lock: bool = False) -> None:
    """The repo must exist (BadInput naming it otherwise); `lock` serializes its tag writers."""
    if not uidp.valid(repo_uid):
        raise BadInput(repo_uid, "", "not a repo uid")
    try:
        await repos.fetch(tx, repo_uid, lock=lock)
    except errors.ApiError:
        raise BadInput(repo_uid, "", "no such repo") from None


async def run(job: imports.Job) -> imports.Summary:
    content = oci.read(job.args.path, job.progress)
    summary = imports.Summary()
    ctx = job.context(CREATE_TAG)
    async with job.rt.db.transaction() as tx:
        await repo_or_bad(tx, job.args.repo_uid, lock=True)
        try:
            await images.flatten(tx, job.args.repo_uid, content.images)
        except oci.TooWide as e:
            raise BadInput(job.args.path, "", str(e)) from None
        for image in content.images.values():
            summary.tally("indexes" if image.is_index else "manifests", await images.put(tx, job.args.repo_uid, image))
        for name, digest in sorted(content.tags.items()):
            _, outcome = await tags.upsert(tx, ctx, job.args.repo_uid, name, digest)
            summary.tally("tags", outcome)
    for kind in ("manifests", "indexes", "tags"):
        summary.kinds.setdefault(kind, {"created": 0, "updated": 0, "unchanged": 0})
    return summary
