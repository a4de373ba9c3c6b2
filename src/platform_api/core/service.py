"""The registry of RPC implementations and the caller context they receive.

Each RPC is implemented once, as `async def impl(request: <Request record>, ctx: Context) -> <record>`,
registered under its full proto name with @rpc; both transports call it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from platform_api.core.runtime import Runtime

Handler = Callable[[Any, "Context"], Awaitable[Any]]
HANDLERS: dict[str, Handler] = {}


@dataclass
class Context:
    """What an implementation knows about the call: who, which method, request id."""

    method: str
    rt: Runtime
    request_id: str = ""
    # Set by authentication (identity issue); None while the route needs no token.
    subject: str | None = None
    state: dict[str, Any] = field(default_factory=dict)


def rpc(full_name: str) -> Callable[[Handler], Handler]:
    """Register `fn` as the implementation of e.g. 'platform.registry.v2.ReposService.GetRepo'."""

    def wrap(fn: Handler) -> Handler:
        if full_name in HANDLERS:
            raise RuntimeError(f"{full_name} implemented twice")
        HANDLERS[full_name] = fn
        return fn

    return wrap
