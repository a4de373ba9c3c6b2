"""`platformctl __complete groups|repos [PREFIX]`: the names the shell completion offers where a group or a
repo is expected (`registry repos get <TAB>`, `--group <TAB>`), as paths (`my-org/team/nginx`).

A person pressing TAB waits for it, so it is bounded: one page of the listing (under the default organization
when there is one), read at most once per TTL seconds for a server, organization, kind and token (a cache file
beside the settings, the caller's own, keyed by a hash of the token so that another identity never sees this
one's names), the client asked with a short timeout and no retries; and silent: any failure (no server, no
login, a refusal) prints nothing and exits 0, leaving the shell's other words."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from platform_api.client import UIDPFilter, contract
from platform_api.client.auth import config_dir
from platform_api.ctl import resolve
from platform_api.ctl.common import GLOBALS, OK, Ctx

COMMAND = "__complete"
KINDS = {"groups": ("iam", "list_groups", "group"), "repos": ("registry", "list_repos", "repo")}
PAGE = 50  # names offered at most: one page
TTL = 30.0  # seconds a listing is reused (a name created or deleted meanwhile shows late)
TIMEOUT = 2.0  # seconds per call: a server slower than this offers nothing
# The flags naming a group or a repo: the kind of names each takes, by the command path it follows (a prefix;
# "" any other; a kind "": no names, as a group mapping's --parent, an identity provider).
FLAGS: list[tuple[tuple[str, ...], dict[str, str]]] = [
    (("--group", "--scope"), {"": "groups"}),
    (("--repo",), {"": "repos"}),
    (("--parent",), {"registry tags": "repos", "iam group-mappings": "", "": "groups"}),
]
# The commands whose positional argument is a group or a repo (an image: a repo, then :tag or @digest).
POSITIONAL = {
    "iam groups": ("groups", ("get", "update", "rm", "delete")),
    "registry repos": ("repos", ("get", "update", "rm", "delete")),
    "registry images": ("repos", ("architectures", "size", "history")),
}


def positional() -> list[tuple[str, str]]:
    """(command path, kind) of each command whose positional argument `__complete` completes."""
    return [(f"{base} {verb}", kind) for base, (kind, verbs) in POSITIONAL.items() for verb in verbs]


def cache_path() -> Path:
    return config_dir() / "completion-cache.json"


def _read_cache() -> dict[str, Any]:
    try:
        data = json.loads(cache_path().read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write_cache(data: dict[str, Any]) -> None:
    """Atomically, readable by the owner only (the names of what the caller may see)."""
    path = cache_path()
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".completion-")
    with os.fdopen(fd, "w") as f:
        json.dump(data, f)
    os.replace(tmp, path)


def listed(ctx: Ctx, kind: str) -> list[str]:
    """The paths of one page of `kind` (groups or repos) the caller sees, under the default organization."""
    area, method, item_kind = KINDS[kind]
    client = ctx.client()
    client.retries, client.timeout = 0, TIMEOUT
    scope = resolve.default_scope(ctx)
    uidp = UIDPFilter(descendants_of=scope) if scope else None
    pages = getattr(getattr(client, area), method)(uidp=uidp, page_size=PAGE).pages()
    items = getattr(next(iter(pages)), contract.area_methods(area)[method].items)
    paths = resolve.Paths(ctx)
    for item in items:  # the names at hand: no call to read them again for a path
        paths.names[str(item.uid)] = str(item.name)
    return [paths.path(str(item.uid), item_kind) for item in items]


def names(ctx: Ctx, kind: str) -> list[str]:
    token = ctx.client().auth.token() or ""
    who = hashlib.sha256(token.encode()).hexdigest()[:32]
    key = f"{ctx.server} {ctx.org} {kind} {who}"
    now = time.time()
    cache = {k: v for k, v in _read_cache().items() if isinstance(v, dict) and now - v.get("time", 0) < TTL}
    hit = cache.get(key)
    if hit is not None and isinstance(hit.get("names"), list):
        return [str(n) for n in hit["names"]]
    found = listed(ctx, kind)
    cache[key] = {"time": now, "names": found}
    with contextlib.suppress(OSError):  # not kept: asked again next time
        _write_cache(cache)
    return found


def run(ctx: Ctx) -> int:
    try:
        found = names(ctx, ctx.args.kind)
    except Exception:  # silent on every failure: a completion never prints an error into the command line
        return OK
    prefix = ctx.args.prefix or ""
    for name in found:
        if name.startswith(prefix):
            print(name)
    sys.stdout.flush()
    return OK


def register(sub: Any) -> None:
    """Hidden: not in `--help`, nor offered by the completion itself (extra._tree leaves it out)."""
    p = sub.add_parser(COMMAND, parents=[GLOBALS])
    p.add_argument("kind", choices=sorted(KINDS))
    p.add_argument("prefix", nargs="?", default="")
    p.set_defaults(func=run)
