"""The v1 names of the feed's v2 enum values: v2 prefixes them with `TYPE_` (`TYPE_CVSS_V3`,
`TYPE_ADVISORY`), v1 does not (`CVSS_V3`, `ADVISORY`) except a false positive's type (`FPT_TYPE_...`)."""

from __future__ import annotations

from typing import Any, get_args

from platform_api.gen.records import advisory as v1_records
from platform_api.gen.records import advisory_v2 as v2


def _table(v1_values: Any, v2_values: Any, prefix: str = "") -> dict[str, Any]:
    """v2 value -> its v1 name (`TYPE_X`: `X`, or `prefix + TYPE_X`) as the v1 record module's own value
    object: a record leaves out a field whose value IS its default (msgspec's omit_defaults compares by
    identity), so an unspecified type stays out of the JSON."""
    ours = {v: v for v in get_args(v1_values)}
    return {v: ours[prefix + v if prefix else v.removeprefix("TYPE_")] for v in get_args(v2_values)}


SEVERITY = _table(v1_records.Severity_Type, v2.Severity_Type)
REFERENCE = _table(v1_records.Reference_Type, v2.Reference_Type)
FALSE_POSITIVE = _table(v1_records.FalsePositiveDetermination_Type, v2.FalsePositiveDetermination_Type, "FPT_")


def severities(found: list[v2.Severity]) -> list[v1_records.Severity]:
    # v1's UBUNTU type is not kept by v2 (an Ubuntu priority is stored unspecified): it answers UNSPECIFIED.
    return [v1_records.Severity(type=SEVERITY[s.type], score=s.score) for s in found]
