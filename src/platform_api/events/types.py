"""The event types a subscription's `types` filter may name: each entry is a full type, as a delivery's
`Ce-Type` carries it, or a prefix of one ending in `*`; no entries, every type (outbox.type_matches).

A filter naming no type we emit would be stored and never match (`registry.repo.created` for
`<prefix>.api.platform.registry.repo.created.v1`): it is refused when written, with the types there are.
The types: `<prefix>.api.<t>` for each `t` of the contract's events options (the methods' `events.type`)
and of the events emitted outside one (joining's access request); `<prefix>.<t>` for the data plane's
(registry/dataplane/notifications.py: a push or pull through the registry). `<prefix>` is Settings.event_type_prefix.
"""

from __future__ import annotations

from platform_api.core import errors
from platform_api.service.runtime import Runtime
from platform_api.signin import joining

# Emitted by outbox.emit_data_plane (registry/dataplane/notifications.py: f"registry.{kind}.v1").
DATA_PLANE = ("registry.pull.v1", "registry.push.v1")
FIELD = "types"


def api_types(rt: Runtime) -> list[str]:
    """The API's event types without their `<prefix>.api.` (every v2 and v1 method's, sorted)."""
    return sorted({m.event_type for m in rt.methods.values() if m.event_type} | {joining.EVENT_TYPE})


def known(rt: Runtime) -> frozenset[str]:
    """Every full event type this server emits."""
    prefix = rt.settings.event_type_prefix
    return frozenset([f"{prefix}.api.{t}" for t in api_types(rt)] + [f"{prefix}.{t}" for t in DATA_PLANE])


def check(rt: Runtime, types: list[str]) -> None:
    """INVALID_ARGUMENT on the first entry that names no type we emit (a `*` entry: that matches none)."""
    every = known(rt)
    for t in types:
        if t.endswith("*"):
            if not any(k.startswith(t[:-1]) for k in every):
                raise errors.invalid_argument(FIELD, f"no event type starts with {t[:-1]!r}; {_listing(rt)}")
        elif t not in every:
            meant = _meant(rt, t, every)
            hint = f" (did you mean {meant!r}?)" if meant else ""
            raise errors.invalid_argument(FIELD, f"unknown event type {t!r}{hint}; {_listing(rt)}")


def _meant(rt: Runtime, t: str, every: frozenset[str]) -> str:
    """The one full type a short name (`registry.repo.created`) or one under the other prefix
    (`dev.chainguard.api.…` for ours) stands for; '' when none or several do."""
    prefix = rt.settings.event_type_prefix
    found = set()
    for k in every:
        short = k.removeprefix(prefix + ".").removeprefix("api.")
        for whole, tail in ((k, t), (k, t + ".v1"), (t, short)):
            if ("." + whole).endswith("." + tail):
                found.add(k)
    return found.pop() if len(found) == 1 else ""


def _listing(rt: Runtime) -> str:
    """The types there are, compactly (a gRPC error's message and details travel in its trailers)."""
    prefix = rt.settings.event_type_prefix
    return (
        f"a type is a full name, {prefix}.api. followed by one of {', '.join(api_types(rt))}; or {prefix}."
        f" followed by one of {', '.join(DATA_PLANE)}; or a prefix of those ending in '*'; no types: every type"
    )
