"""Field validation rules of the reference (4.3); each failure is INVALID_ARGUMENT naming the field."""

from __future__ import annotations

from platform_api.core import errors, patterns, uidp
from platform_api.core.patterns import DIGITS, HEX, LETTERS, Pattern

NAME_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789 ._-"
TAG_CHARS = LETTERS + DIGITS + "._-"
ALIAS = Pattern(r"[a-zA-Z0-9_.\-/]*[a-zA-Z0-9_.\-]:[a-zA-Z0-9_.\-]+")
MAX_NAME = 255


def name(value: str, field: str = "name") -> None:
    if not value or len(value) > MAX_NAME or not patterns.only(value, NAME_CHARS):
        raise errors.invalid_argument(
            field, f'{field} must match "^[a-z0-9 ._-]{{1,}}$" (at most {MAX_NAME} characters)'
        )


def description(value: str, field: str = "description") -> None:
    if len(value) > 512 or not patterns.no_whitespace_but_spaces(value):
        raise errors.invalid_argument(field, f"{field} must be at most 512 characters without line breaks or tabs")


def uid(value: str, field: str = "uid") -> None:
    global _last_uid
    if value is _last_uid:  # the same string object checked last (a GET's scope, then its read): valid
        return
    if not uidp.valid(value):
        raise errors.invalid_argument(
            field, f"{field} must be a uid path matching ^[0-9a-f]{{40}}(?:/[0-9a-f]{{16}})*$"
        )
    _last_uid = value


_last_uid: object = None


def is_tag_name(value: str) -> bool:
    """^[a-zA-Z0-9_][a-zA-Z0-9._-]{0,127}$"""
    return 0 < len(value) <= 128 and value[0] not in ".-" and patterns.only(value, TAG_CHARS)


def is_digest(value: str) -> bool:
    """sha256:<64 lowercase hex digits>"""
    return len(value) == 71 and value.startswith("sha256:") and patterns.only(value[7:], HEX)


def tag_name(value: str, field: str = "name") -> None:
    if not is_tag_name(value):
        raise errors.invalid_argument(field, f'{field} must match "^[a-zA-Z0-9_][a-zA-Z0-9._-]{{0,127}}$"')


def digest(value: str, field: str = "digest") -> None:
    if not is_digest(value):
        raise errors.invalid_argument(field, f"{field} must be sha256:<64 lowercase hex digits>")


def alias(value: str, field: str = "aliases") -> None:
    if not ALIAS.fullmatch(value):
        raise errors.invalid_argument(field, f"{field} entries must be image references like 'name:tag'")


# Whitespace is refused first (by `str.isspace`, as before), so the pattern need not say it.
EMAIL = Pattern(r"[^@]+@[^@]+\.[^@]+")
_DURATION = Pattern(r"(-?[0-9]+(?:\.[0-9]{1,9})?)s")


def email(value: str, field: str = "email") -> None:
    if len(value) > 254 or value.split() != [value] or not EMAIL.fullmatch(value):
        raise errors.invalid_argument(field, f"{field} must be an e-mail address")


def seconds(value: str, field: str) -> float:
    """Seconds of a protobuf Duration ("<n>s"), which must not be negative."""
    m = _DURATION.groups(value)
    if m is None:
        raise errors.invalid_argument(field, f'{field} must be a duration string of seconds, e.g. "604800s"')
    result = float(m[0])
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
