"""Opaque page tokens: the keyset position of the last row, bound to its query and authenticated.

Layout (before URL-safe base64 without padding): 16-byte HMAC-SHA256 tag, then the JSON payload
[version, query fingerprint, issue time in seconds, [last row's order-key values]].
A token from another query or order_by, or altered in any byte, is INVALID_ARGUMENT; a genuine
token older than the lifetime (3 days) silently restarts the listing from the first page.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import time
from typing import Any

import msgspec

from platform_api.core import errors

LIFETIME_SECONDS = 3 * 24 * 3600
_VERSION = 1
_TAG = 16
_encoder = msgspec.json.Encoder()


def fingerprint(parts: Any) -> str:
    """Stable digest of a query (method, filters, order_by) that a token is bound to."""
    return hashlib.sha256(_encoder.encode(parts)).hexdigest()[:24]


def encode(key: bytes, query: str, last: list[Any], now: float | None = None) -> str:
    issued = int(time.time() if now is None else now)
    payload = _encoder.encode([_VERSION, query, issued, last])
    tag = hmac.new(key, payload, hashlib.sha256).digest()[:_TAG]
    return base64.urlsafe_b64encode(tag + payload).rstrip(b"=").decode()


def decode(key: bytes, token: str, query: str, now: float | None = None) -> list[Any] | None:
    """The keyset position, or None when the token has expired (restart from the beginning)."""
    bad = errors.invalid_argument("page_token", "page_token is malformed or was not issued by this service")
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
    except (binascii.Error, ValueError):
        raise bad from None
    tag, payload = raw[:_TAG], raw[_TAG:]
    if len(tag) != _TAG or not hmac.compare_digest(tag, hmac.new(key, payload, hashlib.sha256).digest()[:_TAG]):
        raise bad
    try:
        version, bound, issued, last = msgspec.json.decode(payload)
    except (msgspec.DecodeError, ValueError, TypeError):
        raise bad from None
    if version != _VERSION or not isinstance(last, list) or not isinstance(issued, int):
        raise bad
    if bound != query:
        raise errors.invalid_argument(
            "page_token", "page_token belongs to a different query or order_by; start again without it"
        )
    if (time.time() if now is None else now) - issued > LIFETIME_SECONDS:
        return None
    return last
