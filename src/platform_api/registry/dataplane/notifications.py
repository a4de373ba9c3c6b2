"""Distribution's notifications in (`POST /registry/notifications`): pushes, pulls and deletes become our
state and our events (docs/registry.md).

The envelope only says what happened; what we record comes from the registry itself: for a push by tag we
ask the registry where the tag points now and read that image back by digest (dataplane/content.py), so a
redelivered notification changes nothing and two quick pushes of one tag leave it where the registry has it,
whatever order their notifications arrive in. A delete is applied only once the registry no longer has the
manifest.

- push of a manifest or index by tag: the repo is created if missing (the token service granted the push at
  its group), the images are recorded (GetArchitectures, GetSize), the tag created or moved (CreateTag's
  event), and a `registry.push.v1` event emitted;
- pull of a manifest or blob of a repo we know: a `registry.pull.v1` event, unless the puller is this
  server reading a push back (its token's subject READER, the notification's actor);
- delete of a manifest: the tags pointing at it are deleted (DeleteTag's event), its image facts dropped.
The writes go through the registry's service functions below its RPCs (repos.new/insert, tags.put/remove,
images), not through RPC implementations: no caller's Context is made up for them, and every event of the
data plane is emitted here (`_emit`, `_emit_api`), by the notification's actor.
Events of the registry carry a deterministic id (from the notification's id): a redelivery emits nothing.
Pushes of blobs, pushes by digest alone (an index's platform manifests, before the index) and mounts record
nothing: the index pushed by tag brings its entries.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx
import msgspec

from platform_api.auth import registry_certs, upstream
from platform_api.auth.access import Access
from platform_api.core import errors, patterns, uidp, validate
from platform_api.gen.records.registry_v2 import DeleteTagRequest, Repo
from platform_api.outbox import outbox
from platform_api.registry import images, oci, queries, repos, tags
from platform_api.registry.dataplane import content, tokens
from platform_api.service import runtime
from platform_api.service.imports import BadInput
from platform_api.service.runtime import Runtime
from platform_api.store.db import Conn

log = logging.getLogger(__name__)
NOTIFY_PATH = "/registry/notifications"
SECRET = "registry_notify_secret"
REGISTRY_URL = "registry_url"
MAX_ENVELOPE = 1 << 20
MAX_EVENTS = 1000
LINK_WAIT, LINK_TRIES = 2.0, 10  # how long, in how many looks, a pushed tag is waited for (Registry.read)
MAX_TEXT = 1024  # of the envelope's free-text fields carried into our events
_DIGEST = patterns.Pattern(r"sha256:[0-9a-f]{64}")
_IDS = uuid.UUID("6f0b6c2e-6d1a-4d8e-9a57-2f4b0c6e1d3a")  # namespace of our ids for the registry's events
SERVICE = "chainguard.platform.registry.v2."
CREATE_REPO, CREATE_TAG, DELETE_TAG = (SERVICE + m for m in ("ReposService.CreateRepo", "TagsService.CreateTag",
                                                             "TagsService.DeleteTag"))  # fmt: skip
# Our own reads of the registry: the subject of the tokens we mint for them. Distribution names a token's
# subject as the actor of what it authorizes, so the notifications of our reads carry it; no caller's token
# does (theirs carry their identity's uid, which READER is not), so a pull by READER is ours, not an event.
READER = "platform-api"


class _Target(msgspec.Struct, rename="camel"):
    media_type: str = ""
    digest: str = ""
    repository: str = ""
    tag: str = ""
    url: str = ""


class _Request(msgspec.Struct, rename="camel"):
    addr: str = ""
    method: str = ""
    useragent: str = ""


class _Actor(msgspec.Struct):
    name: str = ""


class _Source(msgspec.Struct, rename="camel"):
    addr: str = ""
    instance_id: str = msgspec.field(default="", name="instanceID")


class Notice(msgspec.Struct):
    id: str = ""
    timestamp: str = ""
    action: str = ""
    target: _Target = msgspec.field(default_factory=_Target)
    request: _Request = msgspec.field(default_factory=_Request)
    actor: _Actor = msgspec.field(default_factory=_Actor)
    source: _Source = msgspec.field(default_factory=_Source)


class _Envelope(msgspec.Struct):
    events: list[Notice] = msgspec.field(default_factory=list)


def parse(body: bytes) -> list[Notice]:
    """The envelope's events (INVALID_ARGUMENT when it is not one)."""
    try:
        events = msgspec.json.decode(body, type=_Envelope).events
    except msgspec.DecodeError as e:
        raise errors.invalid_argument("events", f"not a notification envelope: {e}") from None
    except RecursionError:  # the decoder's nesting bound (the interpreter's recursion limit), met while decoding
        raise errors.invalid_argument("events", "not a notification envelope: nested too deeply") from None
    if len(events) > MAX_EVENTS:
        raise errors.invalid_argument("events", f"at most {MAX_EVENTS} events per envelope")
    return events


@dataclass
class Registry:
    """Where and how we read the registry back: through the process's async client (upstream.Outbound)."""

    base: str
    sign: Callable[[str], str]  # (name) -> a pull token for that repository
    client: httpx.AsyncClient
    allow_loopback: bool  # for the redirects' checks (netcheck.resolve)

    def _layout(self, name: str) -> content.RegistryLayout:
        return content.RegistryLayout(self.client, self.base, name, self.sign(name), self.allow_loopback)

    async def read(self, name: str, tag: str, pushed: str) -> tuple[oci.Descriptor | None, oci.Content | None]:
        """What `tag` names in repository `name` now, and its images (None, None: nothing). Distribution sends
        a push's notification once the manifest is stored but links the tag after that: while the tag does not
        name the digest `pushed`, it is asked again for up to LINK_WAIT seconds (a later push may have moved it
        on: what it names then is recorded, as that push's notification will record it too)."""
        layout = self._layout(name)
        top = await layout.head(tag)
        for _ in range(LINK_TRIES):
            if top is not None and top.digest == pushed:
                break
            await asyncio.sleep(LINK_WAIT / LINK_TRIES)
            top = await layout.head(tag)
        return (top, None) if top is None else (top, await layout.read_image(top))

    async def has(self, name: str, digest: str) -> bool:
        return await self._layout(name).head(digest) is not None


async def registry(rt: Runtime) -> Registry:
    """The registry as configured (`registry_url` setting, else what `registry-config` recorded)."""
    base = rt.settings.registry_url
    if not base:
        stored = await runtime.service_value(rt.db, REGISTRY_URL)
        base = stored.decode() if stored else ""
    if not base:
        raise errors.failed_precondition("REGISTRY_URL", "no registry URL: run `platform-api registry-config`")
    ca = await registry_certs.of(rt)
    access = rt.part(Access)
    await access.keys.refresh_if_stale()
    issuer, service = rt.settings.issuer, rt.settings.registry_service

    def sign(name: str) -> str:
        grant = [{"type": "repository", "name": name, "actions": ["pull"]}]
        return ca.sign(access.keys, registry_certs.claims(issuer, service, READER, grant))

    return Registry(base.rstrip("/"), sign, rt.part(upstream.Outbound).client, rt.settings.insecure_allow_loopback)


def _event_id(n: Notice, kind: str) -> str:
    return str(uuid.uuid5(_IDS, f"{n.source.instance_id}/{n.id}/{kind}"))


def _body(n: Notice, repo: str, kind: str) -> dict[str, Any]:
    document = n.target.media_type in oci.MANIFESTS + oci.INDEXES
    body: dict[str, Any] = {"repository": n.target.repository, "repo_id": repo, "digest": n.target.digest,
                            "type": "manifest" if document else "blob", "when": n.timestamp[:MAX_TEXT],
                            "location": "", "remote_address": n.request.addr[:MAX_TEXT],
                            "user_agent": n.request.useragent[:MAX_TEXT]}  # fmt: skip
    if n.target.tag:
        body["tag"] = n.target.tag[:MAX_TEXT]
    if kind == "pull":
        body["method"] = n.request.method[:MAX_TEXT]
    return body


def _actor(n: Notice) -> str:
    """The identity the registry authenticated (our token's subject), '' for anything else."""
    return n.actor.name if uidp.valid(n.actor.name) else ""


# Every event of the data plane is emitted by these two: the registry's own (push, pull) and the API's events
# of the repos and tags a notification creates, moves or deletes, by the notification's actor.


async def _emit(rt: Runtime, tx: Conn, n: Notice, kind: str, repo: str, extra: dict[str, Any]) -> None:
    await outbox.emit_data_plane(
        tx, rt.settings, f"registry.{kind}.v1", actor=_actor(n), event_id=_event_id(n, kind),
        source=n.source.addr or "registry", subject=repo, group=uidp.root(repo),
        bodytype=f"platform_api.registry.{kind.capitalize()}Event", body=_body(n, repo, kind) | extra,
    )  # fmt: skip


async def _emit_api(rt: Runtime, tx: Conn, n: Notice, method: str, body: Any) -> None:
    await outbox.emit_as(tx, rt.settings, rt.methods[method], {"subject": _actor(n)}, body)


async def apply(rt: Runtime, notices: list[Notice]) -> dict[str, int]:
    """Apply each notice in order; how many of each outcome. Raises content.Unreachable when the
    registry could not be read (the registry delivers the envelope again)."""
    outcomes: dict[str, int] = {}
    reg: Registry | None = None
    for n in notices:
        if n.action in ("push", "delete") and reg is None:
            reg = await registry(rt)
        try:
            outcome = await _one(rt, reg, n)
        except BadInput as e:  # the registry's content fails our checks: delivering it again changes nothing
            log.warning("registry notification %s (%s %s) not recorded: %s", n.id, n.action, n.target.repository, e)
            outcome = "refused"
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    return outcomes


async def _one(rt: Runtime, reg: Registry | None, n: Notice) -> str:
    # What goes into our reads of the registry (URL paths) and into events is checked first.
    digest = n.target.digest
    if not tokens.valid_path(n.target.repository) or (digest and not _DIGEST.fullmatch(digest)):
        return "refused"
    group, repo = await tokens.locate(rt.db, n.target.repository)
    if group is None:
        return "unmapped"
    document = n.target.media_type in oci.MANIFESTS + oci.INDEXES
    if n.action == "pull" and n.actor.name == READER:
        return "readBack"  # this server reading a push back (_push): no user pulled anything
    if n.action == "pull":
        if repo is None:
            return "unmapped"
        async with rt.db.transaction() as tx:
            await _emit(rt, tx, n, "pull", repo, {})
        return "pulled"
    if n.action == "push" and document and n.target.tag and reg is not None:
        return await _push(rt, reg, n, group, repo)
    if n.action == "delete" and n.target.digest and repo is not None and reg is not None:
        return await _delete(rt, reg, n, repo)
    return "ignored"


async def _push(rt: Runtime, reg: Registry, n: Notice, group: str, repo: str | None) -> str:
    name, tag = n.target.repository, n.target.tag
    if not validate.is_tag_name(tag):
        return "refused"
    top, found = await reg.read(name, tag, n.target.digest)
    if repo is None:
        if top is None:
            return "ignored"  # pushed and gone again before we looked
        repo = await _create_repo(rt, n, group, name.rsplit("/", 1)[1])
    async with rt.db.transaction() as tx:
        await repos.fetch(tx, repo, lock=True)
        previous = await queries.tag_by_name(tx, repo, tag)
        if top is None or found is None:
            if previous is not None:
                await _delete_tag(rt, tx, n, previous.uid)
        else:
            await images.flatten(tx, repo, found.images)
            for image in found.images.values():
                await images.put(tx, repo, image)
            written, outcome = await tags.put(tx, repo, tag, top.digest)
            if outcome != "unchanged":
                await _emit_api(rt, tx, n, CREATE_TAG, written)
        prior = previous.digest if previous is not None and top is not None and previous.digest != top.digest else ""
        await _emit(rt, tx, n, "push", repo, {"tag_previous_digest": prior} if prior else {})
    return "pushed"


async def _create_repo(rt: Runtime, n: Notice, group: str, name: str) -> str:
    """The repo a first push names (its event is CreateRepo's); a concurrent creator's when it won."""
    try:
        repo = repos.new(group, Repo(name=name))
        async with rt.db.transaction() as tx:
            await repos.insert(tx, repo, group)
            await _emit_api(rt, tx, n, CREATE_REPO, repo)
        return str(repo.uid)
    except errors.ApiError as e:
        if e.code != errors.ALREADY_EXISTS:
            raise
    found = await queries.repo_named(rt.db, group, name)
    if found is None:
        raise errors.internal()
    return found


async def _delete_tag(rt: Runtime, tx: Conn, n: Notice, uid: str) -> None:
    if await tags.remove(tx, uid):
        await _emit_api(rt, tx, n, DELETE_TAG, DeleteTagRequest(uid=uid))


async def _delete(rt: Runtime, reg: Registry, n: Notice, repo: str) -> str:
    if await reg.has(n.target.repository, n.target.digest):
        return "ignored"  # pushed again since: the registry has it
    async with rt.db.transaction() as tx:
        await repos.fetch(tx, repo, lock=True)
        for tag in await queries.tags_at(tx, repo, n.target.digest):
            await _delete_tag(rt, tx, n, tag.uid)
        await images.forget(tx, repo, n.target.digest)
    return "deleted"
