"""Version ordering of the two ecosystems, and which version is "latest".

- Python: PEP 440 through `packaging.version.Version`. Strings that are not PEP 440 (old PyPI releases
  such as `0.1-beta-dev`) sort before every PEP 440 version, among themselves as text (what pip did with
  its former LegacyVersion), and count as pre-releases.
- Java: Maven's ComparableVersion rules (maven-artifact 3.x), implemented here: a version is split at
  `.`, `-` and digit/letter transitions into integers, qualifiers and sub-lists (each `-` or transition
  opens a sub-list); trailing "null" items (0, "", ga, final, release) are dropped; qualifiers order
  alpha (a) < beta (b) < milestone (m) < rc (cr) < snapshot < "" (ga, final, release) < sp < any other
  qualifier (those alphabetically); integers compare numerically and beat qualifiers and sub-lists. So
  1.0-alpha-1 < 1.0-beta < 1.0-rc1 < 1.0-SNAPSHOT < 1.0 = 1 = 1.0.0 = 1-ga < 1.0-sp < 1.0.1 < 1.1.
  Maven's rules are not quite a total order in corner cases (`1.0.alpha` vs `1.sp`); sorting uses them as
  a comparison and ties break on the version text, so the order is deterministic.

The database stores each version's rank among its artifact's versions (0 = lowest), recomputed when an
import adds versions, so `order_by version desc` is version order, not text order.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any

from packaging.version import InvalidVersion, Version

PYTHON, JAVA = "python", "java"

# --- Python -----------------------------------------------------------------------------------------


def _python_key(text: str) -> tuple[Any, ...]:
    try:
        return (1, Version(text), text)
    except InvalidVersion:
        return (0, text, text)


def python_prerelease(text: str) -> bool:
    try:
        return Version(text).is_prerelease
    except InvalidVersion:
        return True


# --- Java (Maven ComparableVersion) -----------------------------------------------------------------

_QUALIFIERS = ["alpha", "beta", "milestone", "rc", "snapshot", "", "sp"]
_ALIASES = {"ga": "", "final": "", "release": "", "cr": "rc"}
_RELEASE = str(_QUALIFIERS.index(""))


class _Str:
    __slots__ = ("value",)

    def __init__(self, value: str, followed_by_digit: bool) -> None:
        if followed_by_digit and len(value) == 1:
            value = {"a": "alpha", "b": "beta", "m": "milestone"}.get(value, value)
        self.value = _ALIASES.get(value, value)

    def comparable(self) -> str:
        v = self.value
        return str(_QUALIFIERS.index(v)) if v in _QUALIFIERS else f"{len(_QUALIFIERS)}-{v}"


# An item is an int, a _Str or a list of items.
Item = Any


def _is_null(item: Item) -> bool:
    if isinstance(item, int):
        return item == 0
    if isinstance(item, _Str):
        return item.comparable() == _RELEASE
    return len(item) == 0


def _normalize(items: list[Item]) -> None:
    for i in range(len(items) - 1, -1, -1):
        if _is_null(items[i]):
            del items[i]
        elif not isinstance(items[i], list):
            break


def _item(text: str, digit: bool) -> Item:
    return int(text) if digit else _Str(text, False)


def maven_parse(version: str) -> list[Item]:
    """The item list of a Maven version (ComparableVersion.parseVersion of maven-artifact 3.x)."""
    version = version.lower()
    root: list[Item] = []
    current = root
    stack = [root]
    digit = False
    start = 0
    for i, c in enumerate(version):
        if c in ".-":
            current.append(0 if i == start else _item(version[start:i], digit))
            start = i + 1
            if c == "-":
                sub: list[Item] = []
                current.append(sub)
                current = sub
                stack.append(sub)
        elif c.isdigit() and c.isascii():
            if not digit and i > start:
                current.append(_Str(version[start:i], True))
                start = i
                sub = []
                current.append(sub)
                current = sub
                stack.append(sub)
            digit = True
        else:
            if digit and i > start:
                current.append(_item(version[start:i], True))
                start = i
                sub = []
                current.append(sub)
                current = sub
                stack.append(sub)
            digit = False
    if len(version) > start:
        current.append(_item(version[start:], digit))
    while stack:
        _normalize(stack.pop())
    return root


def _cmp(a: Item, b: Item | None) -> int:
    """ComparableVersion's Item.compareTo: a against b (None: a missing item)."""
    if isinstance(a, int):
        if b is None:
            return 0 if a == 0 else 1
        if isinstance(b, int):
            return (a > b) - (a < b)
        return 1
    if isinstance(a, _Str):
        if b is None:
            x, y = a.comparable(), _RELEASE
            return (x > y) - (x < y)
        if isinstance(b, _Str):
            x, y = a.comparable(), b.comparable()
            return (x > y) - (x < y)
        return -1
    if b is None:
        return _cmp(a[0], None) if a else 0
    if isinstance(b, int):
        return -1
    if isinstance(b, _Str):
        return 1
    for i in range(max(len(a), len(b))):
        left = a[i] if i < len(a) else None
        right = b[i] if i < len(b) else None
        r = (0 if right is None else -_cmp(right, None)) if left is None else _cmp(left, right)
        if r:
            return r
    return 0


def maven_compare(x: str, y: str) -> int:
    """-1, 0 or 1 as Maven orders versions x and y."""
    return _cmp(maven_parse(x), maven_parse(y))


def maven_prerelease(text: str) -> bool:
    """A SNAPSHOT, or a version with an alpha/beta/milestone/rc qualifier anywhere."""
    lowered = text.lower()
    if lowered.endswith("snapshot"):
        return True
    return any(isinstance(i, _Str) and i.comparable() < "4" for i in _flatten(maven_parse(lowered)))


def _flatten(items: list[Item]) -> Iterable[Item]:
    for i in items:
        if isinstance(i, list):
            yield from _flatten(i)
        else:
            yield i


def _java_cmp(x: str, y: str) -> int:
    return maven_compare(x, y) or (x > y) - (x < y)


# --- Both -------------------------------------------------------------------------------------------


def ordered(ecosystem: str, versions: Iterable[str]) -> list[str]:
    """The versions from lowest to highest."""
    if ecosystem == PYTHON:
        return sorted(versions, key=_python_key)
    return sorted(versions, key=functools.cmp_to_key(_java_cmp))


def prerelease(ecosystem: str, version: str) -> bool:
    return python_prerelease(version) if ecosystem == PYTHON else maven_prerelease(version)


def latest(ecosystem: str, ascending: list[str], withdrawn: frozenset[str] | set[str] = frozenset()) -> str:
    """The highest final release that is not withdrawn (yanked); else the highest not withdrawn; else the
    highest. `ascending` is `ordered(...)`'s result."""
    live = [v for v in ascending if v not in withdrawn]
    final = [v for v in live if not prerelease(ecosystem, v)]
    for candidates in (final, live, ascending):
        if candidates:
            return candidates[-1]
    return ""
