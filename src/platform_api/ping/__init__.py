"""ping: /ping/v2/ping (no token)."""

from platform_api.ping import service
from platform_api.ping.v1 import ping as v1_ping
from platform_api.service.wiring import Domain, handlers

DOMAIN = Domain("ping", rpcs=handlers(service, v1_ping))
