"""`platformctl registry images architectures|size|history`: the facts of an image (ImagesService) and the
digests a tag has pointed to (the v1 Registry's ListTagHistory: v2 has none).

An image is named as a container reference under a repo: `my-org/nginx@sha256:...` or `my-org/nginx:latest`
(the tag's digest now); the repo part is a uid or a path of names (resolve.py)."""

from __future__ import annotations

from typing import Any

from platform_api.client import UIDPFilter, contract
from platform_api.ctl import output, resolve, values
from platform_api.ctl.common import NOT_FOUND, OK, USAGE, CtlError, Ctx, command, group

TAG_HISTORY = "chainguard.platform.registry.Registry.ListTagHistory"
IMAGE_HELP = "the image: REPO@sha256:... or REPO:TAG (REPO: a uid or a path, my-org/nginx)"


def split_image(ref: str) -> tuple[str, str, str]:
    """`repo@digest` -> (repo, digest, ""); `repo:tag` -> (repo, "", tag). A `:` before the last `/` is no
    tag's (a host's port cannot appear: repos are named from their organization)."""
    if "@" in ref:
        repo, _, digest = ref.partition("@")
        if not repo or not digest.startswith("sha256:"):
            raise CtlError(f"{ref!r}: give REPO@sha256:<64 hex digits> or REPO:TAG", USAGE)
        return repo, digest, ""
    head, slash, last = ref.rpartition("/")
    name, colon, tag = last.partition(":")
    if not colon or not name or not tag:
        raise CtlError(f"{ref!r} names no image: give REPO@sha256:... or REPO:TAG (my-org/nginx:latest)", USAGE)
    return head + slash + name, "", tag


def tag_uid(ctx: Ctx, repo_uid: str, tag: str) -> Any:
    """The tag record named `tag` in the repo (one list call with the name filter)."""
    for t in ctx.client().registry.list_tags(uidp=UIDPFilter(children_of=repo_uid), name=tag, page_size=10):
        if t.name == tag:
            return t
    raise CtlError(f"no tag {tag!r} in repo {repo_uid}", NOT_FOUND)


def image(ctx: Ctx, ref: str) -> tuple[str, str]:
    """(repo uid, digest) of an image reference."""
    repo, digest, tag = split_image(ref)
    repo_uid = resolve.repo(ctx, repo)
    return repo_uid, digest or str(tag_uid(ctx, repo_uid, tag).digest)


def architectures(ctx: Ctx) -> int:
    repo_uid, digest = image(ctx, ctx.args.image)
    found = ctx.client().registry.get_architectures(repo_uid, digest)
    if ctx.output in ("json", "yaml"):
        output.emit(found, ctx.output, ())
    else:
        output.emit([{"architecture": a} for a in found.architectures], ctx.output, (("ARCHITECTURE",
                    "architecture"),), many=True)  # fmt: skip
    return OK


def human(size: int) -> str:
    """Bytes in the binary units a person reads (`28.4 MiB`)."""
    if size < 1024:
        return f"{size} B"
    value, unit = size / 1024, "KiB"
    for bigger in ("MiB", "GiB", "TiB"):
        if value < 1024:
            break
        value, unit = value / 1024, bigger
    return f"{value:.1f} {unit}"


def size(ctx: Ctx) -> int:
    repo_uid, digest = image(ctx, ctx.args.image)
    found = ctx.client().registry.get_size(repo_uid, digest, ctx.args.architecture or None)
    row = {**output.data(found), "human": human(int(found.size or 0))}
    columns = (("ARCHITECTURE", "architecture"), ("SIZE", "human"), ("BYTES", "size"))
    output.emit(found if ctx.output in ("json", "yaml") else row, ctx.output, columns)
    return OK


def history(ctx: Ctx) -> int:
    repo, _, tag = split_image(ctx.args.tag)
    if not tag:
        raise CtlError(f"{ctx.args.tag!r}: give the tag as REPO:TAG (my-org/nginx:latest)", USAGE)
    uid = tag_uid(ctx, resolve.repo(ctx, repo), tag).uid
    found = ctx.client().invoke(contract.methods()[TAG_HISTORY], parent_id=uid, start=ctx.args.since)
    columns = (("UPDATED", "updateTimestamp"), ("DIGEST", "digest"))
    output.emit(found.items, ctx.output, columns, many=True)
    return OK


def register(registry: Any) -> None:
    images = group(registry, "images", "the facts of an image: architectures, size; a tag's history",
                   ["platformctl registry images architectures my-org/nginx:latest",
                    "platformctl registry images size my-org/nginx@sha256:... --architecture arm64",
                    "platformctl registry images history my-org/nginx:latest"])  # fmt: skip
    p = command(images, "architectures", "the platforms an image is built for (an index's; one image's own)",
                ["platformctl registry images architectures my-org/nginx:latest -o json"], architectures)  # fmt: skip
    p.add_argument("image", help=IMAGE_HELP)
    p = command(images, "size", "an image's size: its layers and config, compressed (one architecture's of an "
                "index with --architecture)", ["platformctl registry images size my-org/nginx:latest",
                "platformctl registry images size my-org/nginx:latest --architecture arm64"], size)  # fmt: skip
    p.add_argument("image", help=IMAGE_HELP)
    p.add_argument("--architecture", help="of this platform's image in an index (amd64, arm64, ...)")
    p = command(images, "history", "the digests a tag has pointed to, oldest first",
                ["platformctl registry images history my-org/nginx:latest"], history)  # fmt: skip
    p.add_argument("tag", help="the tag: REPO:TAG (REPO: a uid or a path, my-org/nginx)")
    since = values.parser_type(lambda: contract.methods()[TAG_HISTORY].input.fields_by_name["start"])
    p.add_argument("--since", type=since, metavar="TIME", help="only changes from this time on (RFC 3339, or a "
                   "date)")  # fmt: skip
