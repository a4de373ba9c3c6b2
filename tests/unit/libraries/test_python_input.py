"""The Python documents the libraries import reads: a distribution file's version found in one pass over its
name (names of dashes were quadratic), sizes that fit the size column, and the import's record budget."""

from __future__ import annotations

import random
from typing import Any

import pytest

from platform_api.libraries import facts, python_input
from platform_api.libraries.facts import Collected
from platform_api.service.imports import BadInput


def _reference_version_of(filename: str, project: str) -> str | None:
    """The definition, written the quadratic way: the first "-" whose prefix normalizes to the project."""
    for ext in (*python_input._SDIST, ".egg"):
        if filename.endswith(ext):
            stem = filename[: -len(ext)]
            break
    else:
        return None
    for i, c in enumerate(stem):
        if c == "-" and python_input.normalize(stem[:i]) == project:
            rest = stem[i + 1 :]
            if filename.endswith(".egg"):
                rest = rest.split("-py", 1)[0]
            return python_input.canonical_version(rest) if rest and len(rest) <= facts.MAX_VERSION else None
    return None


def test_a_name_of_dashes_is_scanned_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """100,000 dashes: normalizing each prefix before a "-" would normalize ~5e9 characters; the bound here
    is ten times the name's length, whatever the implementation normalizes."""
    name = "-" * 100_000 + "1.0.tar.gz"
    normalized = 0
    real = python_input.normalize

    def counting(text: str) -> str:
        nonlocal normalized
        normalized += len(text)
        assert normalized <= 10 * len(name), "normalizing grows faster than the name"
        return real(text)

    monkeypatch.setattr(python_input, "normalize", counting)
    for project in ("requests", "a", "a-b"):
        assert python_input.version_of(name, project) is None
        assert python_input.version_of("-" * 100_000 + "a-1.0.tar.gz", project) is None
    assert python_input.version_of("a-" * 50_000 + "b-2.0.zip", "a-" * 50_000 + "b") == "2.0"


def test_the_one_pass_scan_agrees_with_the_definition() -> None:
    rng = random.Random(16)
    alphabet = ["a", "B", "c", "1", "-", "_", ".", "--", "İ", "ß", "Σ"]
    projects = ["a", "a-b", "ab", "b-c-1", "abc", "a1", "i̇", "ß", "σ"]
    for _ in range(20_000):
        stem = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 10)))
        filename = stem + rng.choice([".tar.gz", ".zip", "-py3.9.egg", ".whl.zip"])
        project = rng.choice(projects)
        assert python_input.version_of(filename, project) == _reference_version_of(filename, project), filename
    assert python_input.version_of("Friendly__Bard-1.0.tar.gz", "friendly-bard") == "1.0"


def _page(*files: dict[str, Any]) -> dict[str, Any]:
    return {"meta": {"api-version": "1.1"}, "name": "big", "files": list(files)}


def _file(version: str, size: int, n: int = 0) -> dict[str, Any]:
    return {"filename": f"big-{version}-{n}-py3-none-any.whl", "url": "https://x", "hashes": {}, "size": size}


def test_sizes_fit_the_size_column() -> None:
    out = Collected()
    with pytest.raises(BadInput) as e:
        python_input.parse("p.json", _page(_file("1.0", 2**70)), out)
    assert e.value.place == "$.files[0].size"
    assert e.value.problem == f"size {2**70} is over the limit of {facts.MAX_SIZE} bytes"
    # The most a version can sum stays inside a signed 64-bit column.
    assert facts.MAX_SIZE * facts.MAX_FILES_PER_VERSION < 2**63
    python_input.parse("p.json", _page(*(_file("2.0", 2**40, n) for n in range(4))), out)
    assert out.artifacts["python:big"].versions["2.0"].resolved()[0] == 2**42


def test_an_import_collects_a_bounded_number_of_records() -> None:
    out = Collected(budget=5)
    python_input.parse("a.json", _page(_file("1.0", 1, 0), _file("1.0", 1, 1)), out)  # a version and 2 files
    python_input.parse("b.json", _page(_file("1.0", 1, 0), _file("1.1", 1, 0)), out)  # 1 version, 1 file new
    with pytest.raises(BadInput) as e:
        python_input.parse("c.json", _page(_file("1.2", 1, 0)), out)
    assert (e.value.file, e.value.place) == ("c.json", "$.files[0]")
    assert e.value.problem == "more than 5 versions and files in one import (split the input: imports merge)"
