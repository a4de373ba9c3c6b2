"""Headless login's encryption (README "Signing in (people)"): the result of a login finished in a browser on
another machine reaches the CLI that asked for it, and nobody else.

The CLI makes a P-256 key pair and sends its public key as `headless_code` (base64url, no padding, of the
uncompressed point: 65 bytes, 87 characters). When the login finishes, the server makes an ephemeral P-256
key pair, derives a key with ECDH and HKDF-SHA256 (no salt, info `INFO`), and encrypts the result (JSON
`{"token", "refreshToken", "expiry"}`) with AES-256-GCM: `encryptedIdtoken` = 12-byte nonce || ciphertext
and tag, the associated data being the CLI's public key then the ephemeral one. `ecdhPublicKey` is the
ephemeral public key (uncompressed point). Whoever sees the code (it is in the URL shown on screen) can poll
for the answer but cannot read it.
"""

from __future__ import annotations

import base64
import binascii
import os

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

INFO = b"platform-api headless login v1"
POINT_BYTES = 65
CODE_CHARS = 87


class BadCode(ValueError):
    pass


def public_key(code: str) -> bytes:
    """The uncompressed P-256 point a `headless_code` carries; BadCode if it is not one."""
    if len(code) != CODE_CHARS:
        raise BadCode(f"must be {CODE_CHARS} characters: base64url of an uncompressed P-256 public key")
    try:
        point = base64.urlsafe_b64decode(code + "=")
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    except (ValueError, binascii.Error):
        raise BadCode("is not base64url of an uncompressed P-256 public key") from None
    return point


def _key(private: ec.EllipticCurvePrivateKey, peer_point: bytes) -> bytes:
    peer = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), peer_point)
    shared = private.exchange(ec.ECDH(), peer)
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=INFO).derive(shared)


def seal(client_point: bytes, plaintext: bytes) -> tuple[bytes, bytes]:
    """(ephemeral public point, nonce || ciphertext) for the holder of `client_point`'s private key."""
    ephemeral = ec.generate_private_key(ec.SECP256R1())
    eph_point = ephemeral.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
    nonce = os.urandom(12)
    sealed = AESGCM(_key(ephemeral, client_point)).encrypt(nonce, plaintext, client_point + eph_point)
    return eph_point, nonce + sealed
