"""The contract's fields this server leaves out, found in the descriptors, and refused wherever a request carries
one with a value: over HTTP and gRPC, on v1, v2 and v2beta1 (the rule itself, zero values accepted and ignored,
anything else INVALID_ARGUMENT naming the field, is core/fieldmask.py's).

Where they come from:
- v2 and v2beta1: our messages reserve each one as a pair of statements, `reserved N; reserved "name";`, in that
  order (proto/), so `pairs` can tell which number is which name (a descriptor keeps the two lists apart; it
  refuses lists of unequal length or a range, and tests/functional/contract/test_left_out_list.py checks every
  pair against the wire facts). Over gRPC such a field arrives as an unknown field of its message, at any depth
  of the request; over HTTP as a key the transcoder does not know (its proto name or its JSON name).
- v1: the v1 contract is declared whole, so the same fields are declared there, but nothing keeps them (the v1
  calls adapt the v2 implementations): a v1 message's field is left out when its v2 twin (the message of the same
  name in the `.v2` package of its domain, or the one V1_TWINS names) reserves that name.

A plan per request message says where such fields can be, built once from the descriptors like the caps plan
(api/caps.py); a message with none anywhere below it has an empty plan, which the transports skip.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from google.protobuf import descriptor_pb2, unknown_fields
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message

from platform_api.core import fieldmask

# v1 messages whose v2 twin has another name.
V1_TWINS = {"chainguard.platform.iam.AccountAssociations": "chainguard.platform.iam.v2.AccountAssociation"}
# Well-known types carried as JSON scalars: nothing left out can be inside them.
_OPAQUE = {
    "google.protobuf.Timestamp",
    "google.protobuf.Duration",
    "google.protobuf.FieldMask",
    "google.protobuf.Empty",
}


class ContractError(Exception):
    """Reserved statements of a message that do not pair a number with a name."""


def pairs(desc: Descriptor) -> list[tuple[int, str]]:
    """The (number, name) of each contract field message `desc` reserves, in source order."""
    proto = descriptor_pb2.DescriptorProto()
    desc.CopyToProto(proto)
    ranges, names = list(proto.reserved_range), list(proto.reserved_name)
    if len(ranges) != len(names) or any(r.end - r.start != 1 for r in ranges):
        raise ContractError(
            f'{desc.full_name}: reserve each left-out field as `reserved N; reserved "name";`, one pair per field'
        )
    return [(r.start, name) for r, name in zip(ranges, names, strict=True)]


def _v2_twin(desc: Descriptor) -> Descriptor | None:
    """The v2 message a v1 message adapts to (None for v2 and v2beta1 messages, and for v1 ones without), found
    in the pool of `desc`, so once every generated module is loaded (api/schema.py loads them first)."""
    package = desc.file.package
    last = package.rsplit(".", 1)[-1]
    if last.startswith("v") and last[1:2].isdigit() and last != "v1":
        return None
    v2_package = package.removesuffix(".v1") + ".v2"
    name = V1_TWINS.get(desc.full_name) or v2_package + desc.full_name.removeprefix(package)
    try:
        twin: Descriptor = desc.file.pool.FindMessageTypeByName(name)
    except KeyError:
        return None
    return twin


def declared_not_kept(desc: Descriptor) -> list[FieldDescriptor]:
    """The fields a v1 message declares that its v2 twin reserves, in the twin's order."""
    twin = _v2_twin(desc)
    if twin is None:
        return []
    return [desc.fields_by_name[name] for _, name in pairs(twin) if name in desc.fields_by_name]


@dataclass(frozen=True)
class Declared:
    """A declared field that is not kept (v1): any value but its zero is refused."""

    name: str
    keys: tuple[str, ...]  # its JSON keys: the JSON name, the proto name, protoc's lowerCamel
    kind: str  # "message", "member" (a message in a oneof: set is a value), "list" (and maps) or "scalar"
    zero_names: frozenset[str]  # an enum's zero value by name (v1's `UNKNOWN`)


@dataclass(frozen=True)
class Nested:
    """A message field (singular, repeated or a map's values) on the way to left-out fields."""

    name: str
    keys: tuple[str, ...]  # its JSON keys: the JSON name, then the proto name
    kind: str  # "message", "list" or "map"
    inner: Plan

    def messages(self, msg: Message) -> Iterator[tuple[str, Message]]:
        """(path prefix, message) of each message this field holds in the parsed `msg`."""
        if self.kind == "message":
            if msg.HasField(self.name):
                yield self.name + ".", getattr(msg, self.name)
            return
        values = getattr(msg, self.name)
        for key, item in values.items() if self.kind == "map" else enumerate(values):
            yield f"{self.name}[{key}].", item

    def objects(self, obj: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
        """The same in a JSON object, under either key; what is not an object (or a list of objects) here the
        transcoder refuses by name."""
        for key in self.keys:
            value = obj.get(key)
            if self.kind == "message":
                if isinstance(value, dict):
                    yield self.name + ".", value
                continue
            if self.kind == "map" and isinstance(value, dict):
                items: Iterable[tuple[Any, Any]] = value.items()
            elif self.kind == "list" and isinstance(value, list):
                items = enumerate(value)
            else:
                continue
            for k, item in items:
                if isinstance(item, dict):
                    yield f"{self.name}[{k}].", item


@dataclass
class Plan:
    """Where the left-out fields of one request message are: its reserved ones by number (gRPC) and by JSON key
    (HTTP: proto and JSON names), its declared ones (v1), and the message fields leading to more."""

    by_number: dict[int, str] = field(default_factory=dict)
    by_key: dict[str, str] = field(default_factory=dict)
    declared: tuple[Declared, ...] = ()
    nested: tuple[Nested, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.by_number or self.declared or self.nested)


NOTHING = Plan()


def _keys(fd: FieldDescriptor) -> tuple[str, ...]:
    return (fd.json_name,) if fd.json_name == fd.name else (fd.json_name, fd.name)


def _is_map(fd: FieldDescriptor) -> bool:
    return fd.type == FieldDescriptor.TYPE_MESSAGE and bool(fd.message_type.GetOptions().map_entry)


def _inner(fd: FieldDescriptor) -> Descriptor | None:
    """The message type a field holds (a map's value type), if anything left out can be inside it."""
    if fd.type != FieldDescriptor.TYPE_MESSAGE:
        return None
    if _is_map(fd):
        return _inner(fd.message_type.fields_by_name["value"])
    return None if fd.message_type.full_name in _OPAQUE else fd.message_type


def _in_oneof(fd: FieldDescriptor) -> bool:
    """A member of a real oneof (not proto3 `optional`'s synthetic one)."""
    oneof = fd.containing_oneof
    return oneof is not None and not (len(oneof.fields) == 1 and oneof.name == f"_{fd.name}")


def _declared(fd: FieldDescriptor) -> Declared:
    if fd.is_repeated:
        kind = "list"
    elif fd.type == FieldDescriptor.TYPE_MESSAGE:
        # Choosing a oneof's member says something even when it is empty (v1 Identity.aws_identity: an AWS login).
        kind = "member" if _in_oneof(fd) else "message"
    else:
        kind = "scalar"
    zero = frozenset({fd.enum_type.values_by_number[0].name}) if fd.type == FieldDescriptor.TYPE_ENUM else frozenset()
    keys = tuple(dict.fromkeys([*_keys(fd), fieldmask.camel(fd.name)]))
    return Declared(fd.name, keys, kind, zero)


def _own(d: Descriptor) -> Plan:
    """The left-out fields of message `d` itself."""
    reserved = pairs(d)
    return Plan(
        by_number=dict(reserved),
        by_key={key: name for _, name in reserved for key in (name, fieldmask.camel(name))},
        declared=tuple(_declared(fd) for fd in declared_not_kept(d)),
    )


def _kind(fd: FieldDescriptor) -> str:
    return "map" if _is_map(fd) else "list" if fd.is_repeated else "message"


@cache
def plan(desc: Descriptor) -> Plan:
    """The plan of request message `desc` (recursive messages included: a cycle shares its plans)."""
    messages: dict[str, Descriptor] = {}
    todo = [desc]
    while todo:  # every message reachable from `desc`
        d = todo.pop()
        if d.full_name not in messages:
            messages[d.full_name] = d
            todo += [inner for fd in d.fields if (inner := _inner(fd)) is not None]
    plans = {name: _own(d) for name, d in messages.items()}
    # A message leads to left-out fields if it has some or holds a message that does (a fixpoint, for cycles).
    live = {name for name, p in plans.items() if p}
    grew = True
    while grew:
        grew = False
        for name, d in messages.items():
            if name not in live and any(_inner_name(fd) in live for fd in d.fields):
                live.add(name)
                grew = True
    for name, d in messages.items():
        checked_whole = {fd.name for fd in declared_not_kept(d)}
        plans[name].nested = tuple(
            Nested(fd.name, _keys(fd), _kind(fd), plans[_inner_name(fd)])
            for fd in d.fields
            if fd.name not in checked_whole and _inner_name(fd) in live
        )
    return plans[desc.full_name] if desc.full_name in live else NOTHING


def _inner_name(fd: FieldDescriptor) -> str:
    inner = _inner(fd)
    return "" if inner is None else str(inner.full_name)


# ---------------------------------------------------------------------------------------------------- checks


class _Found(Exception):
    """A left-out field with a value, named in its own message; the names of the fields holding that message are
    put before it on the way out, so that a request without one builds no path text."""

    def __init__(self, path: str) -> None:
        self.path = path

    def under(self, prefix: str) -> _Found:
        self.path = prefix + self.path
        return self


def check_message(p: Plan, msg: Message) -> None:
    """INVALID_ARGUMENT for the first left-out field the parsed gRPC request `msg` carries with a value."""
    _check(p, msg, _message_fields, Nested.messages)


def check_json(p: Plan, obj: dict[str, Any]) -> None:
    """The same for a request as JSON, as the client sent it (both key spellings; before transcoding, which
    drops unknown keys)."""
    _check(p, obj, _object_keys, Nested.objects)


def _check(p: Plan, request: Any, own: Callable[[Plan, Any], None], inside: Callable[[Nested, Any], Any]) -> None:
    try:
        _walk(p, request, own, inside)
    except _Found as found:
        raise fieldmask.not_kept(found.path) from None


def _walk(p: Plan, value: Any, own: Callable[[Plan, Any], None], inside: Callable[[Nested, Any], Any]) -> None:
    """`own` checks the fields of one message, `inside` finds the messages a nested field holds."""
    own(p, value)
    for n in p.nested:
        for prefix, inner in inside(n, value):
            try:
                _walk(n.inner, inner, own, inside)
            except _Found as found:
                raise found.under(prefix) from None


def _message_fields(p: Plan, msg: Message) -> None:
    if p.by_number:
        for unknown in unknown_fields.UnknownFieldSet(msg):
            name = p.by_number.get(unknown.field_number)
            if name is not None and not fieldmask.zero_wire(unknown.wire_type, unknown.data):
                raise _Found(name)
    for d in p.declared:
        if d.kind == "member":
            zero = not msg.HasField(d.name)
        elif d.kind == "message":
            zero = not msg.HasField(d.name) or getattr(msg, d.name).ByteSize() == 0
        else:
            zero = not getattr(msg, d.name)  # an empty list or map, or a scalar's (or enum's) zero
        if not zero:
            raise _Found(d.name)


def _object_keys(p: Plan, obj: dict[str, Any]) -> None:
    if p.by_key:
        for key, value in obj.items():
            name = p.by_key.get(key)
            if name is not None and not fieldmask.zero_json(value):
                raise _Found(name)
    for d in p.declared:
        for key in d.keys:
            value = obj.get(key)
            if (value is not None) if d.kind == "member" else not fieldmask.zero_json(value, d.zero_names):
                raise _Found(d.name)


# -------------------------------------------------------------------------------------------------- the list


@dataclass(frozen=True)
class LeftOut:
    """The fields one v2 message leaves out (its v2beta1 copy too), and the v1 messages that declare them."""

    message: str  # full name of the v2 message, e.g. chainguard.platform.iam.v2.Group
    fields: tuple[str, ...]  # proto names, in the order of its reserved pairs
    v1: tuple[str, ...]  # full names of the v1 messages whose twin it is


def catalogue(messages: Iterable[Descriptor]) -> list[LeftOut]:
    """Every message's left-out fields, once for all versions, by v2 message name."""
    every = list(messages)
    v1: dict[str, list[str]] = {}
    for d in every:
        twin = _v2_twin(d)
        if twin is not None and declared_not_kept(d):
            v1.setdefault(twin.full_name, []).append(d.full_name)
    reserving = sorted((d.full_name, pairs(d)) for d in every if ".v2beta1." not in d.full_name and pairs(d))
    return [LeftOut(name, tuple(n for _, n in found), tuple(sorted(v1.get(name, ())))) for name, found in reserving]


_README_WIDTH = 116


def readme_list(entries: list[LeftOut]) -> str:
    """The list docs/reference/wire-contract.md shows, one line per message."""
    lines = []
    for e in entries:
        simple = e.message.rsplit(".", 1)[-1]
        v1 = [n.rsplit(".", 1)[-1] for n in e.v1]
        versions = ", ".join([*(("v1" if n == simple else f"v1 `{n}`") for n in v1), "v2", "v2beta1"])
        line = f"  - `{simple}` ({versions}): " + ", ".join(f"`{f}`" for f in e.fields)
        lines.append(textwrap.fill(line, _README_WIDTH, subsequent_indent="    ", break_long_words=False))
    return "\n".join(lines) + "\n"
