"""store.rows.marks: the placeholders of a VALUES list, after leading arguments."""

from __future__ import annotations

from platform_api.store import rows


def test_marks() -> None:
    assert rows.marks(3) == "$1, $2, $3"
    assert rows.marks(2, 4) == "$4, $5"
