"""The v1 names of the feed's v2 enum values: v2 prefixes them with `TYPE_` (`TYPE_CVSS_V3`,
`TYPE_ADVISORY`), v1 does not (`CVSS_V3`, `ADVISORY`) except a false positive's type (`FPT_TYPE_...`)."""

from __future__ import annotations

from typing import Any, cast

from platform_api.gen.records import advisory as v1_records
from platform_api.gen.records import advisory_v2 as v2


def v1_name(value: str, prefix: str = "") -> str:
    """`TYPE_X` as v1 writes it: `prefix + X`."""
    return prefix + value.removeprefix("TYPE_")


def severities(found: list[v2.Severity]) -> list[v1_records.Severity]:
    # v1's UBUNTU type is not kept by v2 (an Ubuntu priority is stored unspecified): it answers UNSPECIFIED.
    return [v1_records.Severity(type=cast(Any, v1_name(s.type)), score=s.score) for s in found]
