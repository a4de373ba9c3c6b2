"""A group named on the command line (`platform-api import advisories --group`): its uid, or its path of names
from the organization down (`my-org`, `my-org/team/sub`), as `platformctl` takes it, but resolved in the
database the command writes to (the importers run against the database, not the API).

Sibling groups have distinct names, and so have organizations (the `groups (parent, name)` unique index), so a
path names at most one group: it is found level by level, or refused naming the first level missing. A bare
name that is no organization's but some deeper groups' is refused with their paths, never guessed.
"""

from __future__ import annotations

from platform_api.core import uidp
from platform_api.iam import groups
from platform_api.store.db import Conn

MAX_CANDIDATES = 10  # paths listed when a bare name is a deeper group's


class Unresolved(Exception):
    """No group has this path: the problem, one line."""


async def resolve(conn: Conn, ref: str) -> str:
    """The uid `ref` names: a uid as given (whether it exists is the caller's check), else the group at the
    path of names `ref`; Unresolved otherwise."""
    if uidp.valid(ref):
        return ref
    parts = ref.strip("/").split("/")
    if not ref.strip("/"):
        raise Unresolved("give a group uid, or its path of names from the organization down (my-org/team)")
    current = ""
    for depth, name in enumerate(parts):
        found = await groups.named(conn, current, name)
        if found is None:
            if depth == 0:
                raise Unresolved(await _no_organization(conn, name))
            raise Unresolved(f"no group named {name!r} under {'/'.join(parts[:depth])}")
        current = found
    return current


async def _no_organization(conn: Conn, name: str) -> str:
    deeper = await groups.named_anywhere(conn, name, MAX_CANDIDATES + 1)
    if not deeper:
        return f"no organization named {name!r} (give a group uid, or its path: my-org/team)"
    paths = [await _path(conn, uid) for uid in deeper[:MAX_CANDIDATES]]
    more = ", ..." if len(deeper) > MAX_CANDIDATES else ""
    return f"no organization named {name!r}; groups named {name!r}: {', '.join(paths)}{more} (give one's path)"


async def _path(conn: Conn, uid: str) -> str:
    """The names from the organization down to `uid`, joined by `/`."""
    chain = [*reversed(uidp.parents(uid)), uid]
    names = await groups.names(conn, chain)
    return "/".join(names.get(u, u) for u in chain)
