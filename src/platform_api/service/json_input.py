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
import re
import sys
from typing import Any

_STRING = rb'"[^"\\]*(?:\\.[^"\\]*)*"'
_SEPARATORS = (b",", b":", b"[", b"{")
_TOKENS = re.compile(_STRING + rb"|[,:\[{]")
_SUSPECT_ESCAPE = re.compile(rb"\\u(?:0000|[dD][89a-fA-F])")
_BAD_CHAR = re.compile("[\x00\ud800-\udfff]")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


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
        where = rb"(?<![\w.+-])" + re.escape(e.literal.encode()) + rb"(?![\w.+-])"
        raise Refused(_place(data, where), f"{e.literal[:40]} is not a finite number") from None
    except RecursionError:
        raise Refused("", "JSON nested too deeply") from None
    except ValueError:  # only int() raises a plain ValueError here: over the digit limit
        digits = sys.get_int_max_str_digits()
        where = rb"-?\d{%d,}" % (digits + 1)
        raise Refused(_place(data, where), f"an integer of more than {digits} digits") from None
    if _SUSPECT_ESCAPE.search(data):
        _check_strings(doc)
    return doc


def _count_values(data: bytes, limit: int) -> None:
    if 1 + sum(data.count(c) for c in _SEPARATORS) <= limit:
        return
    n = 1
    for m in _TOKENS.finditer(data):
        if data[m.start()] != 0x22:  # a separator, not a string
            n += 1
            if n > limit:
                raise Refused(_line_col(data, m.start()), f"more than {limit} JSON values (each key counts as one)")


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


def _place(data: bytes, pattern: bytes) -> str:
    """line:column of the first match of `pattern` outside strings ("" if none)."""
    for m in re.finditer(_STRING + b"|(" + pattern + b")", data):
        if m.group(1) is not None:
            return _line_col(data, m.start())
    return ""


def _member(path: str, key: str) -> str:
    return f"{path}.{key}" if _NAME.fullmatch(key) else f"{path}[{key[:60]!r}]"


def _bad(text: str) -> str | None:
    m = _BAD_CHAR.search(text)
    if m is None:
        return None
    if m.group() == "\x00":
        return "a NUL character"
    return f"a lone UTF-16 surrogate (U+{ord(m.group()):04X})"


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
