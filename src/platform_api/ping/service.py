"""Ping: a connectivity check that needs no token."""

from __future__ import annotations

from platform_api.core.service import Context, rpc
from platform_api.gen.records.ping_v2 import PingRequest, PingResponse


@rpc("chainguard.platform.ping.v2.PingService.Ping")
async def ping(_: PingRequest, ctx: Context) -> PingResponse:
    return PingResponse(response="pong")
