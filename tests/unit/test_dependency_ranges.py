"""The packages declare ranges, constraints.txt the exact versions the README's commands install
(`pip install -c constraints.txt ...`): every declared dependency of both distributions (pyproject.toml with its
dev extra, clients/python/pyproject.toml) has its pin there, inside its range. google-re2 alone is pinned in
the packages too: core/patterns.py calls its private extension module (its comment says why)."""

from __future__ import annotations

import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
PINNED_IN_THE_PACKAGE = {"google-re2"}


def _name(name: str) -> str:
    return name.lower().replace("_", "-")


def declared() -> list[Requirement]:
    root = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    client = tomllib.loads((ROOT / "clients" / "python" / "pyproject.toml").read_text())["project"]
    texts = root["dependencies"] + [d for extra in root["optional-dependencies"].values() for d in extra]
    return [Requirement(t) for t in texts + client["dependencies"]]


def constraints() -> dict[str, Version]:
    pins: dict[str, Version] = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        name, sep, version = line.partition("==")
        if sep:
            pins[_name(name.strip())] = Version(version.strip())
    return pins


def test_every_dependency_is_pinned_in_the_constraints_within_its_range() -> None:
    pins = constraints()
    outside = [f"{r} (constraints.txt: {pins.get(_name(r.name))})" for r in declared()
               if _name(r.name) not in pins or not r.specifier.contains(pins[_name(r.name)])]  # fmt: skip
    assert outside == []


def test_the_packages_declare_ranges() -> None:
    exact = {_name(r.name) for r in declared() for s in r.specifier if s.operator in ("==", "===")}
    assert exact == PINNED_IN_THE_PACKAGE
    # Every range but the calendar-versioned ones (certifi, packaging) stops before the next major.
    open_ended = {_name(r.name) for r in declared() if not any(s.operator in ("<", "<=", "~=") for s in r.specifier)}
    assert open_ended - PINNED_IN_THE_PACKAGE == {"certifi", "packaging"}
