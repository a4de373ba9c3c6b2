"""Caps on repeated request fields: declared in the contract next to each field
(`[(platformapi.annotations.max_items) = N]`), planned once per request message, enforced by both transports
before any other work: gRPC on the parsed message (`len()` of a repeated field costs nothing), before
`MessageToDict`; HTTP on the canonical dict, before the record is built. One error for both:
INVALID_ARGUMENT whose BadRequest names the field path (`uidp.ids`, `image_refs[2].tags`).

A plan lists only the fields that lead to a cap, so a request without repeated fields costs one truth test.
"""

from __future__ import annotations

from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message

from platform_api.core import errors
from platform_api.gen.platformapi import annotations_pb2 as ours
from platform_api.service.methods import NO_CAPS, Capped, CapPlan

FIELD_MASK = "google.protobuf.FieldMask"
# Well-known types carried as JSON scalars: nothing repeated inside them reaches a request but the mask's paths.
_SCALAR_MESSAGES = {"google.protobuf.Timestamp", "google.protobuf.Duration", "google.protobuf.Empty"}
_UNITS = {"list": "values", "map": "entries", "mask": "paths"}


def declared(fd: FieldDescriptor) -> int:
    """The field's declared cap; 0 when it declares none."""
    return int(fd.GetOptions().Extensions[ours.max_items])


def is_map(fd: FieldDescriptor) -> bool:
    return fd.type == FieldDescriptor.TYPE_MESSAGE and bool(fd.message_type.GetOptions().map_entry)


def capped_fields(desc: Descriptor) -> list[tuple[FieldDescriptor, str]]:
    """(field, kind) of the fields of `desc` that take a cap: repeated ("list"), map ("map") and FieldMask
    ("mask") fields."""
    out: list[tuple[FieldDescriptor, str]] = []
    for fd in desc.fields:
        if is_map(fd):
            out.append((fd, "map"))
        elif fd.is_repeated:
            out.append((fd, "list"))
        elif fd.type == FieldDescriptor.TYPE_MESSAGE and fd.message_type.full_name == FIELD_MASK:
            out.append((fd, "mask"))
    return out


def _nested(fd: FieldDescriptor) -> Descriptor | None:
    """The message type whose values this field holds (a map's value type), if it may hold caps."""
    if fd.type != FieldDescriptor.TYPE_MESSAGE:
        return None
    if is_map(fd):
        return _nested(fd.message_type.fields_by_name["value"])
    name = fd.message_type.full_name
    return None if name in _SCALAR_MESSAGES or name == FIELD_MASK else fd.message_type


def plan(desc: Descriptor) -> CapPlan:
    """The plan of request message `desc` (recursive messages included: a cycle shares its plans)."""
    drafts: dict[str, tuple[CapPlan, list[tuple[FieldDescriptor, str]]]] = {}

    def draft(d: Descriptor) -> None:
        if d.full_name in drafts:
            return
        entries = capped_fields(d)
        capped = {fd.name for fd, _ in entries}
        entries += [(fd, "message") for fd in d.fields if fd.name not in capped and _nested(fd) is not None]
        drafts[d.full_name] = (CapPlan(), entries)
        for fd, _ in entries:
            inner = _nested(fd)
            if inner is not None:
                draft(inner)

    draft(desc)
    # A message leads to caps if it has a capped field or a message field leading to one (a fixpoint, for cycles).
    live = {name for name, (_, entries) in drafts.items() if any(kind != "message" for _, kind in entries)}
    grew = True
    while grew:
        grew = False
        for name, (_, entries) in drafts.items():
            if name not in live and any(_nested_name(fd) in live for fd, _ in entries):
                live.add(name)
                grew = True
    for target, entries in drafts.values():
        fields = []
        for fd, kind in entries:
            inner_name = _nested_name(fd)
            inner = drafts[inner_name][0] if inner_name in live else NO_CAPS
            if kind == "message" and inner is NO_CAPS:
                continue
            fields.append(Capped(fd.name, fd.json_name, kind, 0 if kind == "message" else declared(fd), inner))
        target.fields = tuple(fields)
    return drafts[desc.full_name][0] if desc.full_name in live else NO_CAPS


def _nested_name(fd: FieldDescriptor) -> str:
    inner = _nested(fd)
    return "" if inner is None else str(inner.full_name)


class _Over(Exception):
    """A field over its cap, raised with the field's name and completed with its parents' on the way out (so
    that a request within its caps builds no path text)."""

    def __init__(self, path: str, kind: str, limit: int, count: int) -> None:
        self.path, self.kind, self.limit, self.count = path, kind, limit, count

    def under(self, prefix: str) -> _Over:
        self.path = prefix + self.path
        return self

    def error(self) -> errors.ApiError:
        text = f"{self.path} takes at most {self.limit} {_UNITS[self.kind]}, got {self.count}"
        return errors.invalid_argument(self.path, text)


def check_message(p: CapPlan, msg: Message) -> None:
    """INVALID_ARGUMENT for the first field of the parsed gRPC message `msg` holding more than its cap."""
    try:
        _message(p, msg)
    except _Over as over:
        raise over.error() from None


def check_json(p: CapPlan, data: dict[str, Any]) -> None:
    """The same for a request as a canonical JSON dict (JSON names; a FieldMask as comma-separated text)."""
    try:
        _json(p, data)
    except _Over as over:
        raise over.error() from None


def _message(p: CapPlan, msg: Message) -> None:
    for c in p.fields:
        if c.kind == "message" or c.kind == "mask":
            if not msg.HasField(c.name):
                continue
            value = getattr(msg, c.name)
            if c.kind == "mask":
                if c.limit and len(value.paths) > c.limit:
                    raise _Over(c.name, c.kind, c.limit, len(value.paths))
                continue
            try:
                _message(c.inner, value)
            except _Over as over:
                raise over.under(c.name + ".") from None
            continue
        values = getattr(msg, c.name)
        if c.limit and len(values) > c.limit:
            raise _Over(c.name, c.kind, c.limit, len(values))
        if c.inner:
            for key, item in values.items() if c.kind == "map" else enumerate(values):
                try:
                    _message(c.inner, item)
                except _Over as over:
                    raise over.under(f"{c.name}[{key}].") from None


def _json(p: CapPlan, data: dict[str, Any]) -> None:
    for c in p.fields:
        value = data.get(c.json)
        if value is None:
            continue
        if c.kind == "message":
            if isinstance(value, dict):
                try:
                    _json(c.inner, value)
                except _Over as over:
                    raise over.under(c.name + ".") from None
            continue
        if c.kind == "mask":
            count = (value.count(",") + 1 if value else 0) if isinstance(value, str) else len(value)
        elif isinstance(value, list | dict):
            count = len(value)
        else:
            continue  # not a list or an object: the transcoder refuses it by name
        if c.limit and count > c.limit:
            raise _Over(c.name, c.kind, c.limit, count)
        if c.inner and isinstance(value, list | dict):
            for key, item in value.items() if isinstance(value, dict) else enumerate(value):
                if isinstance(item, dict):
                    try:
                        _json(c.inner, item)
                    except _Over as over:
                        raise over.under(f"{c.name}[{key}].") from None
