"""Names where uids are expected: `--group my-org/team`, `--role viewer`, `registry repos get my-org/nginx`.

A uid (40 hex digits, then /16 hex digits per level) is used as given. A group is a path of names from its
organization down (`my-org/team/sub`), each level found by listing with the name filter. Anything else is
`[group path/]name`: listed by name under that group (its direct children), or without a path under the
default organization (`--org` / `config set org`; everything the caller sees when there is none; roles also
among the built-in ones). No match is NOT_FOUND (exit 5); several are a refusal listing the candidates
(their paths and uids; exit 7), never a guess."""

from __future__ import annotations

from typing import Any

from platform_api.client import ApiError, UIDPFilter, contract
from platform_api.ctl.common import INVALID, NOT_FOUND, CtlError, Ctx

_HEX = frozenset("0123456789abcdef")
MAX_CANDIDATES = 50  # listed in an ambiguity error (and read: names are unique per parent, so few)
MAX_PAGE = 200  # the server's largest page: a parent's children listed for many names at once


def is_uid(value: str) -> bool:
    """A uid path: 40 hex digits, then segments of 16 (no pattern: RE2 is the server's, `re` backtracks)."""
    first, *rest = value.split("/")
    return len(first) == 40 and all(len(p) == 16 for p in rest) and all(c in _HEX for c in value if c != "/")


def _matches(ctx: Ctx, area: str, list_method: str, name: str, uidp: UIDPFilter | None) -> list[Any]:
    method = getattr(getattr(ctx.client(), area), list_method)
    out = []
    for item in method(uidp=uidp, name=name, page_size=MAX_CANDIDATES):
        if item.name == name:
            out.append(item)
        if len(out) > MAX_CANDIDATES:
            break
    return out


class Paths:
    """Paths of names (`my-org/team/nginx`) for uids, each group or repo read once. One the caller may not read
    shows as its uid's last segment."""

    def __init__(self, ctx: Ctx) -> None:
        self.ctx = ctx
        self.names: dict[str, str] = {}

    def _name(self, uid: str, kind: str) -> str:
        if uid not in self.names:
            client = self.ctx.client()
            try:
                self.names[uid] = (client.registry.get_repo if kind == "repo" else client.iam.get_group)(uid).name
            except ApiError:
                self.names[uid] = uid.rsplit("/", 1)[-1]
        return self.names[uid]

    def path(self, uid: str, kind: str = "group") -> str:
        """The path of the group (or repo, `kind`) at `uid`: its ancestors are groups."""
        parts = uid.split("/")
        prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
        return "/".join(self._name(p, kind if p == uid else "group") for p in prefixes)

    def of(self, item: Any, parent_kind: str = "group") -> str:
        """The path of a named resource: its parent's path, then its name (a root one, a built-in role: its name)."""
        parent = str(item.uid).rpartition("/")[0]
        return f"{self.path(parent, parent_kind)}/{item.name}" if parent else str(item.name)


def _one(ctx: Ctx, kind: str, ref: str, found: list[Any], parent_kind: str = "group") -> str:
    if not found:
        raise CtlError(f"no {kind} named {ref!r} (give its uid, or its path: org/.../name)", NOT_FOUND)
    if len(found) > 1:
        paths = Paths(ctx)
        lines = "\n".join(f"  {paths.of(item, parent_kind)}  {item.uid}" for item in found[:MAX_CANDIDATES])
        raise CtlError(f"{kind} name {ref!r} is ambiguous; it matches:\n{lines}\nname one by path or by uid", INVALID)
    return str(found[0].uid)


def group(ctx: Ctx, ref: str, known: dict[str, str] | None = None) -> str:
    """A group uid from a uid or a path of names from the organization down. `known`: the paths already
    resolved (each prefix of `ref` is added), so that many paths under one group read it once."""
    ref = ref.strip("/")
    if not ref or is_uid(ref):
        return ref
    known = {} if known is None else known
    parts = ref.split("/")
    current = ""
    for i, part in enumerate(parts):
        path = "/".join(parts[: i + 1])
        if path not in known:
            if i == 0:  # organizations: groups whose uid has no parent segment
                roots = [g for g in _matches(ctx, "iam", "list_groups", part, None) if "/" not in g.uid]
                known[path] = _one(ctx, "organization", part, roots)
            else:
                found = _matches(ctx, "iam", "list_groups", part, UIDPFilter(children_of=current))
                known[path] = _one(ctx, "group", path, found)
        current = known[path]
    return current


def default_scope(ctx: Ctx) -> str:
    return group(ctx, ctx.org) if ctx.org else ""


def named(ctx: Ctx, kind: str, area: str, list_method: str, ref: str, *, parent_kind: str = "group") -> str:
    """The uid of a resource with a name: given as a uid, `parent/.../name` or `name`."""
    if is_uid(ref):
        return ref
    if "/" in ref:
        prefix, _, name = ref.rpartition("/")
        parent = group(ctx, prefix) if parent_kind == "group" else repo(ctx, prefix)
        return _one(ctx, kind, ref, _matches(ctx, area, list_method, name, UIDPFilter(children_of=parent)), parent_kind)
    scope = default_scope(ctx)
    found = _matches(ctx, area, list_method, ref, UIDPFilter(descendants_of=scope) if scope else None)
    if kind == "role" and scope:
        found += _matches(ctx, area, list_method, ref, UIDPFilter(in_root=True))  # built-in roles
    return _one(ctx, kind, ref, found, parent_kind)


def named_many(ctx: Ctx, kind: str, area: str, list_method: str, refs: list[str], *,
               parent_kind: str = "group") -> list[str]:  # fmt: skip
    """The uids of many refs (as `named`, in order), with fewer calls: each parent path is resolved once,
    and the names under one parent are found in one listing of its children (names are unique among a
    parent's children), read for at most as many pages as names are sought there; names it did not reach are
    looked up one by one, as `named` does, so it never costs more calls than resolving each ref alone."""
    known: dict[str, str] = {}
    wanted: dict[str, list[str]] = {}  # parent uid -> the names sought under it
    parents: dict[str, str] = {}  # ref -> its parent's uid
    for ref in refs:
        if "/" in ref and not is_uid(ref):
            prefix, _, name = ref.rpartition("/")
            parent = group(ctx, prefix, known) if parent_kind == "group" else repo(ctx, prefix)
            parents[ref] = parent
            wanted.setdefault(parent, []).append(name)
    found: dict[tuple[str, str], str] = {}  # (parent uid, name) -> uid
    listed: set[str] = set()  # the parents whose children were all read: a name not found is not there
    method = getattr(getattr(ctx.client(), area), list_method)
    items = contract.area_methods(area)[list_method].items
    for parent, names in wanted.items():
        left = set(names)
        if len(left) < 2:
            continue  # one name: its filtered lookup is one call too
        budget = len(left)
        for page in method(uidp=UIDPFilter(children_of=parent), page_size=MAX_PAGE).pages():
            for item in getattr(page, items):
                if item.name in left:
                    found[(parent, item.name)] = str(item.uid)
                    left.discard(item.name)
            budget -= 1
            if not page.next_page_token:
                listed.add(parent)
            if not left or not budget:
                break
    out = []
    for ref in refs:
        under = parents.get(ref)
        name = ref.rpartition("/")[2]
        if under is None:
            out.append(named(ctx, kind, area, list_method, ref, parent_kind=parent_kind))
        elif (under, name) in found:
            out.append(found[(under, name)])
        elif under in listed:
            out.append(_one(ctx, kind, ref, [], parent_kind))
        else:
            matches = _matches(ctx, area, list_method, name, UIDPFilter(children_of=under))
            out.append(_one(ctx, kind, ref, matches, parent_kind))
    return out


def repo(ctx: Ctx, ref: str) -> str:
    return named(ctx, "repo", "registry", "list_repos", ref)


def role(ctx: Ctx, ref: str) -> str:
    return named(ctx, "role", "iam", "list_roles", ref)


def identity(ctx: Ctx, ref: str) -> str:
    return named(ctx, "identity", "iam", "list_identities", ref)


def identity_provider(ctx: Ctx, ref: str) -> str:
    return named(ctx, "identity provider", "iam", "list_identity_providers", ref)


RESOLVERS = {"group": group, "repo": repo, "role": role, "identity": identity, "identity_provider": identity_provider}
