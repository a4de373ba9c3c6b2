"""Parser of tests/fixtures/wire-v2.md and wire-v1.md: the published wire contracts as plain data.

The file is a mechanical extraction of the vendor's protos: per package, services (a table of methods with
request/response, HTTP rules, capabilities and event type), messages (fields with number, name, JSON name,
label and type; oneofs) and enums (values and numbers). tests/functional/contract/test_wire_contract.py
compares it with our compiled descriptors.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

# Kept in the repository (the vendor's published contracts, copied verbatim), so the suite needs nothing
# outside a clone.
WIRE = Path(__file__).resolve().parents[1] / "fixtures" / "wire-v2.md"
# The v1 contract (packages without a version segment: chainguard.platform.iam, .registry, .tenant, ...; and
# chainguard.platform.vulnerabilities.v1), which the vendor's v1 clients and its Terraform provider speak.
WIRE_V1 = WIRE.with_name("wire-v1.md")


@dataclass(frozen=True)
class Field:
    number: int
    name: str
    json_name: str
    label: str  # "", "repeated", "optional"
    type: str  # scalar name, fully-qualified message/enum name, or "map<K, V>"


@dataclass
class Message:
    name: str
    fields: dict[str, Field] = field(default_factory=dict)
    oneofs: dict[str, list[str]] = field(default_factory=dict)


@dataclass(frozen=True)
class HttpBinding:
    verb: str
    path: str
    body: str


@dataclass
class Method:
    name: str
    request: str
    response: str
    http: list[HttpBinding]
    capabilities: list[str]
    unscoped: bool
    public: bool
    event_type: str


@dataclass
class Facts:
    services: dict[str, dict[str, Method]] = field(default_factory=dict)
    messages: dict[str, Message] = field(default_factory=dict)
    enums: dict[str, dict[str, int]] = field(default_factory=dict)
    # Package of each file section, e.g. chainguard.platform.iam.v2.
    packages: set[str] = field(default_factory=set)
    # The vendor's file of each service, message and enum ("" for the shared section), e.g. groups.proto.
    files: dict[str, str] = field(default_factory=dict)


_SECTION = re.compile(r"^## (\S+) \(([^)]*)\)")
_SERVICE = re.compile(r"^service `([^`]+)`")
_MESSAGE = re.compile(r"^message `([^`]+)`(?: oneofs: (.*))?$")
_ENUM = re.compile(r"^enum `([^`]+)`[^:]*: (.*)$")
_FIELD = re.compile(r"^(\d+) (\w+) \((\w+)\): (?:(repeated|optional) )?(.+)$")
_ONEOF = re.compile(r"(\w+)\{([^}]*)\}")
_HTTP = re.compile(r"(GET|POST|PUT|PATCH|DELETE) `([^`]+)`(?: body `([^`]+)`)?")


def _qualify(type_: str, package: str) -> str:
    """Request/response names in the service tables are relative to the package unless dotted."""
    if "." in type_ or type_ in ("Empty",):
        return "google.protobuf.Empty" if type_ == "Empty" else type_
    return f"{package}.{type_}"


def _method(row: str, package: str) -> Method:
    cells = [c.strip() for c in row.strip().strip("|").split("|")]
    name, rr, http, caps, event = (cells + [""] * 5)[:5]
    req, resp = (s.strip() for s in rr.split("→"))
    bindings = [HttpBinding(v, p, b or "") for v, p, b in _HTTP.findall(http)]
    public = caps.startswith("none (public)")
    unscoped = "(unscoped)" in caps
    cap_names = re.findall(r"CAP_\w+", caps)
    m = re.search(r"`([^`]+)`", event)
    return Method(
        name, _qualify(req, package), _qualify(resp, package), bindings, cap_names, unscoped, public,
        m.group(1) if m else "",
    )  # fmt: skip


def parse(path: Path = WIRE) -> Facts:
    facts = Facts()
    package = source = ""
    service = ""
    message: Message | None = None
    for raw in path.read_text().splitlines():
        line = raw.rstrip()
        if m := _SECTION.match(line):
            package, source = m.group(1), m.group(2)
            facts.packages.add(package)
            service, message = "", None
        elif line.startswith("## "):  # the shared section: UIDPFilter, Capability
            package = source = service = ""
            message = None
        elif m := _SERVICE.match(line):
            service, message = m.group(1), None
            facts.services[service] = {}
            facts.files[service] = source
        elif service and line.startswith("| ") and not line.startswith(("| method", "|---")):
            meth = _method(line, package)
            facts.services[service][meth.name] = meth
        elif m := _MESSAGE.match(line):
            service = ""
            message = Message(m.group(1))
            for name, members in _ONEOF.findall(m.group(2) or ""):
                message.oneofs[name] = [x.strip() for x in members.split(",") if x.strip()]
            facts.messages[message.name] = message
            facts.files[message.name] = source
        elif m := _ENUM.match(line):
            service, message = "", None
            values = {}
            for item in m.group(2).split(", "):
                k, v = item.split("=")
                values[k.strip()] = int(v)
            facts.enums[m.group(1)] = values
            facts.files[m.group(1)] = source
        elif message is not None and line.startswith("  ") and line.strip() != "(empty)":
            for part in line.strip().split("; "):
                fm = _FIELD.match(part)
                if fm is None:
                    raise ValueError(f"unparsed field in {message.name}: {part!r}")
                num, name, json_name, label, type_ = fm.groups()
                message.fields[name] = Field(int(num), name, json_name, label or "", type_)
    return facts
