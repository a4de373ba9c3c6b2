"""Headless login's cryptography (docs/sign-in.md): the result of a login finished in a browser on
another machine reaches the CLI that asked for it, and nobody else; and it is released only to the person who
finished that login.

The CLI makes a P-256 key pair and sends its public key as `headless_code` (base64url, no padding, of the
uncompressed point: 65 bytes, 87 characters). When the login finishes, the browser shows a confirmation code
(`new_confirmation`: 8 characters of an alphabet without look-alikes, shown `K7QD-M2XP`) that the person types
into the CLI. The server makes an ephemeral P-256 key pair, derives a key with ECDH and HKDF-SHA256 (no salt,
info `INFO`), and encrypts the result (JSON `{"token", "refreshToken", "expiry"}`) with AES-256-GCM:
`encryptedIdtoken` = 12-byte nonce || ciphertext and tag, the associated data being the CLI's public key, the
ephemeral one, then the confirmation code (normalized: `K7QDM2XP`), so a result sealed with another code (a
login someone else finished) never opens in the CLI. `ecdhPublicKey` is the ephemeral public key.

Reading the result needs proof of the CLI's private key (`check_proof`): an ECDSA P-256 / SHA-256 signature
(r || s, 64 bytes, base64url) over `PROOF_CONTEXT`, the code and a Unix time within `PROOF_SKEW` seconds of
ours. Whoever sees the code (it is in the URL shown on screen) can neither read nor use up the result.
"""

from __future__ import annotations

import base64
import binascii
import os
import secrets
import time

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

INFO = b"platform-api headless login v1"
PROOF_CONTEXT = b"platform-api headless session read v1"
PROOF_SKEW = 60  # seconds either side of our clock
POINT_BYTES = 65
CODE_CHARS = 87
SIGNATURE_CHARS = 86  # base64url of r || s
# No 0/O, 1/I/L: a person reads it off one screen and types it on another.
CONFIRMATION_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CONFIRMATION_CHARS = 8


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


def new_confirmation() -> str:
    return "".join(secrets.choice(CONFIRMATION_ALPHABET) for _ in range(CONFIRMATION_CHARS))


def shown(confirmation: str) -> str:
    """How the browser shows it: two groups of four."""
    half = CONFIRMATION_CHARS // 2
    return confirmation[:half] + "-" + confirmation[half:]


def normalize_confirmation(typed: str) -> str:
    """What the person typed, as compared and sealed: upper case, without separators."""
    return "".join(c for c in typed.upper() if c not in " -")


def proof_message(code: str, timestamp: int) -> bytes:
    return PROOF_CONTEXT + b"\n" + code.encode() + b"\n" + str(timestamp).encode()


def check_proof(code: str, timestamp: int, signature: str, now: float | None = None) -> str:
    """'' when `signature` proves the holder of `code`'s private key signed for `timestamp` (within PROOF_SKEW
    of now); else what is wrong."""
    if not signature or not timestamp:
        return "a signature and its timestamp are required (proof of the key the code carries)"
    if abs((time.time() if now is None else now) - timestamp) > PROOF_SKEW:
        return f"the timestamp must be within {PROOF_SKEW} s of the server's clock"
    if len(signature) != SIGNATURE_CHARS:
        return f"must be {SIGNATURE_CHARS} characters: base64url of r || s"
    try:
        raw = base64.urlsafe_b64decode(signature + "==")
        if len(raw) != 64:
            raise ValueError("not r || s")
        key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), public_key(code))
        der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
        key.verify(der, proof_message(code, timestamp), ec.ECDSA(hashes.SHA256()))
    except (ValueError, binascii.Error, BadCode, InvalidSignature):
        return "does not prove the key the code carries"
    return ""


def _key(private: ec.EllipticCurvePrivateKey, peer_point: bytes) -> bytes:
    peer = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), peer_point)
    shared = private.exchange(ec.ECDH(), peer)
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=INFO).derive(shared)


def seal(client_point: bytes, plaintext: bytes, confirmation: str) -> tuple[bytes, bytes]:
    """(ephemeral public point, nonce || ciphertext) for the holder of `client_point`'s private key who also
    types `confirmation`."""
    ephemeral = ec.generate_private_key(ec.SECP256R1())
    eph_point = ephemeral.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
    nonce = os.urandom(12)
    aad = client_point + eph_point + normalize_confirmation(confirmation).encode()
    sealed = AESGCM(_key(ephemeral, client_point)).encrypt(nonce, plaintext, aad)
    return eph_point, nonce + sealed
