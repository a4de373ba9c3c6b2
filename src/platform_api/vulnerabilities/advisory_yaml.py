"""The open advisory YAML format (schema-version 2.x, as wolfictl's `pkg/configs/advisory/v2` defines it),
parsed and validated without trusting the input.

One document per origin package:

    schema-version: 2.0.2
    package: {name: <origin package>}
    advisories:
      - id: CGA-xxxx-xxxx-xxxx
        aliases: [CVE-..., GHSA-...]
        events:
          - timestamp: <RFC 3339>
            type: detection | true-positive-determination | false-positive-determination | fixed
                  | analysis-not-planned | fix-not-planned | pending-upstream-fix
            data: {...}   # per type

Validation follows wolfictl's: strict keys (an unknown key is an error, like its KnownFields decoding),
advisory ids `CGA-xxxx-xxxx-xxxx`, aliases CVE / GHSA / GO ids, unique ids and aliases within a document,
RFC 3339 timestamps, known event and detection types, each type's required data. YAML anchors and aliases
are refused (no billion-laughs), and sizes are bounded. Every failure is one `BadInput` naming the file,
`line:column (path)` and the problem.

Pure functions: no database, no records of the API (see `advisory_queries` and `advisory.documents` for those).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

import yaml  # type: ignore[import-untyped]

from platform_api.core import clock
from platform_api.service.imports import BadInput

MAX_DOCUMENT = 8 << 20  # bytes of one document
MAX_ADVISORIES = 20_000  # per document
MAX_EVENTS = 2_000  # per advisory
MAX_ALIASES = 200  # per advisory
MAX_TEXT = 64 << 10  # characters of one scalar (notes)

_Base: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_NULLS = frozenset(("", "~", "null", "Null", "NULL"))
_NULL_TAG, _STR_TAG = "tag:yaml.org,2002:null", "tag:yaml.org,2002:str"


class _Loader(_Base):  # type: ignore[misc]
    """The safe loader, resolving plain scalars only as null or string: the format's scalars are all
    strings (timestamps and versions are read as text and checked here), and the generic resolver's
    regular expressions were a third of the parse time."""

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        if kind is yaml.ScalarNode and implicit[0]:
            return _NULL_TAG if value in _NULLS else _STR_TAG
        return super().resolve(kind, value, implicit)


RE_CGA = re.compile(r"CGA(?:-[23456789cfghjmpqrvwx]{4}){3}")
RE_CVE = re.compile(r"CVE-\d{4}-\d{4,}")
RE_GHSA = re.compile(r"GHSA(?:-[23456789cfghjmpqrvwx]{4}){3}")
RE_GO = re.compile(r"GO-\d{4}-\d{4,}")
RE_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:[Zz]|[+-]\d{2}:\d{2})")
RE_SCHEMA = re.compile(r"(\d+)(?:\.(\d+))?(?:\.(\d+))?")
RE_CPE = re.compile(r"cpe:2\.3(?::[^:\s]*(?:\\:[^:\s]*)*){11}")
RE_VERSION = re.compile(r"\S+")

DETECTION = "detection"
TRUE_POSITIVE = "true-positive-determination"
FALSE_POSITIVE = "false-positive-determination"
FIXED = "fixed"
ANALYSIS_NOT_PLANNED = "analysis-not-planned"
FIX_NOT_PLANNED = "fix-not-planned"
PENDING_UPSTREAM_FIX = "pending-upstream-fix"
EVENT_TYPES = (DETECTION, TRUE_POSITIVE, FIXED, FALSE_POSITIVE, ANALYSIS_NOT_PLANNED, FIX_NOT_PLANNED,
               PENDING_UPSTREAM_FIX)  # fmt: skip
DETECTION_TYPES = ("manual", "nvdapi", "scan/v1")
FP_TYPES = (
    "vulnerability-record-analysis-contested",
    "component-vulnerability-mismatch",
    "vulnerable-code-version-not-used",
    "vulnerable-code-not-included-in-package",
    "vulnerable-code-not-in-execution-path",
    "vulnerable-code-cannot-be-controlled-by-adversary",
    "inline-mitigations-exist",
)
SCAN_V1_FIELDS = ("subpackageName", "componentID", "componentName", "componentVersion", "componentType",
                  "componentLocation", "scanner")  # fmt: skip
# The keys each event type's data may hold, and those it must hold (non-empty).
_DATA_KEYS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    TRUE_POSITIVE: (("note",), ()),
    FALSE_POSITIVE: (("type", "note"), ("type",)),
    FIXED: (("fixed-version",), ("fixed-version",)),
    ANALYSIS_NOT_PLANNED: (("note",), ("note",)),
    FIX_NOT_PLANNED: (("note",), ("note",)),
    PENDING_UPSTREAM_FIX: (("note",), ("note",)),
}


@dataclass
class Event:
    timestamp: str  # canonical RFC 3339 UTC, milliseconds
    type: str
    # The event's data as plain strings, per type: detection {"type", and nvdapi's or scan/v1's keys};
    # false-positive-determination {"type", "note"}; fixed {"fixed-version"}; the others {"note"}.
    data: dict[str, str] = field(default_factory=dict)


@dataclass
class Advisory:
    id: str
    aliases: list[str]
    events: list[Event]
    # Hash of the advisory's content as parsed: equal content, equal digest (idempotent re-import).
    digest: str = ""


@dataclass
class Document:
    schema_version: str
    package: str
    advisories: list[Advisory]


class _Doc:
    """One file being read: its name, for the errors."""

    def __init__(self, file: str) -> None:
        self.file = file

    def fail(self, node: Any, path: str, problem: str) -> BadInput:
        if node is not None:
            m = node.start_mark
            place = f"{m.line + 1}:{m.column + 1}" + (f" ({path})" if path else "")
        else:
            place = path
        return BadInput(self.file, place, problem)

    def mapping(self, node: Any, path: str, allowed: tuple[str, ...]) -> dict[str, tuple[Any, Any]]:
        """{key: (key node, value node)} of a mapping whose keys are all in `allowed`, none repeated."""
        if not isinstance(node, yaml.MappingNode):
            raise self.fail(node, path, f"expected a mapping, got {_kind(node)}")
        out: dict[str, tuple[Any, Any]] = {}
        for k, v in node.value:
            if not isinstance(k, yaml.ScalarNode):
                raise self.fail(k, path, "mapping keys must be strings")
            key = k.value
            if key not in allowed:
                raise self.fail(k, _join(path, key), f"unknown field {key!r}; allowed: {', '.join(allowed)}")
            if key in out:
                raise self.fail(k, _join(path, key), f"field {key!r} given twice")
            out[key] = (k, v)
        return out

    def sequence(self, node: Any, path: str, limit: int) -> list[Any]:
        if isinstance(node, yaml.ScalarNode) and node.tag.endswith(":null"):
            return []
        if not isinstance(node, yaml.SequenceNode):
            raise self.fail(node, path, f"expected a list, got {_kind(node)}")
        if len(node.value) > limit:
            raise self.fail(node, path, f"{len(node.value)} items is over the limit of {limit}")
        return list(node.value)

    def text(self, node: Any, path: str, required: bool = False) -> str:
        if isinstance(node, yaml.ScalarNode) and node.tag.endswith(":null"):
            value = ""
        elif isinstance(node, yaml.ScalarNode):
            value = node.value
        else:
            raise self.fail(node, path, f"expected a string, got {_kind(node)}")
        if len(value) > MAX_TEXT:
            raise self.fail(node, path, f"{len(value)} characters is over the limit of {MAX_TEXT}")
        if required and not value:
            raise self.fail(node, path, "must not be empty")
        return value


def _kind(node: Any) -> str:
    if isinstance(node, yaml.MappingNode):
        return "a mapping"
    if isinstance(node, yaml.SequenceNode):
        return "a list"
    if isinstance(node, yaml.ScalarNode) and node.tag.endswith(":null"):
        return "nothing"
    return f"the scalar {str(getattr(node, 'value', ''))[:40]!r}"


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _refuse_anchors(file: str, data: bytes) -> None:
    """YAML anchors (&) and aliases (*) are refused: an alias can expand a small file into a huge tree."""
    if b"&" not in data and b"*" not in data:
        return
    for ev in yaml.parse(data, Loader=_Loader):
        anchor = getattr(ev, "anchor", None)
        if isinstance(ev, yaml.AliasEvent) or anchor:
            m = ev.start_mark
            raise BadInput(file, f"{m.line + 1}:{m.column + 1}", "YAML anchors and aliases are not allowed")


def parse(file: str, data: bytes) -> Document:
    """The validated document in `data` (the bytes of `file`); BadInput naming the place otherwise."""
    if len(data) > MAX_DOCUMENT:
        raise BadInput(file, "", f"{len(data)} bytes is over the limit of {MAX_DOCUMENT} bytes for a document")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise BadInput(file, f"byte {e.start}", "not UTF-8 text") from None
    try:
        _refuse_anchors(file, data)
        root = yaml.compose(data, Loader=_Loader)
    except yaml.MarkedYAMLError as e:
        m = e.problem_mark or e.context_mark
        place = f"{m.line + 1}:{m.column + 1}" if m is not None else ""
        raise BadInput(file, place, f"malformed YAML: {e.problem or e.context}") from None
    except yaml.YAMLError as e:
        raise BadInput(file, "", f"malformed YAML: {e}") from None
    except RecursionError:
        raise BadInput(file, "", "YAML nested too deeply") from None
    d = _Doc(file)
    if root is None:
        raise BadInput(file, "", "empty document")
    top = d.mapping(root, "", ("schema-version", "package", "advisories"))
    if "schema-version" not in top:
        raise d.fail(root, "schema-version", "schema-version is missing (a version 1 document); only 2.x is supported")
    vnode = top["schema-version"][1]
    version = d.text(vnode, "schema-version", required=True)
    m = RE_SCHEMA.fullmatch(version)
    if m is None:
        raise d.fail(vnode, "schema-version", f"schema-version {version!r} is not a version number")
    if m.group(1) != "2":
        raise d.fail(vnode, "schema-version", f"schema-version {version!r} is not supported; only 2.x is")
    if "package" not in top:
        raise d.fail(root, "package", "package is missing")
    pkg = d.mapping(top["package"][1], "package", ("name",))
    if "name" not in pkg:
        raise d.fail(top["package"][1], "package.name", "package name must not be empty")
    package = d.text(pkg["name"][1], "package.name", required=True)
    if len(package) > 255 or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._+-]*", package):
        raise d.fail(pkg["name"][1], "package.name", f"{package[:60]!r} is not a package name")
    anode = top["advisories"][1] if "advisories" in top else None
    items = d.sequence(anode, "advisories", MAX_ADVISORIES) if anode is not None else []
    if not items:
        raise d.fail(anode or root, "advisories", "there must be at least one advisory")
    seen: dict[str, str] = {}
    advisories = [_advisory(d, n, f"advisories[{i}]", seen) for i, n in enumerate(items)]
    return Document(version, package, advisories)


def _advisory(d: _Doc, node: Any, path: str, seen: dict[str, str]) -> Advisory:
    f = d.mapping(node, path, ("id", "aliases", "events"))
    if "id" not in f:
        raise d.fail(node, _join(path, "id"), "id is missing")
    id_node = f["id"][1]
    adv_id = d.text(id_node, _join(path, "id"), required=True)
    if not RE_CGA.fullmatch(adv_id):
        raise d.fail(id_node, _join(path, "id"), f"{adv_id[:60]!r} is not an advisory id (CGA-xxxx-xxxx-xxxx)")
    if adv_id in seen:
        raise d.fail(id_node, _join(path, "id"), f"advisory id {adv_id} is not unique in the document")
    seen[adv_id] = path
    aliases: list[str] = []
    if "aliases" in f:
        for i, n in enumerate(d.sequence(f["aliases"][1], _join(path, "aliases"), MAX_ALIASES)):
            p = f"{path}.aliases[{i}]"
            alias = d.text(n, p, required=True)
            if not (RE_CVE.fullmatch(alias) or RE_GHSA.fullmatch(alias) or RE_GO.fullmatch(alias)):
                raise d.fail(n, p, f"{alias[:60]!r} is not a CVE, GHSA or GO vulnerability id")
            if alias in aliases:
                raise d.fail(n, p, f"{alias} is duplicated in the list")
            if alias in seen:
                raise d.fail(n, p, f"advisory alias {alias} is not unique in the document")
            aliases.append(alias)
            seen[alias] = p
    enode = f["events"][1] if "events" in f else None
    event_nodes = d.sequence(enode, _join(path, "events"), MAX_EVENTS) if enode is not None else []
    if not event_nodes:
        raise d.fail(enode or node, _join(path, "events"), "there must be at least one event")
    events = [_event(d, n, f"{path}.events[{i}]") for i, n in enumerate(event_nodes)]
    h = hashlib.sha256(adv_id.encode())
    for a in aliases:
        h.update(b"\0a" + a.encode())
    for e in events:
        h.update(b"\0e" + e.timestamp.encode() + b"\0" + e.type.encode())
        for k, v in sorted(e.data.items()):
            h.update(b"\0" + k.encode() + b"=" + v.encode())
    return Advisory(adv_id, aliases, events, h.hexdigest())


def _event(d: _Doc, node: Any, path: str) -> Event:
    f = d.mapping(node, path, ("timestamp", "type", "data"))
    if "timestamp" not in f:
        raise d.fail(node, _join(path, "timestamp"), "timestamp must not be zero")
    tnode = f["timestamp"][1]
    raw = d.text(tnode, _join(path, "timestamp"), required=True)
    if not RE_TIMESTAMP.fullmatch(raw):
        raise d.fail(tnode, _join(path, "timestamp"), f"{raw[:40]!r} is not an RFC 3339 timestamp")
    try:
        ts = clock.parse(raw)
    except ValueError as e:
        raise d.fail(tnode, _join(path, "timestamp"), f"{raw[:40]!r} is not an RFC 3339 timestamp: {e}") from None
    if "type" not in f:
        raise d.fail(node, _join(path, "type"), "type must not be empty")
    ynode = f["type"][1]
    etype = d.text(ynode, _join(path, "type"), required=True)
    if etype not in EVENT_TYPES:
        problem = f"type is {etype[:40]!r} but must be one of [{', '.join(EVENT_TYPES)}]"
        raise d.fail(ynode, _join(path, "type"), problem)
    dnode = f["data"][1] if "data" in f else None
    dpath = _join(path, "data")
    if etype == DETECTION:
        return Event(ts, etype, _detection(d, dnode, node, dpath))
    allowed, required = _DATA_KEYS[etype]
    if dnode is None or (isinstance(dnode, yaml.ScalarNode) and dnode.tag.endswith(":null")):
        if required:
            raise d.fail(dnode or node, _join(dpath, required[0]), f"{required[0]} must not be empty")
        return Event(ts, etype, {})
    fields = d.mapping(dnode, dpath, allowed)
    data: dict[str, str] = {}
    for key in allowed:
        if key in fields:
            data[key] = d.text(fields[key][1], _join(dpath, key), required=key in required)
        elif key in required:
            raise d.fail(dnode, _join(dpath, key), f"{key} must not be empty")
    if etype == FALSE_POSITIVE and data["type"] not in FP_TYPES:
        raise d.fail(fields["type"][1], _join(dpath, "type"),
                     f"invalid false positive determination type {data['type'][:60]!r}, must be one of"
                     f" [{', '.join(FP_TYPES)}]")  # fmt: skip
    if etype == FIXED and not RE_VERSION.fullmatch(data["fixed-version"]):
        raise d.fail(fields["fixed-version"][1], _join(dpath, "fixed-version"), "invalid fixed version")
    return Event(ts, etype, data)


def _detection(d: _Doc, dnode: Any, event: Any, path: str) -> dict[str, str]:
    if dnode is None:
        raise d.fail(event, _join(path, "type"), f"detection type must be one of [{', '.join(DETECTION_TYPES)}]")
    f = d.mapping(dnode, path, ("type", "data"))
    if "type" not in f:
        raise d.fail(dnode, _join(path, "type"), f"detection type must be one of [{', '.join(DETECTION_TYPES)}]")
    tnode = f["type"][1]
    dtype = d.text(tnode, _join(path, "type"))
    if dtype not in DETECTION_TYPES:
        problem = f"invalid detection type {dtype[:40]!r}, must be one of [{', '.join(DETECTION_TYPES)}]"
        raise d.fail(tnode, _join(path, "type"), problem)
    inner = f["data"][1] if "data" in f else None
    ipath = _join(path, "data")
    out = {"type": dtype}
    if dtype == "manual":
        if inner is not None and not (isinstance(inner, yaml.ScalarNode) and inner.tag.endswith(":null")):
            raise d.fail(inner, ipath, "data must be empty for detection type 'manual'")
        return out
    keys = ("cpeSearched", "cpeFound") if dtype == "nvdapi" else SCAN_V1_FIELDS
    if inner is None:
        raise d.fail(dnode, _join(ipath, keys[0]), f"{keys[0]} must not be empty")
    fields = d.mapping(inner, ipath, keys)
    for key in keys:
        if key not in fields:
            raise d.fail(inner, _join(ipath, key), f"{key} must not be empty")
        value = d.text(fields[key][1], _join(ipath, key), required=True)
        if dtype == "nvdapi" and not RE_CPE.fullmatch(value):
            raise d.fail(fields[key][1], _join(ipath, key), f"{value[:80]!r} is not a CPE 2.3 formatted string")
        out[key] = value
    return out
