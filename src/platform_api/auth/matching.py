"""Which upstream tokens an identity accepts (reference 10.5), and the checks on an identity's settings.

Patterns are regular expressions (Python `re`, close to RE2 for the patterns people write) and are
**anchored**: a pattern must match the whole claim value (`fullmatch`). The reference leaves anchoring
open and its server searches; an unanchored `myorg/.*` would also accept `notmyorg/x`, so we choose the
safe reading. Patterns that mean "contains" must say so (`.*myorg/.*`).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from typing import Any

import jwt
from msgspec import UNSET

from platform_api.core import clock, errors
from platform_api.core.netcheck import is_loopback_host as is_loopback_host
from platform_api.core.netcheck import url_allowed as url_allowed  # moved there, shared with sinks
from platform_api.gen.records.iam_v2 import ClaimMatch, StaticKeys

MAX_STATIC_KEYS_SECONDS = 365 * 24 * 3600
MAX_PATTERN = 1024


def normalize_issuer(issuer: str) -> str:
    """The reference's clients write Google's issuer without a scheme; both spellings are one issuer."""
    return "https://accounts.google.com" if issuer == "accounts.google.com" else issuer


def user_uid(issuer: str, subject: str) -> str:
    """The deterministic root-level uid of the user identity for (issuer, subject)."""
    return hashlib.sha256(f"platform-api user\n{normalize_issuer(issuer)}\n{subject}".encode()).hexdigest()[:40]


def _compile(pattern: str, field: str) -> None:
    if len(pattern) > MAX_PATTERN:
        raise errors.invalid_argument(field, f"{field} must be at most {MAX_PATTERN} characters")
    try:
        re.compile(pattern)
    except re.error as e:
        raise errors.invalid_argument(field, f"{field} is not a valid regular expression: {e}") from None


def check_claim_match(cm: ClaimMatch, field: str = "claim_match") -> None:
    pairs = (("issuer", cm.issuer, cm.issuer_pattern), ("subject", cm.subject, cm.subject_pattern))
    for name, exact, pattern in pairs:
        if exact is not UNSET and pattern is not UNSET:
            raise errors.invalid_argument(f"{field}.{name}", f"set only one of {name} and {name}_pattern")
        if not exact and not pattern:
            raise errors.invalid_argument(f"{field}.{name}", f"one of {name} and {name}_pattern is required")
    if cm.audience is not UNSET and cm.audience_pattern is not UNSET:
        raise errors.invalid_argument(f"{field}.audience", "set only one of audience and audience_pattern")
    for name, value in (("issuer_pattern", cm.issuer_pattern), ("subject_pattern", cm.subject_pattern),
                        ("audience_pattern", cm.audience_pattern)):  # fmt: skip
        if isinstance(value, str) and value:
            _compile(value, f"{field}.{name}")
    for key, value in cm.claim_patterns.items():
        _compile(value, f"{field}.claim_patterns[{key}]")


def parse_jwks(text: str, field: str) -> jwt.PyJWKSet:
    try:
        data = json.loads(text)
        if any("d" in k for k in data.get("keys", [])):
            raise errors.invalid_argument(field, f"{field} must hold public keys only")
        keys = jwt.PyJWKSet.from_dict(data)
    except errors.ApiError:
        raise
    except Exception:
        raise errors.invalid_argument(field, f"{field} must be a JWKS document with at least one usable key") from None
    return keys


def check_static_keys(sk: StaticKeys, field: str = "static_keys") -> StaticKeys:
    """Validated, with the expiration defaulted and capped at 365 days from now."""
    for name in ("issuer", "subject", "issuer_keys"):
        if not getattr(sk, name):
            raise errors.invalid_argument(f"{field}.{name}", f"{field}.{name} is required")
    parse_jwks(sk.issuer_keys, f"{field}.issuer_keys")
    if len(sk.audiences) > 1:
        raise errors.invalid_argument(f"{field}.audiences", "at most one audience is supported")
    now = clock.to_epoch(clock.now())
    latest = now + MAX_STATIC_KEYS_SECONDS
    exp = clock.to_epoch(sk.expiration_time) if sk.expiration_time else latest
    if exp <= now:
        raise errors.invalid_argument(f"{field}.expiration_time", "expiration_time must be in the future")
    return StaticKeys(
        issuer=sk.issuer,
        subject=sk.subject,
        issuer_keys=sk.issuer_keys,
        expiration_time=clock.from_epoch(min(exp, latest)),
        audiences=list(sk.audiences),
    )


def _text(value: Any) -> Any:
    """Claim values compare as the strings a claims map holds ("true", "42")."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value) if isinstance(value, int | float) else value


def _one(exact: Any, pattern: Any, value: Any) -> bool:
    value = _text(value)
    if isinstance(exact, str) and exact:
        return isinstance(value, str) and value == exact
    if isinstance(pattern, str) and pattern:
        return isinstance(value, str) and re.fullmatch(pattern, value) is not None
    return False


def audiences(claims: dict[str, Any]) -> list[str]:
    aud = claims.get("aud")
    if isinstance(aud, str):
        return [aud]
    return [a for a in aud if isinstance(a, str)] if isinstance(aud, list) else []


def issuer_may_match(cm: ClaimMatch, issuer: str) -> bool:
    """The issuer check alone: decides whether the upstream issuer may be contacted at all."""
    return _one(cm.issuer and normalize_issuer(cm.issuer), cm.issuer_pattern, normalize_issuer(issuer))


def claim_match_accepts(cm: ClaimMatch, claims: dict[str, Any], default_audiences: Iterable[str]) -> bool:
    """Whether verified upstream `claims` satisfy every part of `cm`."""
    if not issuer_may_match(cm, str(claims.get("iss", ""))):
        return False
    if not _one(cm.subject, cm.subject_pattern, claims.get("sub")):
        return False
    auds = audiences(claims)
    if cm.audience or cm.audience_pattern:
        if not any(_one(cm.audience, cm.audience_pattern, a) for a in auds):
            return False
    elif not set(auds) & set(default_audiences):
        return False
    for key, want in cm.claims.items():
        if _text(claims.get(key)) != want:
            return False
    return all(_one("", pattern, claims.get(key)) for key, pattern in cm.claim_patterns.items())
