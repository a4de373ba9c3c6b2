"""Data the server hands a client and reads back later, which the client can neither read nor alter (a pending
login's cookie): AES-256-GCM under a server secret, bound to a context by the associated data.

Layout (URL-safe base64 without padding): a 12-byte random nonce, then the ciphertext and its 16-byte tag.
"""

from __future__ import annotations

import base64
import binascii
import os

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

_NONCE = 12


def seal(key: bytes, plaintext: bytes, context: bytes) -> str:
    nonce = os.urandom(_NONCE)
    return base64.urlsafe_b64encode(nonce + AESGCM(key).encrypt(nonce, plaintext, context)).rstrip(b"=").decode()


def unseal(key: bytes, text: str, context: bytes, max_chars: int) -> bytes | None:
    """The plaintext `seal` was given with the same key and context; None for anything else (altered, sealed
    for another context or under another key, too long, not base64)."""
    if len(text) > max_chars:
        return None
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        if len(raw) < _NONCE + 16:
            return None
        return AESGCM(key).decrypt(raw[:_NONCE], raw[_NONCE:], context)
    except (InvalidTag, ValueError, binascii.Error):
        return None
