"""service.json_input scans untrusted bytes without regular expressions: its scanners find what the
regular expressions they replaced found, on random JSON-ish text (strings, escapes, separators, numbers)."""

from __future__ import annotations

import random
import re

import pytest

from platform_api.service import json_input

_STRING = rb'"[^"\\]*(?:\\.[^"\\]*)*"'
PIECES = [b'"', b"\\", b'\\"', b"\\\\", b",", b":", b"[", b"{", b"}", b"]", b"a", b" ", b"NaN", b"-", b"12345",
          b"1e400", b"\\u0000", b"\\ud800", b"\\u00e9", b"x"]  # fmt: skip


_TERMINATED = re.compile(rb'(?:[^"]|' + _STRING + rb")*", re.DOTALL)


def _texts(seed: int, n: int = 3000) -> list[bytes]:
    """Random texts whose strings all end (an unterminated one is malformed JSON, refused before any scan)."""
    rnd = random.Random(seed)
    texts = (b"".join(rnd.choice(PIECES) for _ in range(rnd.randint(0, 30))) for _ in range(n))
    return [t for t in texts if _TERMINATED.fullmatch(t)]


def _first(pattern: bytes, data: bytes) -> str:
    for m in re.finditer(_STRING + b"|(" + pattern + b")", data):
        if m.group(1) is not None:
            return json_input._line_col(data, m.start(1))
    return ""


def test_values_are_counted_outside_strings_only() -> None:
    tokens = re.compile(_STRING + rb"|[,:\[{]")
    for data in _texts(1):
        expected = 1 + sum(1 for m in tokens.finditer(data) if data[m.start()] != 0x22)
        for limit in (expected, expected - 1):
            if limit < 1:
                continue
            try:
                json_input._count_values(data, limit)
                counted_over = False
            except json_input.Refused:
                counted_over = True
            assert counted_over == (expected > limit), data


@pytest.mark.parametrize("literal", [b"NaN", b"1e400", b"-Infinity"])
def test_a_bare_token_is_found_where_the_pattern_found_it(literal: bytes) -> None:
    pattern = rb"(?<![\w.+-])" + re.escape(literal) + rb"(?![\w.+-])"
    for data in _texts(2):
        assert json_input._token_place(data, literal) == _first(pattern, data), data


def test_a_long_integer_is_found_where_the_pattern_found_it() -> None:
    for data in _texts(3):
        assert json_input._digits_place(data, 6) == _first(rb"-?\d{6,}", data), data


def test_suspect_escapes() -> None:
    suspect = re.compile(rb"\\u(?:0000|[dD][89a-fA-F])")
    for data in _texts(4):
        assert json_input._suspect_escape(data) == bool(suspect.search(data)), data
