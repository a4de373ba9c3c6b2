"""The caller context every RPC implementation receives, and the mark that names an implementation.

Each RPC is implemented once, as `async def impl(request: <Request record>, ctx: Context) -> <record>`,
marked with its full proto name by `@rpc`; its domain package lists its RPC modules (`service.wiring`), and
the app gives the dispatcher the table of them all. Both transports call it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol
from urllib.parse import unquote

from platform_api.service.methods import MethodInfo
from platform_api.service.runtime import Runtime


class Caller(Protocol):
    """What this layer needs of an authenticated caller; `auth.authz.Principal` is the one there is, and
    domains reach its authorization checks through `auth.authz.caller(ctx)`."""

    @property
    def subject(self) -> str: ...

    def visible_roots(self, required: int) -> list[str]: ...


Handler = Callable[[Any, "Context"], Awaitable[Any]]
_RPC_NAME = "__rpc_name__"


@dataclass
class Context:
    """What an implementation knows about the call: who, which method, request id."""

    method: str
    rt: Runtime
    request_id: str = ""
    # The raw Authorization header (HTTP) or metadata (gRPC) value.
    authorization: str = ""
    # The authenticated caller; None for methods that need no token.
    principal: Caller | None = None
    # For unscoped methods: the capabilities a row's group must grant for the caller to see it.
    required: int = 0
    # For Update RPCs: the caller gave no update mask, so the transport derived it from the fields sent.
    mask_inferred: bool = False
    state: dict[str, Any] = field(default_factory=dict)
    # The RPC being served (set by dispatch): what events and listings read of the contract.
    info: MethodInfo | None = None
    # The client's address (host, no port): the TCP peer over HTTP, `context.peer()`'s host over gRPC.
    peer: str = ""
    # Set by dispatch, whose caller encodes the answer at once: a List may then put stored bodies in it as
    # they are (`msgspec.Raw`; see listing.Table.bodies_are_answers). Code that reads an answer's items
    # (v1 adapters) runs the implementation in a context without it.
    raw_answers: bool = False

    @property
    def subject(self) -> str:
        """The caller's identity uid ('' when unauthenticated)."""
        return self.principal.subject if self.principal is not None else ""

    def visible_roots(self) -> list[str]:
        """The groups at which the caller holds this method's capabilities (none without a caller: fail closed)."""
        return self.principal.visible_roots(self.required) if self.principal is not None else []


def peer_host(peer: str) -> str:
    """The host of a gRPC peer string: 'ipv4:127.0.0.1:5555' -> '127.0.0.1', 'ipv6:[::1]:5555' -> '::1'
    (also percent-encoded, as newer gRPC cores write it); anything else (e.g. 'unix:/path') as given."""
    peer = unquote(peer)
    kind, _, rest = peer.partition(":")
    if kind in ("ipv4", "ipv6") and ":" in rest:
        return rest.rsplit(":", 1)[0].removeprefix("[").removesuffix("]")
    return peer


def rpc(full_name: str) -> Callable[[Handler], Handler]:
    """Mark `fn` as the implementation of e.g. 'chainguard.platform.registry.v2.ReposService.GetRepo' (only a
    mark: `service.wiring.handlers` collects the marked functions of the modules a domain lists)."""

    def mark(fn: Handler) -> Handler:
        setattr(fn, _RPC_NAME, full_name)
        return fn

    return mark


def rpc_name(value: object) -> str:
    """The method name `value` was marked with ('' for anything else)."""
    name = getattr(value, _RPC_NAME, "") if callable(value) else ""
    return name if isinstance(name, str) else ""
