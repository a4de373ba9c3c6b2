"""The one place every RPC passes through, whatever the transport: the anonymous routes' rate limit or
authentication and authorization (from the method's declared options), then the implementation, whose
answer leaves as canonical JSON within the answer size backstop.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import msgspec

from platform_api.auth.access import Access, check_scope, scope_of
from platform_api.core import errors, metrics
from platform_api.core.ratelimit import AnonymousLimit
from platform_api.service import storage
from platform_api.service.context import Context
from platform_api.service.methods import MethodInfo
from platform_api.store import Unavailable

# No answer is larger, whatever the method: a backstop behind each method's own budget (Lists page at
# listing.MAX_ANSWER; the largest single answer, a vulnerability report with its raw file, stays below it).
MAX_ENCODED_ANSWER = 64 << 20
_encode = msgspec.json.Encoder().encode


async def call(method: MethodInfo, request: Any, ctx: Context) -> bytes:
    """Runs the RPC and records its count and latency by method and outcome code; the answer as JSON."""
    start = time.perf_counter()
    code = "OK"
    try:
        try:
            result = await _call(method, request, ctx)
        except Unavailable as e:  # 503; its reason says whether anything may have been stored
            raise storage.refused(e) from e
        answer: bytes = _encode(result)
        if len(answer) > MAX_ENCODED_ANSWER:
            raise errors.answer_too_large(MAX_ENCODED_ANSWER, "bytes", "ask for less")
        return answer
    except errors.ApiError as e:
        code = errors.CODE_NAMES.get(e.code, "UNKNOWN")
        raise
    except asyncio.CancelledError:
        code = "CANCELLED"
        raise
    except BaseException:
        code = "INTERNAL"  # what both transports answer for an unexpected exception
        raise
    finally:
        metrics.observe_rpc(method.grpc_path[1:], code, time.perf_counter() - start)


async def _call(method: MethodInfo, request: Any, ctx: Context) -> Any:
    ctx.info = method
    ctx.raw_answers = True  # the answer is encoded by `call` as soon as it returns
    impl = ctx.rt.handlers.get(method.impl)
    if method.auth_disabled:
        # Before any work: a method anyone may call is limited per client address (the token exchange's
        # methods, which need no token of ours either, also have their own, stricter limit).
        ctx.rt.part(AnonymousLimit).check(ctx.peer)
    else:
        ctx.principal = await ctx.rt.part(Access).authenticate(ctx.authorization)
        if impl is None:
            # A method of the contract that is not served answers so to any authenticated caller, whatever
            # the scope: a product-only call is not a missing capability.
            raise _unimplemented(method)
        if method.unscoped:
            ctx.required = method.required
        else:
            field = method.scope_field
            scope = scope_of(request, field)
            check_scope(ctx.principal, method.required, scope, field, method.scope_resource)
    if impl is None:
        raise _unimplemented(method)
    return await impl(request, ctx)


def _unimplemented(method: MethodInfo) -> errors.ApiError:
    return errors.unimplemented(method.full_name)
