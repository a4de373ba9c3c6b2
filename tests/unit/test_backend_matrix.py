"""The backend matrix (tests/helpers/backends.py): which runs of a test parametrized over the backends the
suite makes."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import BACKENDS, backends

ROOT = Path("/repo/tests")


@dataclass
class CallSpec:
    params: dict[str, Any]


@dataclass
class FakeItem:
    path: Path
    callspec: CallSpec | None
    marks: set[str] = field(default_factory=set)

    def get_closest_marker(self, name: str) -> object | None:
        return name if name in self.marks else None


def item(where: str, backend: str | None, *marks: str) -> FakeItem:
    return FakeItem(ROOT / where, CallSpec({"server": backend}) if backend else None, set(marks))


def kept(items: list[FakeItem]) -> list[tuple[str, str | None]]:
    keep, drop = backends.split_items(items, ROOT)  # type: ignore[arg-type]
    assert len(keep) + len(drop) == len(items)
    return [(i.path.relative_to(ROOT).as_posix(), i.callspec and i.callspec.params["server"]) for i in keep]


@pytest.fixture(autouse=True)
def _measured(monkeypatch: pytest.MonkeyPatch) -> None:
    if set(BACKENDS) != {"sqlite", "postgres"}:
        pytest.skip("the matrix needs both backends selected")
    monkeypatch.delenv("PLATFORM_API_TEST_MATRIX", raising=False)


def test_a_one_backend_directory_runs_on_postgresql_only() -> None:
    f = "functional/auth/test_x.py"
    assert kept([item(f, "sqlite"), item(f, "postgres"), item(f, None)]) == [(f, "postgres"), (f, None)]


def test_other_directories_and_marked_tests_run_on_both() -> None:
    domain, marked = "functional/iam/test_x.py", "functional/contract/test_x.py"
    unit = "unit/store/test_x.py"
    items = [item(domain, "sqlite"), item(domain, "postgres"), item(unit, "sqlite"), item(unit, "postgres"),
             item(marked, "sqlite", "both_backends"), item(marked, "postgres", "both_backends")]  # fmt: skip
    assert len(kept(items)) == 6


def test_a_prefix_of_a_directory_name_is_not_that_directory() -> None:
    assert kept([item("functional/authx/test_x.py", "sqlite")]) == [("functional/authx/test_x.py", "sqlite")]


def test_the_full_matrix_on_request(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLATFORM_API_TEST_MATRIX", "full")
    assert len(kept([item("functional/auth/test_x.py", "sqlite")])) == 1


def test_the_rest_is_what_the_matrix_leaves_out(monkeypatch: pytest.MonkeyPatch) -> None:
    f, g = "functional/auth/test_x.py", "functional/iam/test_x.py"
    monkeypatch.setenv("PLATFORM_API_TEST_MATRIX", "rest")
    assert kept([item(f, "sqlite"), item(f, "postgres"), item(g, "sqlite"), item(f, None)]) == [(f, "sqlite")]


def test_an_unknown_matrix_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLATFORM_API_TEST_MATRIX", "most")
    with pytest.raises(ValueError, match="PLATFORM_API_TEST_MATRIX='most'"):
        kept([])


def test_one_backend_on_request_and_both_wins() -> None:
    f = "functional/ops/test_x.py"
    items = [item(f, "sqlite", "one_backend"), item(f, "postgres", "one_backend"),
             item(f, "sqlite", "one_backend", "both_backends")]  # fmt: skip
    assert kept(items) == [(f, "postgres"), (f, "sqlite")]
