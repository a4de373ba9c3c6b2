"""Untrusted JSON text parsed within bounds, or refused with the place (line:column or a JSON path) and the
problem. What `json.loads` alone lets through, and why each is refused:

- more than `max_values` values: 64 MiB of `[{},{},...]` is 22 million dicts, 1.7 GB of Python objects.
  The values are counted before parsing: 1 + the `,` `:` `[` `{` outside strings (each value after the
  first, each key, each container), first with `bytes.count` (exact when no string holds those characters,
  else too high), then, only if that says too many, skipping strings;
- text that is not UTF-8: `json.loads(bytes)` would also take UTF-16 and UTF-32, and encoded surrogates;
- `NaN`, `Infinity` and numbers beyond a double (`1e400`): not JSON numbers, and msgspec writes them as null,
  which a stored record cannot be read back from;
- integers over Python's int-conversion limit (4,300 digits), which raises a bare ValueError;
- a NUL character or a lone UTF-16 surrogate (`"\\ud800"`) in a string or a key: PostgreSQL text cannot hold
  either, UTF-8 encoders refuse the surrogate, and the API refuses NUL in every string. Both can only come
  from `\\u` escapes (raw ones are not valid UTF-8 or not valid JSON), so the document is walked only when
  its text has such an escape.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Iterator
from typing import Any

from platform_api.core import patterns

_SEPARATORS = (b",", b":", b"[", b"{")
_NAME_CHARS = patterns.LETTERS + patterns.DIGITS + "_-"
# \w . + - : what may not touch a bare number token on either side (it would be part of another token).
_WORD = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.+-")
_DIGITS_AS_ZERO = bytes(0x30 if 0x30 <= b <= 0x39 else 0x20 for b in range(256))


class Refused(ValueError):
    """The text cannot be taken: the `place` in it and the `problem`."""

    def __init__(self, place: str, problem: str) -> None:
        self.place, self.problem = place, problem
        super().__init__(f"{place}: {problem}" if place else problem)


class _Number(Exception):
    """Raised from a parse hook: `literal` is a number that cannot be taken."""

    def __init__(self, literal: str) -> None:
        self.literal = literal


def parse(data: bytes, max_values: int) -> Any:
    """`data` parsed as JSON, within the rules above."""
    _count_values(data, max_values)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise Refused(f"byte {e.start}", "not UTF-8 text") from None
    try:
        doc = json.loads(text, parse_constant=_constant, parse_float=_finite)
    except json.JSONDecodeError as e:
        raise Refused(f"{e.lineno}:{e.colno}", f"malformed JSON: {e.msg}") from None
    except _Number as e:
        raise Refused(_token_place(data, e.literal.encode()), f"{e.literal[:40]} is not a finite number") from None
    except RecursionError:
        raise Refused("", "JSON nested too deeply") from None
    except ValueError:  # only int() raises a plain ValueError here: over the digit limit
        digits = sys.get_int_max_str_digits()
        raise Refused(_digits_place(data, digits + 1), f"an integer of more than {digits} digits") from None
    if _suspect_escape(data):
        _check_strings(doc)
    return doc


def _outside_strings(data: bytes) -> Iterator[tuple[int, int]]:
    """(start, end) of each stretch of `data` outside JSON strings, in order; an unterminated string ends
    the text (json.loads reports it). Each byte is looked at a bounded number of times: linear."""
    at, end = 0, len(data)
    while at <= end:
        quote = data.find(b'"', at)
        if quote < 0:
            yield at, end
            return
        yield at, quote
        close = quote
        while True:  # the closing quote is the first one preceded by an even run of backslashes
            close = data.find(b'"', close + 1)
            if close < 0:
                return
            run = close - 1
            while data[run] == 0x5C:
                run -= 1
            if (close - 1 - run) % 2 == 0:
                break
        at = close + 1


def _separators(data: bytes, start: int, end: int) -> int:
    return sum(data.count(c, start, end) for c in _SEPARATORS)


def _count_values(data: bytes, limit: int) -> None:
    if 1 + _separators(data, 0, len(data)) <= limit:
        return
    n = 1
    for start, end in _outside_strings(data):
        found = _separators(data, start, end)
        if n + found > limit:
            lo, hi = start, end  # the separator that makes one too many: the shortest prefix holding it
            while lo < hi:
                mid = (lo + hi) // 2
                if n + _separators(data, start, mid + 1) > limit:
                    hi = mid
                else:
                    lo = mid + 1
            raise Refused(_line_col(data, lo), f"more than {limit} JSON values (each key counts as one)")
        n += found


def _constant(literal: str) -> float:
    raise _Number(literal)


def _finite(literal: str) -> float:
    value = float(literal)
    if not math.isfinite(value):
        raise _Number(literal)
    return value


def _line_col(data: bytes, at: int) -> str:
    line, column = data.count(b"\n", 0, at) + 1, at - data.rfind(b"\n", 0, at)
    return f"{line}:{column}"


def _token_place(data: bytes, literal: bytes) -> str:
    """line:column of the first bare `literal` (a whole token) outside strings ("" if none)."""
    for start, end in _outside_strings(data):
        at = data.find(literal, start, end)
        while at >= 0:
            after = at + len(literal)
            if (at == 0 or data[at - 1] not in _WORD) and (after == len(data) or data[after] not in _WORD):
                return _line_col(data, at)
            at = data.find(literal, at + 1, end)
    return ""


def _digits_place(data: bytes, count: int) -> str:
    """line:column of the first run of at least `count` digits outside strings (with its minus sign)."""
    run = b"0" * count
    for start, end in _outside_strings(data):
        at = data[start:end].translate(_DIGITS_AS_ZERO).find(run)
        if at >= 0:
            at += start
            return _line_col(data, at - 1 if at > 0 and data[at - 1] == 0x2D else at)
    return ""


def _suspect_escape(data: bytes) -> bool:
    """Whether the text has a \\u escape of NUL or of a surrogate (\\u0000, \\uD800-\\uDFFF)."""
    at = data.find(b"\\u")
    while at >= 0:
        hex4 = data[at + 2 : at + 6].lower()
        if hex4 == b"0000" or (hex4[:1] == b"d" and hex4[1:2] in (b"8", b"9", b"a", b"b", b"c", b"d", b"e", b"f")):
            return True
        at = data.find(b"\\u", at + 2)
    return False


def _member(path: str, key: str) -> str:
    named = key and key[0] not in patterns.DIGITS + "-" and patterns.only(key, _NAME_CHARS)
    return f"{path}.{key}" if named else f"{path}[{key[:60]!r}]"


def _bad(text: str) -> str | None:
    nul = text.find("\x00")
    try:
        text.encode("utf-8")
        surrogate = -1
    except UnicodeEncodeError as e:  # only a surrogate cannot be encoded
        surrogate = e.start
    if nul < 0 and surrogate < 0:
        return None
    if surrogate < 0 or 0 <= nul < surrogate:
        return "a NUL character"
    return f"a lone UTF-16 surrogate (U+{ord(text[surrogate]):04X})"


def _check_strings(doc: Any) -> None:
    """Refused at a string or key holding a NUL or a lone surrogate (the first found: an object's keys are
    checked before its values)."""
    stack: list[tuple[Any, str]] = [(doc, "$")]
    while stack:
        value, path = stack.pop()
        if isinstance(value, str):
            problem = _bad(value)
            if problem:
                raise Refused(path, f"contains {problem}")
        elif isinstance(value, dict):
            for key in value:
                problem = _bad(key)
                if problem:
                    raise Refused(_member(path, key), f"the key contains {problem}")
            stack.extend((v, _member(path, k)) for k, v in reversed(value.items()))
        elif isinstance(value, list):
            stack.extend((v, f"{path}[{i}]") for i, v in reversed(list(enumerate(value))))
