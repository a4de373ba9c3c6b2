"""Signing in, above IAM: the token exchange and registration (`sts`: /sts/exchange, /sts/register and their
gRPC methods), browser and headless login (`login`, its sealed pending state `login_state`: /oauth), joining an
organization by e-mail domain (`joining`, over the domains verified by DNS in `domains`), and the first
identity of a new installation (`bootstrap`, for the command line). What it contributes, collected by `app`: its
RPC implementations and what goes with a deleted group or identity (`cascades`).
"""

from platform_api.service.cascade import Cascade
from platform_api.service.wiring import Domain, handlers
from platform_api.signin import domains, joining, login, sts
from platform_api.signin.v1 import joining as v1_joining

DOMAIN = Domain(
    "signin",
    rpcs=handlers(joining, sts, login, v1_joining),
    cascades=(
        Cascade("group", "e-mail domains and access requests", remove=domains.delete_of_group),
        Cascade("identity", "refresh tokens", remove=sts.forget_identity),
        Cascade("identity", "access requests", remove=domains.delete_requests_of),
    ),
)
