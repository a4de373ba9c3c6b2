"""Ping: a connectivity check that needs no token."""

from __future__ import annotations

from platform_api.gen.records.ping_v2 import PingRequest, PingResponse
from platform_api.service.context import Context, rpc


@rpc("chainguard.platform.ping.v2.PingService.Ping")
async def ping(_: PingRequest, ctx: Context) -> PingResponse:
    return PingResponse(response="pong")
