"""/ping/v1/ping (chainguard.platform.ping.PingService.Ping) over ping/service.py: public (no token, as its v1
annotation says, so the anonymous routes' rate limit applies); the v1 `Response` carries the v2 answer's
text."""

from __future__ import annotations

from platform_api.gen.records import ping_v2 as v2
from platform_api.gen.records.ping import PingRequest, Response
from platform_api.ping import service
from platform_api.service import v1
from platform_api.service.context import Context, rpc


@rpc("chainguard.platform.ping.PingService.Ping")
async def ping(_: PingRequest, ctx: Context) -> Response:
    answer = await v1.call(ctx, service.ping, v2.PingRequest())
    return Response(response=answer.response)
