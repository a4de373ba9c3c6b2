"""The "large" fuzz profile: every repeated, map and FieldMask field of every served method, filled at its
declared cap and one past it, over HTTP and gRPC, on both backends (issue 16, Systematic).

Generated from the descriptors the server serves (`schema.methods()`), independently of the plans the
transports check: each capped field path of a request (nested ones too, `image_refs[].tags`,
`account_association.github.app_installations[].installations`) becomes two requests:
- at the cap, with every container on the way at its own cap and its elements' capped fields at theirs
  (deep nesting where the contract allows): no server error, and no INVALID_ARGUMENT about a count;
- one past the cap at that field (in the second element of each container on the way): INVALID_ARGUMENT
  whose BadRequest names exactly that field path.
Scoped requests name the owner's organization (so authorization passes and the implementation runs with
the values). HTTP carries the request as its first route does (path, query or body); a field the query
string cannot express (a list of messages, a map) is sent over gRPC only. A dedicated server per backend
(`--sts-rate 0`: the token exchange's rate limit would otherwise count these calls).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import grpc
import httpx
import pytest
from google.protobuf import json_format
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.rpc import error_details_pb2, status_pb2

from platform_api.api import schema
from platform_api.gen.platformapi import annotations_pb2 as ours
from platform_api.service.methods import MethodInfo
from tests.helpers import BACKENDS, TIMEOUT, Server, start_server, stop_server

FD = FieldDescriptor
SERVER_ERRORS = {
    grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN, grpc.StatusCode.DATA_LOSS,
    grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED,
}  # fmt: skip
OVER = "takes at most"
_VAR = re.compile(r"\{([a-zA-Z0-9_.]+)(?:=([^}]*))?\}")  # a path variable of an HTTP rule


def _is_map(fd: FieldDescriptor) -> bool:
    return fd.type == FD.TYPE_MESSAGE and bool(fd.message_type.GetOptions().map_entry)


def _cap(fd: FieldDescriptor) -> int:
    return int(fd.GetOptions().Extensions[ours.max_items])


def _container(fd: FieldDescriptor) -> Descriptor | None:
    """The message type a field's values are, when it holds several (a list or map of messages)."""
    value = fd.message_type.fields_by_name["value"] if _is_map(fd) else fd
    if (fd.is_repeated or _is_map(fd)) and value.type == FD.TYPE_MESSAGE:
        return value.message_type
    return None


def _is_capped(fd: FieldDescriptor) -> bool:
    mask = fd.type == FD.TYPE_MESSAGE and fd.message_type.full_name == "google.protobuf.FieldMask"
    return fd.is_repeated or mask


def _paths(desc: Descriptor, seen: frozenset[str] = frozenset()) -> Iterator[tuple[FieldDescriptor, ...]]:
    """Every capped field below `desc`, as the fields leading to it."""
    if desc.full_name in seen:
        return
    for fd in desc.fields:
        if _is_capped(fd):
            yield (fd,)
        inner = _container(fd)
        if inner is None and fd.type == FD.TYPE_MESSAGE and not fd.is_repeated:
            inner = None if fd.message_type.full_name.startswith("google.protobuf.") else fd.message_type
        if inner is not None:
            for rest in _paths(inner, seen | {desc.full_name}):
                yield (fd, *rest)


# ---------------------------------------------------------------- values


def _scalar(fd: FieldDescriptor, i: int) -> Any:
    if fd.type == FD.TYPE_ENUM:
        numbers = [v.name for v in fd.enum_type.values if v.number != 0] or [fd.enum_type.values[0].name]
        return numbers[i % len(numbers)]
    if fd.type == FD.TYPE_STRING:
        return f"{i:040x}"  # a valid root uid, and a plain word everywhere else
    if fd.type == FD.TYPE_BOOL:
        return True
    if fd.type == FD.TYPE_BYTES:
        return "AA=="
    if fd.type in (FD.TYPE_INT64, FD.TYPE_UINT64, FD.TYPE_SINT64, FD.TYPE_FIXED64, FD.TYPE_SFIXED64):
        return str(i + 1)
    if fd.type in (FD.TYPE_FLOAT, FD.TYPE_DOUBLE):
        return float(i)
    return i + 1


def _full(desc: Descriptor) -> dict[str, Any]:
    """A message with every capped field below it at its cap (deep)."""
    out: dict[str, Any] = {}
    for fd in desc.fields:
        if _is_capped(fd):
            out[fd.json_name] = _many(fd, _cap(fd), deep=True)
        elif fd.type == FD.TYPE_MESSAGE and not fd.message_type.full_name.startswith("google.protobuf."):
            inner = _full(fd.message_type)
            if inner:
                out[fd.json_name] = inner
    return out


def _many(fd: FieldDescriptor, n: int, *, deep: bool, inside: Any = None, at: int = -1) -> Any:
    """`n` values of field `fd` in canonical JSON; element `at` is `inside` instead (for nested targets)."""
    if not fd.is_repeated and not _is_map(fd):  # a FieldMask: n paths
        return ",".join(["name"] * n)
    inner = _container(fd)

    def element(i: int) -> Any:
        if i == at:
            return inside
        if inner is None:
            value = fd.message_type.fields_by_name["value"] if _is_map(fd) else fd
            # A map's string values are one word; other values (v1 Group.resource_limits: int32) their kind's.
            return "v" if _is_map(fd) and value.type == FD.TYPE_STRING else _scalar(value, i)
        return _full(inner) if deep else {}

    if _is_map(fd):
        key = fd.message_type.fields_by_name["key"]
        return {str(_scalar(key, i)) if key.type != FD.TYPE_STRING else f"k{i}": element(i) for i in range(n)}
    return [element(i) for i in range(n)]


@dataclass
class Case:
    method: MethodInfo
    path: tuple[FieldDescriptor, ...]
    over: bool

    @property
    def id(self) -> str:
        return f"{self.method.full_name}:{self.shown(False)}:{'over' if self.over else 'at'}"

    def shown(self, keys: bool = True) -> str:
        """The field path as the error names it (`image_refs[1].tags`)."""
        parts: list[str] = []
        for fd in self.path[:-1]:
            if _container(fd) is None:
                parts.append(fd.name + ".")
            elif keys:
                key = fd.message_type.fields_by_name["key"] if _is_map(fd) else None
                shown = "k1" if key is not None and key.type == FD.TYPE_STRING else _scalar(key, 1) if key else 1
                parts.append(f"{fd.name}[{shown}].")
            else:
                parts.append(f"{fd.name}[].")
        return "".join(parts) + self.path[-1].name

    def request(self, org: str) -> dict[str, Any]:
        """The canonical JSON of the request."""
        last = self.path[-1]
        value: Any = _many(last, _cap(last) + (1 if self.over else 0), deep=not self.over)
        for fd in reversed(self.path[:-1]):
            wrapped = {last.json_name: value}
            if _container(fd) is None:
                value = wrapped
            else:
                base = _full(_container(fd)) if not self.over else {}  # type: ignore[arg-type]
                value = _many(fd, _cap(fd), deep=not self.over, inside={**base, **wrapped}, at=1)
            last = fd
        data: dict[str, Any] = {last.json_name: value}
        for field in self.scope_fields():
            _set(self.method.input, data, field, org)
        # A valid name for the resource a Create sends, so that more calls get past validation to the work.
        for fd in self.method.input.fields:
            if fd.json_name in data and fd.type == FD.TYPE_MESSAGE and "name" in fd.message_type.fields_by_name:
                data[fd.json_name].setdefault("name", "large-cap")
        return data

    def scope_fields(self) -> list[str]:
        fields = [name for name, pattern in _vars(self.method) if pattern == "**"]
        if self.method.scope_field and self.method.scope_field not in fields:
            fields.append(self.method.scope_field)
        return fields


def _vars(m: MethodInfo) -> list[tuple[str, str]]:
    return [(v.group(1), v.group(2) or "*") for v in _VAR.finditer(m.rules[0].template)] if m.rules else []


def _set(desc: Descriptor, data: dict[str, Any], dotted: str, value: Any) -> None:
    *parents, name = dotted.split(".")
    for part in parents:
        fd = desc.fields_by_name[part]
        data = data.setdefault(fd.json_name, {})
        desc = fd.message_type
    data.setdefault(desc.fields_by_name[name].json_name, value)


def _get(desc: Descriptor, data: dict[str, Any], dotted: str) -> Any:
    for part in dotted.split("."):
        fd = desc.fields_by_name[part]
        data = data.get(fd.json_name, {}) if isinstance(data, dict) else {}
        desc = fd.message_type if fd.type == FD.TYPE_MESSAGE else desc
    return data


def _cases() -> list[Case]:
    out = []
    for m in schema.methods().values():
        for path in _paths(m.input):
            out += [Case(m, path, over=False), Case(m, path, over=True)]
    return out


CASES = _cases()


# ---------------------------------------------------------------- transports


def _query(data: dict[str, Any], prefix: str = "") -> list[tuple[str, str]] | None:
    """The query string of `data`, or None when it holds what a query cannot express (lists of messages, maps)."""
    out: list[tuple[str, str]] = []
    for key, value in data.items():
        if isinstance(value, dict):
            nested = _query(value, f"{prefix}{key}.")
            if nested is None:
                return None
            out += nested
        elif isinstance(value, list):
            if any(isinstance(v, dict) for v in value):
                return None
            out += [(prefix + key, str(v)) for v in value]
        else:
            out.append((prefix + key, str(value).lower() if isinstance(value, bool) else str(value)))
    return out


def _http(case: Case, client: httpx.Client, org: str) -> tuple[int, dict[str, Any]] | None:
    """(status, body) of the case over HTTP, or None when its first route cannot carry it."""
    m = case.method
    if not m.rules:
        return None
    rule, data = m.rules[0], case.request(org)
    bound: set[str] = set()  # top-level request fields the path carries

    def fill(var: re.Match[str]) -> str:
        name, pattern = var.group(1), var.group(2) or "*"
        if "." not in name:
            bound.add(m.input.fields_by_name[name].json_name)
        return str(_get(m.input, data, name) or ("x" if pattern == "*" else org))

    url = _VAR.sub(fill, rule.template)
    body: Any = None
    rest = {k: v for k, v in data.items() if k not in bound}
    if rule.body == "*":
        body, rest = rest, {}
    elif rule.body:
        field = m.input.fields_by_name[rule.body].json_name
        body = rest.pop(field, {})
    query = _query(rest)
    if query is None:
        return None
    r = client.request(rule.verb, url, params=query, json=body, timeout=60)
    return r.status_code, r.json() if r.headers.get("content-type", "").startswith("application/json") else {}


def _grpc(case: Case, channel: grpc.Channel, org: str) -> tuple[grpc.StatusCode, status_pb2.Status | None]:
    m = case.method
    request = json_format.ParseDict(case.request(org), m.input_pb())
    call = channel.unary_unary(
        m.grpc_path, request_serializer=m.input_pb.SerializeToString, response_deserializer=m.output_pb.FromString
    )
    try:
        call(request, timeout=TIMEOUT * 6)
    except grpc.RpcError as e:
        raw = dict(e.trailing_metadata() or ()).get("grpc-status-details-bin")
        return e.code(), status_pb2.Status.FromString(raw) if raw else None
    return grpc.StatusCode.OK, None


def _violations(st: status_pb2.Status | None) -> list[tuple[str, str]]:
    out = []
    for d in st.details if st is not None else []:
        if d.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            bad = error_details_pb2.BadRequest()
            d.Unpack(bad)
            out += [(v.field, v.description) for v in bad.field_violations]
    return out


@pytest.fixture(scope="module", params=BACKENDS)
def large(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    s = start_server(request.param, tmp_path_factory.mktemp("large-" + request.param), "--no-dispatcher",
                     "--sts-rate", "0")  # fmt: skip
    yield s
    stop_server(s)


def test_cases_cover_the_nested_shapes() -> None:
    ids = {c.id for c in CASES}
    for expected in (
        "chainguard.platform.advisory.v2.SecurityAdvisoryService.ListResolvedVulnsReports:image_refs[].tags:over",
        "chainguard.platform.iam.v2.AccountAssociationsService.CreateAccountAssociation:"
        "account_association.github.app_installations[].installations:at",
        "chainguard.platform.registry.v2beta1.ReposService.ListRepos:uidp.ids:over",
        "chainguard.platform.oidc.SecurityTokenService.Exchange:scopes:at",
        "chainguard.platform.iam.v2.RolesService.UpdateRole:update_mask:over",
    ):
        assert expected in ids


def test_every_capped_field_at_and_past_its_cap(large: Server) -> None:
    problems: list[str] = []
    http_cases = 0
    for case in CASES:
        field, cap = case.shown(), _cap(case.path[-1])
        answer = _http(case, large.http, large.owner_org)
        if answer is not None:
            http_cases += 1
            status, body = answer
            violations = [(v["field"], v["description"]) for d in body.get("details", [])
                          if d.get("@type", "").endswith("BadRequest") for v in d["fieldViolations"]]  # fmt: skip
            problems += _judge(case, "HTTP", f"{status} {body.get('code')}", status >= 500 and not (
                status == 501 and body.get("code") == 12), status == 400 and body.get("code") == 3, violations,
                field, cap)  # fmt: skip
        code, st = _grpc(case, large.channel, large.owner_org)
        problems += _judge(case, "gRPC", code.name, code in SERVER_ERRORS, code == grpc.StatusCode.INVALID_ARGUMENT,
                           _violations(st), field, cap)  # fmt: skip
    assert http_cases > len(CASES) // 2
    assert not problems, "\n".join(problems)


def _judge(
    case: Case, transport: str, answer: str, server_error: bool, invalid: bool, violations: list[tuple[str, str]],
    field: str, cap: int,
) -> list[str]:  # fmt: skip
    where = f"[{transport}] {case.id}: {answer} {violations}"
    if server_error:
        return [f"{where}: a server error"]
    over_count = [v for v in violations if OVER in v[1]]
    if not case.over:
        return [f"{where}: refused a count at the cap"] if over_count else []
    if not invalid or over_count[:1] != [(field, f"{field} takes at most {cap} {_unit(case)}, got {cap + 1}")]:
        return [f"{where}: expected INVALID_ARGUMENT naming {field}"]
    return []


def _unit(case: Case) -> str:
    last = case.path[-1]
    return "entries" if _is_map(last) else "values" if last.is_repeated else "paths"
