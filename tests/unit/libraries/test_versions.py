"""Version ordering of the libraries domain: PEP 440 for Python, Maven's ComparableVersion rules for Java
(the cases below are those of maven-artifact's ComparableVersionTest where they apply), and "latest"."""

from __future__ import annotations

import itertools
import random

import pytest

from platform_api.libraries import versions
from platform_api.libraries.python_input import normalize, version_of

MAVEN_ASCENDING = [
    "1-alpha2snapshot", "1-alpha2", "1-alpha-123", "1-beta-2", "1-beta123", "1-m2", "1-m11", "1-rc", "1-cr2",
    "1-rc123", "1-SNAPSHOT", "1", "1-sp", "1-sp2", "1-sp123", "1-abc", "1-def", "1-pom-1", "1-1-snapshot",
    "1-1", "1-2", "1-123", "1.1", "1.2", "1.10", "2.0", "10.0",
]  # fmt: skip


def test_maven_order_matches_comparable_version() -> None:
    shuffled = MAVEN_ASCENDING[:]
    random.Random(7).shuffle(shuffled)
    assert versions.ordered("java", shuffled) == MAVEN_ASCENDING
    for lower, higher in itertools.pairwise(MAVEN_ASCENDING):
        assert versions.maven_compare(lower, higher) == -1, (lower, higher)
        assert versions.maven_compare(higher, lower) == 1, (lower, higher)


@pytest.mark.parametrize(
    ("a", "b"),
    [("1", "1.0"), ("1", "1.0.0"), ("1-ga", "1"), ("1.0-final", "1"), ("1-release", "1"), ("1-cr1", "1-rc1"),
     ("1a1", "1-alpha-1"), ("1b2", "1-beta-2"), ("1m3", "1-milestone-3"), ("1.0.0-SNAPSHOT", "1-snapshot"),
     ("1X", "1x")],
)  # fmt: skip
def test_maven_equal_versions(a: str, b: str) -> None:
    assert versions.maven_compare(a, b) == 0


def test_the_briefs_maven_sequence() -> None:
    seq = ["1.0-alpha", "1.0-beta", "1.0-rc", "1.0-SNAPSHOT", "1.0", "1.0.1", "1.1", "1.10", "2.0"]
    assert versions.ordered("java", list(reversed(seq))) == seq


def test_python_order_is_pep_440_with_legacy_first() -> None:
    seq = ["0.1-beta-dev", "1.0.dev0", "1.0a1", "1.0b2", "1.0rc1", "1.0", "1.0+local", "1.0.post1", "1.9", "1.10"]
    assert versions.ordered("python", list(reversed(seq))) == seq


def test_latest_prefers_final_unyanked_releases() -> None:
    py = versions.ordered("python", ["1.0", "1.5", "2.0rc1"])
    assert versions.latest("python", py) == "1.5"
    assert versions.latest("python", py, {"1.5"}) == "1.0"
    assert versions.latest("python", py, {"1.0", "1.5"}) == "2.0rc1"
    assert versions.latest("python", ["1.0a1"], {"1.0a1"}) == "1.0a1"
    java = versions.ordered("java", ["1.0", "1.1-SNAPSHOT", "1.1-rc1"])
    assert versions.latest("java", java) == "1.0"
    assert versions.latest("java", []) == ""


def test_python_names_and_file_versions() -> None:
    assert normalize("Friendly.Bard__Lib") == "friendly-bard-lib"
    assert version_of("Friendly_Bard-1.0.tar.gz", "friendly-bard") == "1.0"
    assert version_of("friendly_bard-2.0-1-py3-none-any.whl", "friendly-bard") == "2.0"
    assert version_of("friendly-bard-1.0-RC1.zip", "friendly-bard") == "1.0rc1"
    assert version_of("friendly_bard-0.5-py2.7.egg", "friendly-bard") == "0.5"
    assert version_of("other-1.0.tar.gz", "friendly-bard") is None
    assert version_of("friendly-bard-1.0.win32.exe", "friendly-bard") is None
