"""Tokens for a Distribution registry (distribution/distribution 2.8, `registry/auth/token`).

Distribution trusts a token's signing key in one of two ways: an `x5c` header whose chain ends at a
certificate of its `rootcertbundle`, or a `kid` in libtrust's key-id form naming a key of that bundle. With
`kid`, every rotation of our signing keys would need a new bundle and a registry restart before the new key
signs. So registry tokens carry `x5c`: a certificate for the issuer's current signing key, issued by a
registry CA of our own (an EC P-256 key kept in service_secrets). The CA's certificate is the bundle
(`platform-api registry-config` writes it); rotating signing keys changes nothing on the registry's side.

The CA certificate is rebuilt from the key the same way everywhere (fixed name, serial and validity, and
deterministic ECDSA is not needed: any certificate for the same name and key verifies the same chains).
"""

from __future__ import annotations

import base64
import datetime
import hashlib
import secrets
import time
from typing import Any

import jwt
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from platform_api.auth.keys import ALG, KeySet, SigningKey
from platform_api.service import runtime
from platform_api.store.db import Database

CA_SECRET = "registry_ca_key"
CA_NAME = "platform-api registry token CA"
TOKEN_SECONDS = 300
_EPOCH = datetime.datetime(2020, 1, 1, tzinfo=datetime.UTC)
_END = datetime.datetime(2100, 1, 1, tzinfo=datetime.UTC)


def _name(common: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])


class RegistryCA:
    """The registry CA of this database, and the certificates it issued for our signing keys."""

    def __init__(self, key_pem: bytes) -> None:
        key = serialization.load_pem_private_key(key_pem, password=None)
        assert isinstance(key, ec.EllipticCurvePrivateKey)
        self._key = key
        public_der = key.public_key().public_bytes(
            serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
        )
        self.cert = (
            x509.CertificateBuilder()
            .subject_name(_name(CA_NAME))
            .issuer_name(_name(CA_NAME))
            .public_key(key.public_key())
            .serial_number(int.from_bytes(hashlib.sha256(public_der).digest()[:16], "big") >> 1)
            .not_valid_before(_EPOCH)
            .not_valid_after(_END)
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
            .sign(key, hashes.SHA256())
        )
        self._leaves: dict[str, str] = {}  # signing key id -> base64 DER certificate

    def bundle_pem(self) -> bytes:
        """What Distribution's `rootcertbundle` file holds."""
        return self.cert.public_bytes(serialization.Encoding.PEM)

    def leaf(self, signing: SigningKey) -> str:
        """The certificate (base64 DER, as `x5c` carries it) of `signing`'s public key, issued by this CA."""
        cert = self._leaves.get(signing.kid)
        if cert is None:
            der = (
                x509.CertificateBuilder()
                .subject_name(_name(signing.kid))
                .issuer_name(_name(CA_NAME))
                .public_key(signing.public)
                .serial_number(x509.random_serial_number())
                .not_valid_before(_EPOCH)
                .not_valid_after(_END)
                .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
                .add_extension(
                    x509.KeyUsage(True, False, False, False, False, False, False, False, False), critical=True
                )
                .sign(self._key, hashes.SHA256())
                .public_bytes(serialization.Encoding.DER)
            )
            cert = self._leaves[signing.kid] = base64.b64encode(der).decode()
        return cert

    def sign(self, keys: KeySet, claims: dict[str, Any]) -> str:
        """A registry token: `claims` signed with the issuer's current key, its certificate in `x5c`."""
        signing = keys.signing
        if signing is None:
            raise RuntimeError("no signing key loaded")
        headers = {"typ": "JWT", "x5c": [self.leaf(signing)]}
        return jwt.encode(claims, signing.private, algorithm=ALG, headers=headers)


async def load(db: Database) -> RegistryCA:
    """This database's registry CA, created on first use (concurrent creators agree on the first)."""
    pem = ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    return RegistryCA(await runtime.first_service_value(db, CA_SECRET, pem))


async def of(rt: runtime.Runtime) -> RegistryCA:
    """The registry CA of this process's database, loaded once per process (a part of the Runtime)."""
    found = rt.parts.get(RegistryCA)
    if not isinstance(found, RegistryCA):
        found = await load(rt.db)
        rt.add(found)
    return found


def claims(issuer: str, service: str, subject: str, access: list[dict[str, Any]]) -> dict[str, Any]:
    """The claim set Distribution checks: iss, aud (its `service`), exp/nbf (60 s leeway), and `access`."""
    now = int(time.time())
    return {
        "iss": issuer,
        "sub": subject,
        "aud": service,
        "iat": now,
        "nbf": now - 5,
        "exp": now + TOKEN_SECONDS,
        "jti": secrets.token_hex(16),
        "access": access,
    }
