"""Request bodies, for every HTTP route (API or not): read at most a limit, decode JSON without surprises.

Plain ASGI (scope, receive), so both the API transport and the Starlette routes of auth/ use it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from platform_api.core import errors

MAX_JSON = 1 << 20
# Form parameters of the token routes and the register route's JSON: a few hundred bytes in practice.
MAX_FORM = 64 * 1024
_decode = msgspec.json.Decoder().decode


def too_large(limit: int) -> errors.ApiError:
    e = errors.ApiError(errors.RESOURCE_EXHAUSTED, f"Request body larger than {limit} bytes")
    # 413 rather than the table's 429: retrying an oversized body can never succeed.
    e.http_status = 413
    return e


async def read(scope: Mapping[str, Any], receive: Any, limit: int) -> bytes:
    """The whole body, or 413 as soon as the declared length or the bytes received pass `limit` (a chunked
    body has no declared length: it is never read further than one chunk past the limit)."""
    for k, v in scope["headers"]:
        if k == b"content-length" and v.isdigit() and int(v) > limit:
            raise too_large(limit)
    chunks = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise too_large(limit)
        chunks.append(chunk)
        if not message.get("more_body"):
            break
    return b"".join(chunks)


def decode_json(raw: bytes) -> Any:
    """Parsed JSON; malformed text, invalid UTF-8 and nesting too deep to parse are INVALID_ARGUMENT."""
    try:
        return _decode(raw)
    except msgspec.DecodeError as e:
        raise errors.invalid_argument("body", f"malformed JSON: {e}") from None
    except UnicodeDecodeError:
        raise errors.invalid_argument("body", "malformed JSON: not valid UTF-8") from None
    except RecursionError:
        raise errors.invalid_argument("body", "malformed JSON: nested too deeply") from None
