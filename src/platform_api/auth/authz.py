"""Authorization decisions from role bindings, live: a binding created or deleted is in effect for the
caller's very next request, in every process.

An identity's grants (group uid -> capability mask, from its role bindings) are cached per identity and
dropped whenever the authorization version moves. Triggers increment that version in the same
transaction as any change to role bindings, role capabilities or identities. A process notices:
- SQLite: `PRAGMA data_version` on the read connection (`SqliteDatabase.commit_marker`, ~3.5 µs) changes
  when any other connection (this process's writer, or another process) commits; only then is the version
  row read.
- PostgreSQL: every authenticated request waits for a read of the version row that began after the request
  arrived. The trigger also NOTIFYs `platform_api_authz`, but a notification reaches another process some
  time after the commit (a revoked binding was still honoured in 4 of 30 trials under load when the cache
  trusted it), so it cannot prove that nothing changed. Concurrent requests share reads: while one read is
  on its way, the requests that arrive meanwhile wait for the next one, which starts when it returns (one
  read per round trip, not one per request; a lone request pays one). Mutations made by this process
  invalidate the cache synchronously.

Rules: a capability held at a group holds at every descendant. An identity that lives
under a group (`<group>/<16 hex>`) is confined to that group's subtree: grants above its home
apply from its home down, grants elsewhere not at all. Tokens may narrow further (exchange `scopes`/`cap`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from platform_api.auth import capabilities as caps
from platform_api.auth.tokens import AccessClaims
from platform_api.core import errors, metrics, uidp
from platform_api.service.context import Context
from platform_api.store.db import Conn, Database

log = logging.getLogger(__name__)
CHANNEL = "platform_api_authz"


@dataclass(frozen=True)
class GrantSource:
    """The reads of IAM tables that authorization needs. `auth` sits below the domains, and a table's SQL
    lives with its owner: the IAM package declares these (`iam.GRANTS`) and the app hands them to the
    authorizer."""

    # conn, identity uid -> whether the identity exists
    identity_exists: Callable[[Conn, str], Awaitable[bool]]
    # conn, identity uid -> (group, role uid) of each of its role bindings
    bindings: Callable[[Conn, str], Awaitable[list[tuple[str, str]]]]
    # conn, role uids -> each existing role's comma-separated capability names
    role_capabilities: Callable[[Conn, Collection[str]], Awaitable[dict[str, str]]]


def _clip(group: str, home: str) -> str | None:
    """Where a grant at `group` applies for an identity confined to `home` ('' = not confined)."""
    if not home or uidp.is_ancestor_or_self(home, group):
        return group
    if uidp.is_ancestor(group, home):
        return home
    return None


@dataclass
class Grants:
    """One identity's capabilities per group, from its role bindings."""

    exists: bool
    by_group: dict[str, int] = field(default_factory=dict)


@dataclass
class Principal:
    """The authenticated caller of one request."""

    subject: str
    grants: dict[str, int]
    claims: AccessClaims | None = None
    scopes: tuple[str, ...] = ()
    limit: int = -1  # capability mask the token is restricted to (-1: all)
    # visible_roots by required mask (a Principal lives as long as its grants are current)
    _visible: dict[int, list[str]] = field(default_factory=dict)

    def held_at(self, uid: str) -> int:
        """Capabilities the caller holds at `uid` (granted there or at any ancestor)."""
        if self.scopes and not any(uidp.is_ancestor_or_self(s, uid) for s in self.scopes):
            return 0
        held = 0
        g = self.grants
        node = uid
        while node:
            held |= g.get(node, 0)
            i = node.rfind("/")
            node = node[:i] if i > 0 else ""
        return held & self.limit

    def reach(self, group: str) -> list[str]:
        """The groups from which a grant at `group` holds for this token: clipped to the identity's home and to
        the token's scopes (a scope below the grant is where it starts; a grant outside every scope holds nowhere)."""
        at = _clip(group, uidp.parent(self.subject))
        if at is None:
            return []
        if not self.scopes:
            return [at]
        out = {at if uidp.is_ancestor_or_self(s, at) else s for s in self.scopes if uidp.is_ancestor_or_self(s, at)
               or uidp.is_ancestor(at, s)}  # fmt: skip
        return sorted(out)

    def holds(self, required: int, uid: str) -> bool:
        return required & ~self.held_at(uid) == 0

    def require(self, required: int, uid: str, resource_type: str, name: str = "") -> None:
        """PERMISSION_DENIED when the caller sees `uid` but lacks a capability; NOT_FOUND (naming `name`,
        default `uid`) when the caller holds nothing there at all, so that nobody learns what exists outside
        their reach."""
        held = self.held_at(uid)
        if required & ~held == 0:
            return
        if held == 0:
            raise errors.not_found(resource_type, name or uid)
        missing = ", ".join(caps.names(required & ~held))
        raise errors.permission_denied(f"missing {missing} at {uid}")

    def visible_roots(self, required: int) -> list[str]:
        """The smallest set of groups whose subtrees hold every row the caller may list with `required`."""
        roots = self._visible.get(required)
        if roots is None:
            roots = self._visible[required] = self._compute_visible_roots(required)
        return roots

    def _compute_visible_roots(self, required: int) -> list[str]:
        # A scope below a grant is a root of its own (the token sees only that part of the grant).
        candidates = sorted({*self.grants, *self.scopes}, key=lambda g: (g.count("/"), g))
        roots: list[str] = []
        found: set[str] = set()
        for g in candidates:
            if any(a in found for a in uidp.ancestry(g)):
                continue
            if self.holds(required, g):
                roots.append(g)
                found.add(g)
        return roots

    def check_grantable(self, granted: int, at: str) -> None:
        """No escalation: the caller may only grant capabilities it holds itself at that scope."""
        self.check_obtainable({at: granted}, "cannot grant")

    def check_obtainable(self, obtainable: Mapping[str, int], action: str) -> None:
        """No escalation, in its general form: the caller may only cause capabilities (group -> mask) to be
        obtained that it holds itself at each of those groups. Granting a role is one case; changing who can
        act as an identity (its claimMatch or staticKeys), or who logs in through an identity provider and with
        which roles, is another: that change is acting as the identity, so it needs everything it holds."""
        for at in sorted(obtainable):
            missing = obtainable[at] & ~self.held_at(at)
            if missing:
                raise errors.permission_denied(
                    f"{action} capabilities you do not hold at {at}: {', '.join(caps.names(missing))}"
                )


def grants_of(identity: str, rows: list[tuple[str, str]]) -> dict[str, int]:
    """What `identity` holds through its role bindings `rows` ((group, capability names)): group -> capability
    mask, clipped to its home."""
    masks: dict[str, int] = {}  # few distinct roles, many bindings
    pairs = []
    for group, names in rows:
        m = masks.get(names)
        if m is None:
            m = masks[names] = caps.mask(names.split(","))
        pairs.append((group, m))
    return clipped(identity, pairs)


def clipped(identity: str, pairs: list[tuple[str, int]]) -> dict[str, int]:
    """(group, capability mask) pairs as grants of `identity`: clipped to its home, merged per group."""
    home = uidp.parent(identity)
    by_group: dict[str, int] = {}
    for group, m in pairs:
        at = _clip(group, home)
        if at is not None:
            by_group[at] = by_group.get(at, 0) | m
    return by_group


class Authorizer:
    """Caches each identity's grants and keeps the cache exactly as fresh as the database."""

    def __init__(self, db: Database, source: GrantSource) -> None:
        self.db = db
        self.source = source
        self._cache: dict[str, Grants] = {}
        self._roles: dict[str, int] = {}
        self._version: int | None = None
        self._stale = True
        # Incremented whenever cached grants are dropped: a Principal built at an older epoch is stale.
        self.epoch = 0
        self._listener: Any = None  # a store Listener on CHANNEL, from start()
        # The version read on its way, and the one that the requests arrived since then wait for (see module doc).
        self._reading: asyncio.Future[Any] | None = None
        self._queued: asyncio.Future[Any] | None = None

    # ------------------------------------------------------------------ freshness

    async def start(self) -> None:
        # Grants change in other processes. On SQLite the listener reports any commit at once; a listener that
        # cannot (PostgreSQL's notifications lag) is no use here: sync reads the version row instead.
        listener = await self.db.listen(CHANNEL, self._notified)
        if listener.exact:
            self._listener = listener
        else:
            await listener.close()

    def _notified(self) -> None:
        self._stale = True

    async def stop(self) -> None:
        if self._listener is not None:
            listener, self._listener = self._listener, None
            await listener.close()

    def invalidate(self) -> None:
        """This process changed grants: forget them now, not when the notification arrives."""
        self._forget()
        self._stale = True

    def _forget(self) -> None:
        self._cache.clear()
        self._roles.clear()
        self.epoch += 1

    async def sync(self) -> None:
        """Make the cache as fresh as the database: every grant change committed before this call, by any process,
        is seen. Without a database round trip when the listener proves nothing changed (SQLite); on PostgreSQL
        a notification may still be on its way, so the version row is read every time."""
        listener = self._listener
        if listener is not None and listener.exact and not listener.changed() and not self._stale:
            return
        self._stale = False
        if listener is None:
            v = await self._version_read_after_now()
        else:
            v = await self._read_version()
        if v != self._version:
            self._version = v
            self._forget()

    async def _read_version(self) -> Any:
        return await self.db.fetchval("SELECT v FROM authz_version WHERE id = 1")

    def _version_read_after_now(self) -> asyncio.Future[Any]:
        """A read of the version row that begins after this call: the one on its way began before, so the
        caller waits for the next, shared by everyone who arrives until it begins."""
        if self._reading is None:
            self._reading = self._begin_read()
            return asyncio.shield(self._reading)
        if self._queued is None:
            self._queued = asyncio.get_running_loop().create_future()
        return asyncio.shield(self._queued)

    def _begin_read(self) -> asyncio.Future[Any]:
        task = asyncio.ensure_future(self._read_version())
        task.add_done_callback(self._read_done)
        return task

    def _read_done(self, done: asyncio.Future[Any]) -> None:
        queued, self._queued = self._queued, None
        self._reading = None
        if queued is None:
            return
        self._reading = nxt = self._begin_read()

        def deliver(t: asyncio.Future[Any]) -> None:
            if queued.done():
                return
            if t.cancelled():
                queued.cancel()
            elif t.exception() is not None:
                queued.set_exception(t.exception())  # type: ignore[arg-type]
            else:
                queued.set_result(t.result())

        nxt.add_done_callback(deliver)
        if not done.cancelled():
            done.exception()  # retrieved: a failed read is reported to its own waiters only

    # ------------------------------------------------------------------ lookups

    async def grants(self, identity: str) -> Grants:
        """The identity's grants as of the last sync."""
        g = self._cache.get(identity)
        metrics.count(metrics.GRANTS_MISS if g is None else metrics.GRANTS_HIT)
        if g is None:
            g = await self._load(identity)
            if len(self._cache) > 100_000:
                self._cache.clear()
            self._cache[identity] = g
        return g

    async def _load(self, identity: str) -> Grants:
        if not await self.source.identity_exists(self.db, identity):
            return Grants(exists=False)
        bindings = await self.source.bindings(self.db, identity)
        masks = await self.role_masks({role for _, role in bindings})
        return Grants(exists=True, by_group=clipped(identity, [(g, masks[role]) for g, role in bindings]))

    async def role_masks(self, role_uids: Collection[str]) -> dict[str, int]:
        """Capability mask per role (0: no such role), cached until grants change; the unknown read at once."""
        missing = [uid for uid in role_uids if uid not in self._roles]
        if missing:
            names = await self.source.role_capabilities(self.db, missing)
            for uid in missing:
                self._roles[uid] = caps.mask(names[uid].split(",")) if names.get(uid) else 0
        return {uid: self._roles[uid] for uid in role_uids}

    async def role_mask(self, role_uid: str) -> int:
        return (await self.role_masks([role_uid]))[role_uid]

    async def principal(self, claims: AccessClaims) -> Principal:
        """The caller of a verified token, with its grants as of the last sync (call `sync` first)."""
        g = await self.grants(claims.subject)
        if not g.exists:
            raise errors.unauthenticated("the identity of this token no longer exists")
        by_group = g.by_group
        if claims.grants:
            by_group = dict(by_group)
            home = uidp.parent(claims.subject)
            for scope, role in claims.grants:
                at = _clip(scope, home)
                if at is not None:
                    by_group[at] = by_group.get(at, 0) | await self.role_mask(role)
        limit = caps.mask(claims.cap_limit) if claims.cap_limit else -1
        return Principal(claims.subject, by_group, claims, claims.scopes, limit)


def caller(ctx: Context) -> Principal:
    """The authenticated caller of a method that requires one, with its authorization checks."""
    assert isinstance(ctx.principal, Principal), "method requires authentication"
    return ctx.principal
