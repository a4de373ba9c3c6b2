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
RFC 3339 timestamps, known event and detection types, each type's required data. Every failure is one
`BadInput` naming the file, `line:column (path)` and the problem, on one line.

Bounded work on untrusted input: a document is at most MAX_DOCUMENT bytes and MAX_NODES YAML nodes
(scalars, lists, mappings), nested at most MAX_DEPTH deep, composed here from libyaml's events into light
nodes (PyYAML's own composer built ~360-byte nodes, calling back into Python for each, before any limit
could apply: 8 MB of `[{},{},...]` took 1 GB and 16 s). YAML anchors and aliases are refused (no
billion laughs), and so is a NUL character in any string (the API refuses it too; PostgreSQL cannot
store it). Formats are checked by hand-split parsers, and the one pattern (CPE 2.3) runs on RE2: no
backtracking regular expression ever sees the input.

Pure functions: no database, no records of the API (see `advisory_queries` and `advisory.documents` for those).
"""

from __future__ import annotations

import hashlib
import string
from dataclasses import dataclass, field
from typing import Any

import re2
import yaml  # type: ignore[import-untyped]

from platform_api.core import clock
from platform_api.service.imports import BadInput

MAX_DOCUMENT = 4 << 20  # bytes of one document (real ones are tens of KB)
MAX_NODES = 250_000  # YAML nodes of one document: bounds the memory one document takes while it is checked
MAX_DEPTH = 32  # nesting of lists and mappings (the format needs 7)
MAX_ADVISORIES = 20_000  # per document
MAX_EVENTS = 2_000  # per advisory
MAX_ALIASES = 200  # per advisory
MAX_TEXT = 64 << 10  # characters of one scalar (notes)

_Parser: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's parser when PyYAML has it
_NULLS = frozenset(("", "~", "null", "Null", "NULL"))
_NULL_TAG = "tag:yaml.org,2002:null"
SCALAR, SEQUENCE, MAPPING = "a string", "a list", "a mapping"

# CPE 2.3 formatted string: `cpe:2.3` and 11 components; within a component a backslash quotes the next
# character (`\:` is a colon inside a component, never a separator), so each string splits one way only.
RE_CPE = re2.compile(r"cpe:2\.3(?::(?:[^:\s\\]|\\\S)*){11}")
ID_ALPHABET = "23456789cfghjmpqrvwx"  # the groups of CGA and GHSA ids (GHSA's alphabet, which CGA ids share)
_ID_ALPHABET = frozenset(ID_ALPHABET)
ID_FORM = f"CGA-xxxx-xxxx-xxxx, each x one of {ID_ALPHABET} (lower case), e.g. CGA-2fq3-jx6r-8w4c"
_NAME_START = frozenset(string.ascii_letters + string.digits)
_NAME_CHARS = _NAME_START | frozenset("._+-")


def _digits(text: str) -> bool:
    """Only ASCII digits, at least one."""
    return text.isascii() and text.isdigit()


def _fields(text: str, sep: str, widths: tuple[int, ...]) -> bool:
    """`text` is groups of ASCII digits of these widths joined by `sep`."""
    parts = text.split(sep)
    return len(parts) == len(widths) and all(len(p) == w and _digits(p) for p, w in zip(parts, widths, strict=True))


def grouped_id(value: str, prefix: str) -> bool:
    """`<prefix>-xxxx-xxxx-xxxx` over the id alphabet: CGA and GHSA ids."""
    parts = value.split("-") if len(value) == len(prefix) + 15 else []
    return len(parts) == 4 and parts[0] == prefix and all(len(p) == 4 and set(p) <= _ID_ALPHABET for p in parts[1:])


def year_id(value: str, prefix: str) -> bool:
    """`<prefix>-<4 digits>-<4 or more digits>`: CVE and GO ids."""
    parts = value.split("-", 2)
    return (len(parts) == 3 and parts[0] == prefix and len(parts[1]) == 4 and _digits(parts[1])
            and len(parts[2]) >= 4 and _digits(parts[2]))  # fmt: skip


def is_alias(value: str) -> bool:
    return year_id(value, "CVE") or grouped_id(value, "GHSA") or year_id(value, "GO")


def is_timestamp(value: str) -> bool:
    """RFC 3339 with a time zone: `YYYY-MM-DDTHH:MM:SS[.f{1,9}](Z|+HH:MM|-HH:MM)`, `t` and `z` allowed."""
    if not 20 <= len(value) <= 35 or value[10] not in "Tt":
        return False
    if not (_fields(value[:10], "-", (4, 2, 2)) and _fields(value[11:19], ":", (2, 2, 2))):
        return False
    rest = value[19:]
    if rest[-1] in "Zz":
        fraction, zone_ok = rest[:-1], True
    else:
        fraction, zone = rest[:-6], rest[-6:]
        zone_ok = len(zone) == 6 and zone[0] in "+-" and _fields(zone[1:], ":", (2, 2))
    return zone_ok and (not fraction or (fraction[0] == "." and 2 <= len(fraction) <= 10 and _digits(fraction[1:])))


def schema_major(version: str) -> str | None:
    """The major number of `N[.N[.N]]`, None when `version` is not of that form."""
    parts = version.split(".")
    return parts[0] if len(parts) <= 3 and all(_digits(p) for p in parts) else None


def is_package_name(name: str) -> bool:
    return 0 < len(name) <= 255 and name[0] in _NAME_START and set(name) <= _NAME_CHARS


def is_version(value: str) -> bool:
    """Non-empty, no white space."""
    return value.split() == [value]


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


@dataclass(slots=True)
class Node:
    """A composed YAML node: what validation reads of it, nothing more."""

    kind: str  # SCALAR, SEQUENCE or MAPPING
    line: int  # where it starts, 0-based (as libyaml's marks, which are not kept: they cost more than the node)
    column: int
    # str for a scalar, [Node] for a list, [(key Node, value Node)] for a mapping.
    value: Any
    null: bool = False  # a scalar resolving to null (`~`, `null`, nothing)


def _place(at: Any) -> str:
    """line:column (1-based) of a Node or a libyaml mark."""
    return f"{at.line + 1}:{at.column + 1}"


def compose(file: str, data: bytes) -> Node | None:
    """The one YAML document in `data` as Nodes (None for an empty stream), within MAX_NODES and
    MAX_DEPTH; BadInput on malformed YAML, anchors, aliases, a second document or a NUL character."""
    root: Node | None = None
    open_nodes: list[Node] = []  # the lists and mappings being filled, innermost last
    keys: list[Node | None] = []  # per open node: a mapping's key waiting for its value
    nodes = documents = 0
    loader = _Parser(data)
    get_event, check_event = loader.get_event, loader.check_event
    try:
        while check_event():
            event = get_event()
            kind = type(event)
            if kind is yaml.ScalarEvent:  # the commonest first
                value = event.value
                if event.anchor:
                    raise BadInput(file, _place(event.start_mark), "YAML anchors and aliases are not allowed")
                if "\0" in value:
                    raise BadInput(file, _place(event.start_mark), "a NUL character is not allowed")
                tag = event.tag
                # The format's scalars resolve as null or string only: timestamps and versions are read as
                # text and checked here (PyYAML's implicit resolvers were a third of the parse time).
                null = (event.implicit[0] and value in _NULLS) if tag is None or tag == "!" else tag == _NULL_TAG
                mark = event.start_mark
                node = Node(SCALAR, mark.line, mark.column, value, null)
            elif kind is yaml.SequenceEndEvent or kind is yaml.MappingEndEvent:
                open_nodes.pop()
                keys.pop()
                continue
            elif kind is yaml.MappingStartEvent or kind is yaml.SequenceStartEvent:
                if event.anchor:
                    raise BadInput(file, _place(event.start_mark), "YAML anchors and aliases are not allowed")
                mark = event.start_mark
                node = Node(MAPPING if kind is yaml.MappingStartEvent else SEQUENCE, mark.line, mark.column, [])
            elif kind is yaml.AliasEvent:
                raise BadInput(file, _place(event.start_mark), "YAML anchors and aliases are not allowed")
            elif kind is yaml.DocumentStartEvent:
                documents += 1
                if documents > 1:
                    raise BadInput(file, _place(event.start_mark), "expected one YAML document, found another")
                continue
            else:  # stream start and end, document end
                continue
            nodes += 1
            if nodes > MAX_NODES:
                raise BadInput(file, _place(node), f"more than {MAX_NODES} YAML nodes in one document")
            if not open_nodes:
                root = node
            elif open_nodes[-1].kind is SEQUENCE:
                open_nodes[-1].value.append(node)
            elif keys[-1] is None:
                keys[-1] = node
            else:
                open_nodes[-1].value.append((keys[-1], node))
                keys[-1] = None
            if node.kind is not SCALAR:
                if len(open_nodes) == MAX_DEPTH:
                    raise BadInput(file, _place(node), f"nested deeper than {MAX_DEPTH} levels")
                open_nodes.append(node)
                keys.append(None)
    except yaml.reader.ReaderError as e:
        # A character YAML does not allow (control characters): PyYAML's message spans two lines and counts
        # in bytes; say where it is as line:column.
        problem = e.reason
        if isinstance(e.character, int):
            problem = f"unacceptable character #x{e.character:04x}: {problem}"
        raise BadInput(file, _offset_place(data, e.position), f"malformed YAML: {problem}") from None
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        problem = " ".join(str(e.problem or e.context).split())
        raise BadInput(file, _place(mark) if mark is not None else "", f"malformed YAML: {problem}") from None
    except yaml.YAMLError as e:
        raise BadInput(file, "", f"malformed YAML: {' '.join(str(e).split())}") from None
    finally:
        loader.dispose()
    return root


def _offset_place(data: bytes, offset: int) -> str:
    """line:column of a byte offset (libyaml's reader counts bytes)."""
    offset = max(0, min(offset, len(data)))
    line_start = data.rfind(b"\n", 0, offset) + 1
    column = len(data[line_start:offset].decode("utf-8", "replace")) + 1
    line = data.count(b"\n", 0, offset) + 1
    return f"{line}:{column}"


class _Doc:
    """One file being read: its name, for the errors."""

    def __init__(self, file: str) -> None:
        self.file = file

    def fail(self, node: Node | None, path: str, problem: str) -> BadInput:
        place = path if node is None else _place(node) + (f" ({path})" if path else "")
        return BadInput(self.file, place, problem)

    def mapping(self, node: Node, path: str, allowed: tuple[str, ...]) -> dict[str, tuple[Node, Node]]:
        """{key: (key node, value node)} of a mapping whose keys are all in `allowed`, none repeated."""
        if node.kind is not MAPPING:
            raise self.fail(node, path, f"expected a mapping, got {_kind(node)}")
        out: dict[str, tuple[Node, Node]] = {}
        for k, v in node.value:
            if k.kind is not SCALAR:
                raise self.fail(k, path, "mapping keys must be strings")
            key = k.value
            if key not in allowed:
                raise self.fail(k, _join(path, key), f"unknown field {key[:60]!r}; allowed: {', '.join(allowed)}")
            if key in out:
                raise self.fail(k, _join(path, key), f"field {key!r} given twice")
            out[key] = (k, v)
        return out

    def sequence(self, node: Node, path: str, limit: int) -> list[Node]:
        if node.null:
            return []
        if node.kind is not SEQUENCE:
            raise self.fail(node, path, f"expected a list, got {_kind(node)}")
        if len(node.value) > limit:
            raise self.fail(node, path, f"{len(node.value)} items is over the limit of {limit}")
        return list(node.value)

    def text(self, node: Node, path: str, required: bool = False) -> str:
        if node.kind is not SCALAR:
            raise self.fail(node, path, f"expected a string, got {_kind(node)}")
        value = "" if node.null else str(node.value)
        if len(value) > MAX_TEXT:
            raise self.fail(node, path, f"{len(value)} characters is over the limit of {MAX_TEXT}")
        if required and not value:
            raise self.fail(node, path, "must not be empty")
        return value


def _kind(node: Node) -> str:
    if node.null:
        return "nothing"
    if node.kind is SCALAR:
        return f"the scalar {str(node.value)[:40]!r}"
    return node.kind


def _join(path: str, key: str) -> str:
    return f"{path}.{key[:60]}" if path else key[:60]


def parse(file: str, data: bytes) -> Document:
    """The validated document in `data` (the bytes of `file`); BadInput naming the place otherwise."""
    if len(data) > MAX_DOCUMENT:
        raise BadInput(file, "", f"{len(data)} bytes is over the limit of {MAX_DOCUMENT} bytes for a document")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise BadInput(file, f"byte {e.start}", "not UTF-8 text") from None
    root = compose(file, data)
    d = _Doc(file)
    if root is None:
        raise BadInput(file, "", "empty document")
    top = d.mapping(root, "", ("schema-version", "package", "advisories"))
    if "schema-version" not in top:
        raise d.fail(root, "schema-version", "schema-version is missing (a version 1 document); only 2.x is supported")
    vnode = top["schema-version"][1]
    version = d.text(vnode, "schema-version", required=True)
    major = schema_major(version)
    if major is None:
        raise d.fail(vnode, "schema-version", f"schema-version {version[:40]!r} is not a version number")
    if major != "2":
        raise d.fail(vnode, "schema-version", f"schema-version {version[:40]!r} is not supported; only 2.x is")
    if "package" not in top:
        raise d.fail(root, "package", "package is missing")
    pkg = d.mapping(top["package"][1], "package", ("name",))
    if "name" not in pkg:
        raise d.fail(top["package"][1], "package.name", "package name must not be empty")
    package = d.text(pkg["name"][1], "package.name", required=True)
    if not is_package_name(package):
        raise d.fail(pkg["name"][1], "package.name", f"{package[:60]!r} is not a package name")
    anode = top["advisories"][1] if "advisories" in top else None
    items = d.sequence(anode, "advisories", MAX_ADVISORIES) if anode is not None else []
    if not items:
        raise d.fail(anode or root, "advisories", "there must be at least one advisory")
    seen: dict[str, str] = {}
    advisories = [_advisory(d, n, f"advisories[{i}]", seen) for i, n in enumerate(items)]
    return Document(version, package, advisories)


def _advisory(d: _Doc, node: Node, path: str, seen: dict[str, str]) -> Advisory:
    f = d.mapping(node, path, ("id", "aliases", "events"))
    if "id" not in f:
        raise d.fail(node, _join(path, "id"), "id is missing")
    id_node = f["id"][1]
    adv_id = d.text(id_node, _join(path, "id"), required=True)
    if not grouped_id(adv_id, "CGA"):
        raise d.fail(id_node, _join(path, "id"), f"{adv_id[:60]!r} is not an advisory id: {ID_FORM}")
    if adv_id in seen:
        raise d.fail(id_node, _join(path, "id"), f"advisory id {adv_id} is not unique in the document")
    seen[adv_id] = path
    aliases: list[str] = []
    if "aliases" in f:
        for i, n in enumerate(d.sequence(f["aliases"][1], _join(path, "aliases"), MAX_ALIASES)):
            p = f"{path}.aliases[{i}]"
            alias = d.text(n, p, required=True)
            if not is_alias(alias):
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


def _event(d: _Doc, node: Node, path: str) -> Event:
    f = d.mapping(node, path, ("timestamp", "type", "data"))
    if "timestamp" not in f:
        raise d.fail(node, _join(path, "timestamp"), "timestamp must not be zero")
    tnode = f["timestamp"][1]
    raw = d.text(tnode, _join(path, "timestamp"), required=True)
    if not is_timestamp(raw):
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
    if dnode is None or dnode.null:
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
    if etype == FIXED and not is_version(data["fixed-version"]):
        raise d.fail(fields["fixed-version"][1], _join(dpath, "fixed-version"), "invalid fixed version")
    return Event(ts, etype, data)


def _detection(d: _Doc, dnode: Node | None, event: Node, path: str) -> dict[str, str]:
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
        if inner is not None and not inner.null:
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
        if dtype == "nvdapi" and RE_CPE.fullmatch(value) is None:
            raise d.fail(fields[key][1], _join(ipath, key), f"{value[:80]!r} is not a CPE 2.3 formatted string")
        out[key] = value
    return out
