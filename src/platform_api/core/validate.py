"""Field validation rules of the reference (4.3); each failure is INVALID_ARGUMENT naming the field."""

from __future__ import annotations

import re

from platform_api.core import errors, uidp

NAME = re.compile(r"[a-z0-9 ._-]{1,}")
DESCRIPTION = re.compile(r"[\S ]{0,512}")
TAG = re.compile(r"[a-zA-Z0-9_][a-zA-Z0-9._-]{0,127}")
DIGEST = re.compile(r"sha256:[0-9a-f]{64}")
ALIAS = re.compile(r"[a-zA-Z0-9_.\-/]*[a-zA-Z0-9_.\-]:[a-zA-Z0-9_.\-]+")
MAX_NAME = 255


def name(value: str, field: str = "name") -> None:
    if not NAME.fullmatch(value) or len(value) > MAX_NAME:
        raise errors.invalid_argument(
            field, f'{field} must match "^[a-z0-9 ._-]{{1,}}$" (at most {MAX_NAME} characters)'
        )


def description(value: str, field: str = "description") -> None:
    if not DESCRIPTION.fullmatch(value):
        raise errors.invalid_argument(field, f"{field} must be at most 512 characters without line breaks or tabs")


def uid(value: str, field: str = "uid") -> None:
    if not uidp.valid(value):
        raise errors.invalid_argument(
            field, f"{field} must be a uid path matching ^[0-9a-f]{{40}}(?:/[0-9a-f]{{16}})*$"
        )


def tag_name(value: str, field: str = "name") -> None:
    if not TAG.fullmatch(value):
        raise errors.invalid_argument(field, f'{field} must match "^[a-zA-Z0-9_][a-zA-Z0-9._-]{{0,127}}$"')


def digest(value: str, field: str = "digest") -> None:
    if not DIGEST.fullmatch(value):
        raise errors.invalid_argument(field, f"{field} must be sha256:<64 lowercase hex digits>")


def alias(value: str, field: str = "aliases") -> None:
    if not ALIAS.fullmatch(value):
        raise errors.invalid_argument(field, f"{field} entries must be image references like 'name:tag'")


EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")
_DURATION = re.compile(r"(-?\d+(?:\.\d{1,9})?)s")


def email(value: str, field: str = "email") -> None:
    if len(value) > 254 or not EMAIL.fullmatch(value):
        raise errors.invalid_argument(field, f"{field} must be an e-mail address")


def seconds(value: str, field: str) -> float:
    """Seconds of a protobuf Duration ("<n>s"), which must not be negative."""
    m = _DURATION.fullmatch(value)
    if m is None:
        raise errors.invalid_argument(field, f'{field} must be a duration string of seconds, e.g. "604800s"')
    result = float(m.group(1))
    if result < 0:
        raise errors.invalid_argument(field, f"{field} must not be negative")
    return result


def duration(value: str | None, field: str, maximum: float) -> float:
    """Seconds of a required protobuf Duration, which must be positive and at most `maximum`."""
    if not value:
        raise errors.invalid_argument(field, f'{field} is required, e.g. "604800s"')
    result = seconds(value, field)
    if not 0 < result <= maximum:
        raise errors.invalid_argument(field, f"{field} must be more than 0s and at most {int(maximum)}s")
    return result


def format_duration(secs: float) -> str:
    """Protobuf's JSON form of a Duration: whole seconds, or 3, 6 or 9 fractional digits."""
    whole, nanos = divmod(round(secs * 1_000_000_000), 1_000_000_000)
    if nanos == 0:
        return f"{whole}s"
    if nanos % 1_000_000 == 0:
        return f"{whole}.{nanos // 1_000_000:03d}s"
    if nanos % 1000 == 0:
        return f"{whole}.{nanos // 1000:06d}s"
    return f"{whole}.{nanos:09d}s"


def text(value: str, field: str, required: bool = False, limit: int = 512) -> None:
    """Free text of an external system (an identifier, a claim name): printable, bounded."""
    if required and not value:
        raise errors.invalid_argument(field, f"{field} is required")
    if len(value) > limit or not value.isprintable():
        raise errors.invalid_argument(field, f"{field} must be at most {limit} printable characters")
