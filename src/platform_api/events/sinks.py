"""Which webhook sinks may be called (SSRF): checked when a subscription is written and again at every
delivery, against the addresses the host resolves to at that moment. The rules (https only, canonical
hosts, public addresses only, embedded IPv4, pinning) are `core.netcheck`'s, shared with the upstream
issuer fetches; sinks add a length limit and the operator's `sink_allowed_networks` (a self-hosted
receiver on the operator's private network).
"""

from __future__ import annotations

from platform_api.core import netcheck
from platform_api.core.netcheck import Target
from platform_api.core.settings import Settings

__all__ = ["MAX_SINK", "SinkRefused", "Target", "address_allowed", "resolve"]

MAX_SINK = 2048


class SinkRefused(Exception):
    """The sink may not be called; the message says why (shown to the subscription's owner)."""


def address_allowed(address: str, settings: Settings) -> bool:
    return netcheck.address_allowed(address, settings.insecure_allow_loopback, settings.sink_allowed_networks)


async def resolve(url: str, settings: Settings) -> Target:
    """Check `url` and resolve its host now; every address it resolves to must be allowed."""
    if not url:
        raise SinkRefused("sink is required")
    if len(url) > MAX_SINK:
        raise SinkRefused(f"sink must be at most {MAX_SINK} characters")
    try:
        return await netcheck.resolve(url, settings.insecure_allow_loopback, settings.sink_allowed_networks)
    except netcheck.Refused as e:
        raise SinkRefused(f"sink {e}") from None
