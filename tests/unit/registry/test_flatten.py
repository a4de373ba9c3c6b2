"""oci.flatten / flatten_all, the import-time flattening of nested image indexes: each distinct digest once
in index order, placeholders for indexes not known, the caps, and the work it takes (steps, not seconds)."""

from __future__ import annotations

from typing import Any

import pytest

from platform_api.registry import oci


def m(n: int, arch: str = "amd64") -> dict[str, Any]:
    return {"digest": f"sha256:{n:064x}", "mediaType": oci.OCI_MANIFEST, "size": 1, "architecture": arch}


def i(n: int) -> dict[str, Any]:
    return {"digest": f"sha256:{n:064x}", "mediaType": oci.OCI_INDEX, "size": 1}


def digests(entries: list[dict[str, Any]]) -> list[int]:
    return [int(e["digest"].removeprefix("sha256:"), 16) for e in entries]


def test_order_duplicates_and_placeholders() -> None:
    nested = {100: [m(2), m(1)], 101: [m(3), i(102)]}

    def lookup(digest: str) -> list[dict[str, Any]] | None:
        return nested.get(int(digest.removeprefix("sha256:"), 16))

    entries = [m(1), i(100), m(1), i(100), i(101), i(103), m(4)]
    flat = oci.flatten(entries, lookup, oci.Steps(100))
    # 100 spliced once in place; 101's placeholder for 102 (not known) kept, as is 103's own.
    assert digests(flat) == [1, 2, 3, 102, 103, 4]
    nested[102] = [m(5)]
    assert digests(oci.flatten(flat, lookup, oci.Steps(100))) == [1, 2, 3, 5, 103, 4]


def test_caps() -> None:
    wide = [m(n) for n in range(oci.MAX_PLATFORMS + 1)]
    with pytest.raises(oci.TooWide, match=f"more than {oci.MAX_PLATFORMS} entries"):
        oci.flatten(wide, lambda d: None, oci.Steps(10**6))
    steps = oci.Steps(10)
    oci.flatten([m(1)] * 10, lambda d: None, steps)
    with pytest.raises(oci.TooWide, match="more than 10 entries"):
        steps.take(1)


def image(n: int, children: list[dict[str, Any]]) -> oci.Image:
    return oci.Image(f"sha256:{n:064x}", oci.OCI_INDEX, True, children=children)


def test_the_issues_fan_out_takes_steps_per_entry_not_per_path() -> None:
    """150 identical entries nested 3 deep: 150^3 paths, a few hundred steps."""
    content = {
        f"sha256:{1:064x}": image(1, [i(2)] * 150),
        f"sha256:{2:064x}": image(2, [i(3)] * 150),
        f"sha256:{3:064x}": image(3, [m(10)] * 150 + [m(11, "arm64")]),
    }
    steps = oci.Steps(oci.MAX_FLATTEN_STEPS)
    oci.flatten_all(content, {}, steps)
    for one in content.values():
        assert one.platforms is not None and digests(one.platforms) == [10, 11]
    assert steps.limit - steps.left <= 3 * (150 + 2)


def test_stored_lists_and_long_chains() -> None:
    # A chain of 5,000 indexes in one input (each containing the next) flattens without recursion; the last
    # names an index recorded before, whose own flattened entries are given.
    chain = {f"sha256:{n:064x}": image(n, [i(n + 1)]) for n in range(1, 5001)}
    steps = oci.Steps(oci.MAX_FLATTEN_STEPS)
    oci.flatten_all(chain, {f"sha256:{5001:064x}": [m(7000), i(9000)]}, steps)
    assert all(one.platforms is not None and digests(one.platforms) == [7000, 9000] for one in chain.values())
    with pytest.raises(oci.TooWide, match=f"image index sha256:{1:064x}"):
        oci.flatten_all({f"sha256:{1:064x}": image(1, [m(1)] * 5)}, {}, oci.Steps(4))
