"""UIDP identifiers: a 40-hex root UID followed by zero or more /16-hex SUIDs."""

from __future__ import annotations

import secrets

_HEX_SLASH = "0123456789abcdef/"


def valid(uid: str) -> bool:
    """Whether `uid` is ^[0-9a-f]{40}(?:/[0-9a-f]{16})*$ (checked by hand: it runs on every request)."""
    n = len(uid)
    if n < 40 or (n - 40) % 17 or uid.strip(_HEX_SLASH):
        return False
    k = (n - 40) // 17
    return uid.count("/") == k and uid[40::17] == "/" * k


def new_root() -> str:
    return secrets.token_hex(20)


def new_child(parent: str) -> str:
    return f"{parent}/{secrets.token_hex(8)}"


def parent(uid: str) -> str:
    """Parent path; '' for a root uid (the reference's Parent returns '/')."""
    i = uid.rfind("/")
    return uid[:i] if i >= 0 else ""


def parents(uid: str) -> list[str]:
    """Strict ancestors, nearest first."""
    out = []
    p = parent(uid)
    while p:
        out.append(p)
        p = parent(p)
    return out


def ancestry(uid: str) -> list[str]:
    """Self and ancestors, nearest first."""
    return [uid, *parents(uid)]


def root(uid: str) -> str:
    return uid.split("/", 1)[0]


def is_ancestor(ancestor: str, uid: str) -> bool:
    return uid.startswith(ancestor + "/")


def is_ancestor_or_self(ancestor: str, uid: str) -> bool:
    return uid == ancestor or is_ancestor(ancestor, uid)


def descendant_range(uid: str) -> tuple[str, str]:
    """Half-open key range (lo, hi) holding exactly the strict descendants of uid.

    '0' is the character after '/' in ASCII, so every 'uid/...' key sorts in ['uid/', 'uid0').
    """
    return uid + "/", uid + "0"
