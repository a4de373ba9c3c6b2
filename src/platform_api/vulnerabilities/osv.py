"""OSV records (https://ossf.github.io/osv-schema/, schema 1.x) parsed into what we keep of them: the
advisory.v2 VulnerabilityMetadata (id, summary, details, references, severities), the aliases a record
answers to, and its times.

Written from the OSV schema; every field we read is type-checked and bounded, and a problem names the
JSON path (`$.severity[0].score`). Fields we do not keep (`related`, `credits`, `affected[].ranges`,
`database_specific`, ...) are not interpreted beyond their JSON type where noted.

Decisions:
- `modified` and `id` are required (the schema's `required`); `schema_version`, when given, must be 1.x.
- Severities: CVSS_V2 / CVSS_V3 / CVSS_V4 vectors are validated (prefix, version, every base metric, valid
  values; a v3 vector must also yield a base score), kept as the vector string in `score`, and a wrong
  vector rejects the record. Other severity types (`Ubuntu`, and types newer OSV schemas may add) are kept
  as TYPE_UNSPECIFIED with their score string verbatim: the proto has no name for them, the value is
  still information. Severities under `affected[]` are merged after the top-level ones, duplicates removed.
- References: the contract's types map by name; `GIT` and any type the contract lacks are kept as
  TYPE_UNSPECIFIED (OSV grows this list between schema versions). A non-string type or url rejects.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

import msgspec

from platform_api.core import clock
from platform_api.core.patterns import Pattern
from platform_api.gen.records.advisory_v2 import Reference, Severity, VulnerabilityMetadata
from platform_api.vulnerabilities import osv_cvss

ID = Pattern(r"[A-Za-z0-9][A-Za-z0-9._:+\-]*")
MAX_ID = 128
MAX_SUMMARY = 8 << 10
MAX_DETAILS = 1 << 20
MAX_URL = 8 << 10
MAX_SCORE = osv_cvss.MAX_VECTOR
MAX_ALIASES = 1_000
MAX_ITEMS = 10_000  # references, affected, related
MAX_SEVERITIES = 64

REFERENCE_TYPES = {
    "ADVISORY", "ARTICLE", "DETECTION", "DISCUSSION", "REPORT", "FIX", "INTRODUCED", "PACKAGE", "EVIDENCE", "WEB",
}  # fmt: skip
CVSS_TYPES = {"CVSS_V2": "TYPE_CVSS_V2", "CVSS_V3": "TYPE_CVSS_V3", "CVSS_V4": "TYPE_CVSS_V4"}
_CONTROL = Pattern(r"[\x00-\x1f\x7f]")
_SCHEMA_VERSION = Pattern(r"1(?:\.[0-9]+){0,2}")


class Invalid(ValueError):
    """A record breaks the schema at `path` (a JSON path such as `$.references[2].url`)."""

    def __init__(self, path: str, problem: str) -> None:
        self.path, self.problem = path, problem
        super().__init__(f"{path}: {problem}")


@dataclass
class Record:
    """What we keep of one OSV record."""

    id: str
    modified: str  # canonical RFC 3339 UTC, milliseconds (core.clock)
    published: str = ""
    withdrawn: str = ""
    aliases: list[str] = field(default_factory=list)
    metadata: VulnerabilityMetadata = field(default_factory=VulnerabilityMetadata)

    def digest(self) -> str:
        """sha256 over everything stored from the record: an equal digest means nothing to update."""
        parts = [self.id, self.modified, self.published, self.withdrawn, self.aliases, self.metadata]
        return hashlib.sha256(msgspec.json.encode(parts)).hexdigest()


def _string(value: Any, path: str, limit: int, required: bool = False) -> str:
    if value is None and not required:
        return ""
    if not isinstance(value, str):
        raise Invalid(path, f"must be a string, got {_kind(value)}")
    if required and not value:
        raise Invalid(path, "must not be empty")
    if len(value) > limit:
        raise Invalid(path, f"longer than {limit} characters")
    return value


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}.get(
        type(value), "a number" if isinstance(value, int | float) else type(value).__name__
    )


def _array(value: Any, path: str, limit: int) -> list[Any]:
    """An optional array (absent or null: empty)."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise Invalid(path, f"must be an array, got {_kind(value)}")
    if len(value) > limit:
        raise Invalid(path, f"more than {limit} items")
    return value


def _object(value: Any, path: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise Invalid(path, f"must be an object, got {_kind(value)}")
    return value


def vuln_id(value: Any, path: str) -> str:
    text = _string(value, path, MAX_ID, required=True)
    if not ID.fullmatch(text):
        raise Invalid(path, f"{text!r} is not a vulnerability id (letters, digits and . _ : + -)")
    return text


def _time(value: Any, path: str, required: bool = False) -> str:
    if value is None and not required:
        return ""
    text = _string(value, path, 64, required=True)
    try:
        return clock.parse(text)
    except ValueError as e:
        raise Invalid(path, f"{text!r} is not an RFC 3339 timestamp: {e}") from None


def severity(value: Any, path: str) -> Severity:
    """One `{type, score}`: CVSS vectors validated, other types kept as TYPE_UNSPECIFIED."""
    obj = _object(value, path)
    kind = _string(obj.get("type"), path + ".type", 64, required=True)
    score = _string(obj.get("score"), path + ".score", MAX_SCORE, required=True)
    wire = CVSS_TYPES.get(kind)
    try:
        if kind == "CVSS_V2":
            osv_cvss.parse_v2(score)
        elif kind == "CVSS_V3":
            osv_cvss.base_score_v3(score)
        elif kind == "CVSS_V4":
            osv_cvss.parse_v4(score)
    except osv_cvss.BadVector as e:
        raise Invalid(path + ".score", f"{score!r} is not a {kind} vector: {e}") from None
    if wire is None and _CONTROL.search(score):
        raise Invalid(path + ".score", "contains control characters")
    return Severity(type=wire or "TYPE_UNSPECIFIED", score=score)


def _severities(value: Any, path: str, into: list[Severity]) -> None:
    for i, item in enumerate(_array(value, path, MAX_SEVERITIES)):
        s = severity(item, f"{path}[{i}]")
        if s not in into:
            into.append(s)


def reference(value: Any, path: str) -> Reference:
    obj = _object(value, path)
    kind = _string(obj.get("type"), path + ".type", 64, required=True)
    url = _string(obj.get("url"), path + ".url", MAX_URL, required=True)
    if _CONTROL.search(url) or ":" not in url:
        raise Invalid(path + ".url", f"{url[:80]!r} is not a URL")
    return Reference(type=f"TYPE_{kind}" if kind in REFERENCE_TYPES else "TYPE_UNSPECIFIED", url=url)


def parse(doc: Any) -> Record:
    """The Record of one OSV JSON document; Invalid naming the JSON path of the first problem."""
    obj = _object(doc, "$")
    version = _string(obj.get("schema_version"), "$.schema_version", 32)
    if version and not _SCHEMA_VERSION.fullmatch(version):
        raise Invalid("$.schema_version", f"unsupported OSV schema version {version!r} (this importer reads 1.x)")
    rid = vuln_id(obj.get("id"), "$.id")
    if "modified" not in obj:
        raise Invalid("$.modified", "required")
    modified = _time(obj.get("modified"), "$.modified", required=True)
    published = _time(obj.get("published"), "$.published")
    withdrawn = _time(obj.get("withdrawn"), "$.withdrawn")
    aliases: list[str] = []
    for i, a in enumerate(_array(obj.get("aliases"), "$.aliases", MAX_ALIASES)):
        alias = vuln_id(a, f"$.aliases[{i}]")
        if alias != rid and alias not in aliases:
            aliases.append(alias)
    for i, r in enumerate(_array(obj.get("related"), "$.related", MAX_ITEMS)):
        if not isinstance(r, str | dict):  # strings (1.x) or {type, id} objects (some producers)
            raise Invalid(f"$.related[{i}]", f"must be a string, got {_kind(r)}")
    summary = _string(obj.get("summary"), "$.summary", MAX_SUMMARY)
    details = _string(obj.get("details"), "$.details", MAX_DETAILS)
    severities: list[Severity] = []
    _severities(obj.get("severity"), "$.severity", severities)
    for i, item in enumerate(_array(obj.get("affected"), "$.affected", MAX_ITEMS)):
        affected = _object(item, f"$.affected[{i}]")
        if affected.get("package") is not None:
            _object(affected["package"], f"$.affected[{i}].package")
        _severities(affected.get("severity"), f"$.affected[{i}].severity", severities)
    listed = _array(obj.get("references"), "$.references", MAX_ITEMS)
    references = [reference(r, f"$.references[{i}]") for i, r in enumerate(listed)]
    meta = VulnerabilityMetadata(id=rid, summary=summary, details=details, references=references, severities=severities)
    return Record(rid, modified, published, withdrawn, aliases, meta)
