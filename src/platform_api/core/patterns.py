"""Regular expressions on input we do not control run here, on RE2 (google-re2): matched in time linear in
the input whatever the pattern, so no input can make a match backtrack for seconds (Python's `re` took 23 s
of CPU on a 100-character CPE string in the advisory importer). `tests/unit/core/test_patterns.py` fails on
any other regular-expression module in the source.

RE2's classes are ASCII unless the pattern asks otherwise (`\\d` is [0-9], unlike Python's), and it has no
backreferences or lookaround. The match goes straight to RE2's `Match` (1.5 µs for a 74-character uid here,
against 4.3 µs through the `re2` module's `re`-like wrappers), which the hot paths need.
"""

from __future__ import annotations

import re2

# google-re2's extension module is private API, used because a match through it costs a third of one through
# the public module (above; 2.6 µs against 11 µs for `fullmatch` on a loaded machine, 2026-11-28): so
# google-re2 is the one dependency pinned exactly in pyproject.toml (and clients/python/pyproject.toml), not
# only in constraints.txt, and tests/unit/core/test_patterns.py checks that it answers as the public `re2`
# module does, so an upgrade that changes it fails there rather than in a request.
from re2 import _re2

_BOTH = _re2.RE2.Anchor.ANCHOR_BOTH
_START = _re2.RE2.Anchor.ANCHOR_START
_NONE = _re2.RE2.Anchor.UNANCHORED
_MISS = (-1, -1)


class Pattern:
    """A compiled RE2 pattern over text (str)."""

    def __init__(self, pattern: str, *, ignore_case: bool = False) -> None:
        options = re2.Options()
        options.case_sensitive = not ignore_case
        self.pattern = pattern
        options.log_errors = False
        self._rx = _re2.RE2(pattern.encode(), options)
        if not self._rx.ok():
            raise ValueError(f"not an RE2 pattern: {pattern!r}: {self._rx.error()}")

    def _spans(self, anchor: object, data: bytes) -> list[tuple[int, int]]:
        spans: list[tuple[int, int]] = self._rx.Match(anchor, data, 0, len(data))
        return spans

    def fullmatch(self, text: str) -> bool:
        return self._spans(_BOTH, text.encode("utf-8", "surrogatepass"))[0] != _MISS

    def match(self, text: str) -> bool:
        """Whether a prefix of `text` matches."""
        return self._spans(_START, text.encode("utf-8", "surrogatepass"))[0] != _MISS

    def search(self, text: str) -> bool:
        return self._spans(_NONE, text.encode("utf-8", "surrogatepass"))[0] != _MISS

    def groups(self, text: str) -> tuple[str, ...] | None:
        """The capturing groups of a full match ('' for a group that took no part), or None."""
        data = text.encode("utf-8", "surrogatepass")
        spans = self._spans(_BOTH, data)
        if spans[0] == _MISS:
            return None
        return tuple("" if s == _MISS else data[s[0] : s[1]].decode("utf-8", "surrogatepass") for s in spans[1:])


# Character sets for the checks that need no pattern at all (cheaper than any regular expression).
DIGITS = "0123456789"
HEX = "0123456789abcdef"
LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def only(text: str, chars: str) -> bool:
    """Whether every character of `text` is one of `chars` (True for ''): `strip` stops at the first other
    character from either end, so anything left means one is there."""
    return not text.strip(chars)


def digits(text: str) -> bool:
    """One or more ASCII digits (`str.isdigit` also takes other scripts' digits and superscripts)."""
    return bool(text) and only(text, DIGITS)


def no_whitespace_but_spaces(text: str) -> bool:
    """Whether `text` holds no whitespace (by `str.isspace`, as `re`'s `\\s`) other than the space itself."""
    t = text.replace(" ", "x")
    return not t or t.split() == [t]
