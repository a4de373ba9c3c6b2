"""The one place every RPC passes through, whatever the transport: authentication and
authorization (from the method's declared options), then the implementation.
"""

from __future__ import annotations

from typing import Any

from platform_api.api.schema import MethodInfo
from platform_api.core import errors
from platform_api.core.service import HANDLERS, Context


async def call(method: MethodInfo, request: Any, ctx: Context) -> Any:
    # Authorization hook: the identity issue adds token verification and capability checks here,
    # from method.auth_disabled / capabilities / unscoped / scope_field, for both transports at once.
    impl = HANDLERS.get(method.full_name)
    if impl is None:
        raise errors.unimplemented(f"{method.service.rsplit('.', 1)[-1]}.{method.name}")
    return await impl(request, ctx)
