"""Headless login's cryptography (auth/headless.py) against the client's half (client/login.py, which imports
nothing of the server): the proof of the CLI's key, the confirmation code, and a result that opens only with
the key and the code it was sealed with."""

from __future__ import annotations

import base64
import json
import time

import pytest
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from platform_api.auth import headless
from platform_api.client import login as client_login


def _key() -> tuple[ec.EllipticCurvePrivateKey, bytes, str]:
    private = ec.generate_private_key(ec.SECP256R1())
    point = private.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
    return private, point, base64.urlsafe_b64encode(point).rstrip(b"=").decode()


def test_the_clients_proof_is_accepted_within_the_skew() -> None:
    private, _, code = _key()
    now = int(time.time())
    for at, ok in ((now, True), (now - 60, True), (now + 60, True), (now - 61, False), (now + 61, False)):
        problem = headless.check_proof(code, at, client_login.proof(private, code, at), now=now)
        assert (problem == "") if ok else ("within 60 s" in problem), (at - now, problem)


def test_a_proof_of_anything_else_is_refused() -> None:
    private, _, code = _key()
    other, _, other_code = _key()
    now = int(time.time())
    good = client_login.proof(private, code, now)
    refused = [
        ("", now), (good, 0),  # missing
        (client_login.proof(other, code, now), now),  # another key
        (client_login.proof(private, other_code, now), now),  # signed for another code
        (client_login.proof(private, code, now - 1), now),  # another time
        (good[:-2] + ("AA" if not good.endswith("AA") else "BB"), now),  # altered
        (good + "A", now), ("!" * 86, now),  # malformed
    ]  # fmt: skip
    for signature, at in refused:
        assert headless.check_proof(code, at, signature) != "", (signature, at)


def test_confirmation_codes() -> None:
    codes = {headless.new_confirmation() for _ in range(200)}
    assert len(codes) == 200
    for code in codes:
        assert len(code) == 8 and set(code) <= set(headless.CONFIRMATION_ALPHABET)
    assert not set("01OIL") & set(headless.CONFIRMATION_ALPHABET)
    assert headless.shown("K7QDM2XP") == "K7QD-M2XP"
    assert headless.normalize_confirmation(" k7qd-m2xp ") == "K7QDM2XP"
    assert client_login.normalize_confirmation("k7qd m2xp") == "K7QDM2XP"


def test_a_result_opens_with_its_key_and_its_confirmation_code_only() -> None:
    private, point, _ = _key()
    other, _, _ = _key()
    eph, sealed = headless.seal(point, json.dumps({"token": "t"}).encode(), "K7QDM2XP")
    assert json.loads(client_login._open_sealed(private, point, eph, sealed, "k7qd-m2xp")) == {"token": "t"}
    with pytest.raises(InvalidTag):  # a login someone else finished shows them another code
        client_login._open_sealed(private, point, eph, sealed, "ABCD-EFGH")
    with pytest.raises(InvalidTag):
        client_login._open_sealed(other, point, eph, sealed, "K7QDM2XP")
    assert client_login.HEADLESS_INFO == headless.INFO and client_login.PROOF_CONTEXT == headless.PROOF_CONTEXT
