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
