"""Regular expressions on input we do not control run on RE2 only (DESIGN section 8), and the checks that
replaced Python `re` patterns answer exactly as those patterns did."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from pathlib import Path

import pytest
import re2

from platform_api.core import errors, patterns, uidp, validate
from platform_api.core.patterns import Pattern
from platform_api.registry import tags

SRC = Path(__file__).resolve().parents[3] / "src" / "platform_api"
_BACKTRACKING = re.compile(r"^\s*(import re\b|from re import|import regex\b|from regex import)", re.MULTILINE)


def test_no_backtracking_regular_expressions_in_the_source() -> None:
    """`re` (and `regex`) backtrack: a pattern as innocent as the advisory importer's CPE one took 23 s of CPU
    on 100 characters. Patterns go through `core.patterns.Pattern` (RE2), or are written as plain checks."""
    found = sorted(
        str(p.relative_to(SRC))
        for p in SRC.rglob("*.py")
        if "gen" not in p.parts and _BACKTRACKING.search(p.read_text())
    )
    assert found == []


def test_pattern_is_linear_where_re_backtracks() -> None:
    evil = Pattern(r"(?:a+)+b")
    assert not evil.fullmatch("a" * 100_000)  # Python's re would not finish
    assert evil.search("xxaab") and not evil.match("xxaab") and evil.match("aab!")


def test_pattern_groups_and_refusals() -> None:
    p = Pattern(r"(-?[0-9]+)(?:\.([0-9]{1,9}))?s")
    assert p.groups("-12.5s") == ("-12", "5") and p.groups("7s") == ("7", "") and p.groups("7") is None
    assert Pattern("é+").groups("éé") == () and Pattern("(é)x").groups("éx") == ("é",)
    assert Pattern("abc", ignore_case=True).fullmatch("ABC") and not Pattern("abc").fullmatch("ABC")
    assert not Pattern(r"\d").fullmatch("٣")  # ASCII digits only, unlike re
    assert not Pattern("a").fullmatch("\ud800")  # a lone surrogate is just a character that does not match
    with pytest.raises(ValueError):
        Pattern(r"(a)\1")


def _samples(alphabet: str, seed: int, n: int = 20_000, longest: int = 12) -> list[str]:
    rnd = random.Random(seed)
    return ["".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, longest))) for _ in range(n)]


def _accepts(check: Callable[[str], None], value: str) -> bool:
    try:
        check(value)
    except errors.ApiError:
        return False
    return True


OLD: list[tuple[str, Callable[[str], bool], str, int]] = [
    # (old pattern, new check, alphabet of the samples, longest sample)
    (r"[a-z0-9 ._-]{1,255}", lambda v: _accepts(validate.name, v), "az09 ._-A\t\n/é", 12),
    (r"[\S ]{0,512}", lambda v: _accepts(validate.description, v), "a \t\n\r\x0b\x0c\x1c\x85\xa0\u2028é", 12),
    (r"[a-zA-Z0-9_][a-zA-Z0-9._-]{0,127}", lambda v: _accepts(validate.tag_name, v), "aZ09._-/ é", 10),
    (r"sha256:[0-9a-f]{64}", lambda v: _accepts(validate.digest, v), "", 0),
    (r"[^@\s]+@[^@\s]+\.[^@\s]+", lambda v: _accepts(validate.email, v), "a@. \t\xa0\u2028é", 10),
    (r"[0-9a-f]{40}(?:/[0-9a-f]{16})*", uidp.valid, "", 0),
    (r".*-20\d{6}", lambda v: bool(tags.kind(v) & tags.DATED), "-20r19a", 14),
    (r".*-r\d+", lambda v: bool(tags.kind(v) & tags.EPOCH), "-r12a", 10),
]


@pytest.mark.parametrize(("old", "check", "alphabet", "longest"), OLD, ids=[o[0] for o in OLD])
def test_checks_agree_with_the_patterns_they_replaced(
    old: str, check: Callable[[str], bool], alphabet: str, longest: int
) -> None:
    rx = re.compile(old)
    cases = _samples(alphabet, hash(old) & 0xFFFF, longest=longest) if alphabet else []
    rnd = random.Random(1)
    for _ in range(20_000):  # near-misses of the long fixed shapes
        base = ("sha256:" + "a" * 64) if old.startswith("sha256") else ("a" * 40 + ("/" + "b" * 16) * rnd.randint(0, 3))
        i = rnd.randrange(len(base) + 1)
        cases.append(base[:i] + rnd.choice(["", "/", "g", "A", "0", ":", "\n"]) + base[i + rnd.randint(0, 2) :])
    cases += ["", " ", "a" * 255, "a" * 256, "a-20240101", "-20240101", "x-r1", "-r", "x-r", "sha256:" + "a" * 64]
    for value in cases:
        assert check(value) == bool(rx.fullmatch(value)), (old, value)


def test_seconds_reads_ascii_digits_only() -> None:
    assert validate.seconds("1.5s", "ttl") == 1.5 and validate.seconds("604800s", "ttl") == 604800
    for bad in ("٣s", "1.1234567890s", "1", "s", "-s", "1e3s"):
        assert not _accepts(lambda v: validate.seconds(v, "ttl") and None, bad), bad


def test_only_and_digits() -> None:
    assert patterns.only("", "a") and patterns.only("abba", "ab") and not patterns.only("abca", "ab")
    assert (
        patterns.digits("0123") and not patterns.digits("") and not patterns.digits("²") and not patterns.digits("1a")
    )


RE2_CASES = [(r"[a-z0-9]{40}(?:/[a-z0-9]{16})*", False), (r"(a+)?(b)|c", False), (r"\d+\.(\w*)", False),
             (r"straße|ÄB", True), (r"", False), (r"x*", False)]  # fmt: skip


@pytest.mark.parametrize(("pattern", "ignore_case"), RE2_CASES)
def test_the_private_re2_api_answers_as_the_public_one(pattern: str, ignore_case: bool) -> None:
    """core/patterns.py calls google-re2's private `_re2` for speed (1.5 µs against 4.3 µs a match): every
    entry point answers as the public module does, on ASCII, non-ASCII and lone-surrogate-free texts."""
    p = Pattern(pattern, ignore_case=ignore_case)
    public = re2.compile(("(?i)" if ignore_case else "") + pattern)
    texts = ["", "a", "aab", "c", "ab" * 20, "0" * 40 + "/" + "a" * 16, "12.x_y", "STRASSE", "straße", "äb", "x" * 5]
    for text in texts:
        assert p.fullmatch(text) == bool(public.fullmatch(text)), text
        assert p.match(text) == bool(public.match(text)), text
        assert p.search(text) == bool(public.search(text)), text
        full = public.fullmatch(text)
        assert p.groups(text) == (None if full is None else tuple(g or "" for g in full.groups())), text
