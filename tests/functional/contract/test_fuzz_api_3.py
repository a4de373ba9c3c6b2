"""Part 3 of 3 of the property-based run of the HTTP/JSON API (tests/functional/contract/fuzzing.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.functional.contract.fuzzing import Target, seeded_targets, survive_generated_requests


@pytest.fixture(scope="module")
def targets(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[Target]]:
    yield from seeded_targets(tmp_path_factory)


def test_every_operation_survives_generated_requests(targets: list[Target]) -> None:
    survive_generated_requests(targets, 2)
