"""Which upstream tokens an identity accepts, and the checks on an identity's settings.

Patterns are regular expressions with RE2 semantics (the reference is written in Go, whose patterns are
RE2), matched by `google-re2` in time linear in the input: they run on claims of tokens not yet verified,
so a pattern must never be able to stall the server. Patterns RE2 cannot compile (backreferences,
lookaround) are refused when written. Patterns are **anchored**: a pattern must match the whole claim value.
The reference leaves anchoring open and its server searches; an unanchored `myorg/.*` would also accept
`notmyorg/x`, so we choose the safe reading. Patterns that mean "contains" must say so (`.*myorg/.*`).
Patterns are at most MAX_PATTERN characters; claim values longer than MAX_CLAIM never match.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

import jwt
import re2
from msgspec import UNSET

from platform_api.core import clock, errors, uidp
from platform_api.core.netcheck import is_loopback_host as is_loopback_host
from platform_api.core.netcheck import url_allowed as url_allowed  # moved there, shared with sinks
from platform_api.gen.records.iam_v2 import Identity_ClaimMatch as ClaimMatch
from platform_api.gen.records.iam_v2 import Identity_StaticKeys as StaticKeys

MAX_STATIC_KEYS_SECONDS = 365 * 24 * 3600
MAX_PATTERN = 1024
MAX_CLAIM = 4096
_RE2 = re2.Options()
_RE2.log_errors = False  # a refused pattern is the client's error, answered as such, not a log line
_RE2.max_mem = 1 << 20  # bytes for one compiled pattern: bounds what a stored pattern may cost


def normalize_issuer(issuer: str) -> str:
    """The reference's clients write Google's issuer without a scheme; both spellings are one issuer."""
    return "https://accounts.google.com" if issuer == "accounts.google.com" else issuer


def user_uid(issuer: str, subject: str) -> str:
    """The deterministic root-level uid of the user identity for (issuer, subject)."""
    return hashlib.sha256(f"platform-api user\n{normalize_issuer(issuer)}\n{subject}".encode()).hexdigest()[:40]


def member_uid(idp_uid: str, subject: str) -> str:
    """The uid of the identity a login through the identity provider `idp_uid` yields for `subject`: under
    the provider's group (so confined to it), derived from the provider and the subject, never from the issuer
    alone. Whoever configures a provider decides which tokens it accepts; it can only ever yield identities of
    its own group."""
    suid = hashlib.sha256(f"platform-api idp member\n{idp_uid}\n{subject}".encode()).hexdigest()[:16]
    return f"{uidp.parent(idp_uid)}/{suid}"


def trusted_issuers(trusted: Iterable[str], login_issuer: str) -> frozenset[str]:
    """The issuers the operator vouches for (`--trusted-issuer` and `--login-issuer`): the only ones that yield
    a person's global (root-level) identity and whose verified e-mail counts as verified."""
    return frozenset(normalize_issuer(i) for i in [*trusted, login_issuer] if i)


@lru_cache(maxsize=4096)
def _pattern(pattern: str) -> re2._Regexp | None:
    """The compiled pattern (None: RE2 refuses it). Cached: patterns come from stored identities."""
    try:
        return re2.compile(pattern, options=_RE2)
    except re2.error:
        return None


def _compile(pattern: str, field: str) -> None:
    if len(pattern) > MAX_PATTERN:
        raise errors.invalid_argument(field, f"{field} must be at most {MAX_PATTERN} characters")
    try:
        re2.compile(pattern, options=_RE2)
    except re2.error as e:
        reason = e.args[0].decode(errors="replace") if e.args and isinstance(e.args[0], bytes) else str(e)
        raise errors.invalid_argument(field, f"{field} is not a valid RE2 regular expression: {reason}") from None


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


# Static keys verify signatures only: public keys of asymmetric types. A symmetric ("oct") key would be a
# shared secret, readable by anyone who may list identities, and able to sign as well as verify.
PUBLIC_KEY_TYPES = frozenset({"RSA", "EC", "OKP"})
PRIVATE_MEMBERS = frozenset({"d", "p", "q", "dp", "dq", "qi", "oth", "k"})
MAX_JWKS = 64 * 1024


def parse_jwks(text: str, field: str) -> jwt.PyJWKSet:
    if len(text) > MAX_JWKS:
        raise errors.invalid_argument(field, f"{field} must be at most {MAX_JWKS} characters")
    try:
        data = json.loads(text)
        found = data.get("keys", [])
        if not isinstance(found, list) or not all(isinstance(k, dict) for k in found):
            raise ValueError("keys must be a list of JWKs")
        if any(k.get("kty") not in PUBLIC_KEY_TYPES or PRIVATE_MEMBERS & k.keys() for k in found):
            raise errors.invalid_argument(
                field, f"{field} must hold public keys only (kty RSA, EC or OKP, no private or symmetric members)"
            )
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
        if not isinstance(value, str) or len(value) > MAX_CLAIM or len(pattern) > MAX_PATTERN:
            return False
        compiled = _pattern(pattern)
        return compiled is not None and compiled.fullmatch(value) is not None
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
