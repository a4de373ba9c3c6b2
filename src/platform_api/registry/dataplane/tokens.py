"""The token service of a Distribution registry (`GET /registry/token`, docs/registry.md).

Distribution sends a client without a token to our realm; the client asks for
`scope=repository:<path>:<actions>` with HTTP Basic (password: one of our access tokens) or a bearer, and we
answer a short-lived token granting the actions the caller's roles allow there (Distribution checks it and
enforces it; auth/registry_certs.py signs it).

Names: a registry path `<organization>/<group>/…/<repo>` is the repo called by its last component, in the
group reached from the organization (a root group, by name) through the sub-groups named in between. Our
names that are not valid registry path components (spaces, upper case) are unreachable through the registry.

Rights, at the repo or any ancestor:
- `pull` needs every capability of the built-in role `registry.pull`;
- `push` and `delete` need every capability of `registry.push`.
A repo that does not exist yet: `push` and `pull` (a push asks both) need `registry.push`'s capabilities at
its group (the push creates it); nothing else is granted on it.
A token restricted by the exchange (`scopes`, `cap`) is narrowed the same way (Principal.held_at).
Anything not granted is left out of the answer (Distribution then refuses the request itself); a scope
naming nothing that exists grants nothing.
"""

from __future__ import annotations

from platform_api.auth import capabilities as caps
from platform_api.auth.authz import Principal
from platform_api.core import errors, patterns
from platform_api.iam import groups
from platform_api.registry import queries
from platform_api.store.db import Conn

TOKEN_PATH = "/registry/token"
PULL = caps.BUILTIN_BY_NAME["registry.pull"].capabilities
PUSH = caps.BUILTIN_BY_NAME["registry.push"].capabilities
NEEDS = {"pull": PULL, "push": PUSH, "delete": PUSH}
MAX_SCOPES = 16  # docker asks one or two (a cross-repository mount: pull on the source too)
MAX_PATH = 255  # Distribution's own limit on a repository name
MAX_DEPTH = 16
# Distribution's path component grammar (reference/regexp.go), on RE2 like every pattern on input.
_COMPONENT = patterns.Pattern(r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*")


class Scope:
    __slots__ = ("actions", "path")

    def __init__(self, path: str, actions: list[str]) -> None:
        self.path = path
        self.actions = actions


def valid_path(path: str) -> bool:
    """A repository name by Distribution's grammar (path components joined by `/`, at most MAX_PATH)."""
    return bool(path) and len(path) <= MAX_PATH and all(_COMPONENT.fullmatch(c) for c in path.split("/"))


def parse(scopes: list[str]) -> list[Scope]:
    """`repository:<path>:<action>,<action>` values (other resource types, e.g. `registry:catalog:*`, ask
    for nothing we grant and are answered with no access)."""
    if len(scopes) > MAX_SCOPES:
        raise errors.invalid_argument("scope", f"at most {MAX_SCOPES} scope values")
    out = []
    for raw in scopes:
        for one in raw.split(" "):  # the spec allows several, space-separated, in one value
            kind, _, rest = one.partition(":")
            path, _, actions = rest.rpartition(":")
            if kind != "repository":
                continue
            if not valid_path(path):
                raise errors.invalid_argument("scope", f"not a repository name: {path[:MAX_PATH]!r}")
            wanted = [a for a in dict.fromkeys(actions.split(",")) if a]
            if "*" in wanted:
                wanted = list(NEEDS)
            if not wanted or any(a not in NEEDS for a in wanted):
                raise errors.invalid_argument("scope", f"actions must be among pull, push, delete, *: {actions!r}")
            out.append(Scope(path, wanted))
    if len(out) > MAX_SCOPES:
        raise errors.invalid_argument("scope", f"at most {MAX_SCOPES} scopes")
    return out


async def locate(conn: Conn, path: str) -> tuple[str | None, str | None]:
    """(group uid, repo uid) that `path` names; None where nothing by that name exists."""
    parts = path.split("/")
    if len(parts) < 2 or len(parts) > MAX_DEPTH:
        return None, None
    group = ""
    for name in parts[:-1]:
        found = await groups.named(conn, group, name)
        if found is None:
            return None, None
        group = found
    return group, await queries.repo_named(conn, group, parts[-1])


async def grant(conn: Conn, principal: Principal, scopes: list[Scope]) -> list[dict[str, object]]:
    """The `access` claim: each scope with the actions the caller may take there (none: left out)."""
    access: list[dict[str, object]] = []
    for scope in scopes:
        group, repo = await locate(conn, scope.path)
        at = repo or group
        if at is None:
            continue
        if repo is None:  # only a push may name a repo that is not there yet (it creates it), and a push
            # needs pull too (Distribution asks both for a blob upload): both need push rights at the group
            allowed = [a for a in scope.actions if a != "delete" and principal.holds(PUSH, at)]
        else:
            allowed = [a for a in scope.actions if principal.holds(NEEDS[a], at)]
        if allowed:
            access.append({"type": "repository", "name": scope.path, "actions": allowed})
    return access
