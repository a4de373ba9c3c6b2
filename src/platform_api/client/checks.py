"""The typed values of a request checked before it is sent: a Duration, a Timestamp or an enum the API cannot
take is errors.InvalidArgument naming the field and the forms it takes, on both transports alike. Without
this, gRPC's protobuf encoding raised its own ParseError and an unknown enum name failed the records' Literal
check with a TypeError, while HTTP/JSON answered the server's INVALID_ARGUMENT."""

from __future__ import annotations

import difflib
from typing import Any

import msgspec
from google.protobuf import duration_pb2, json_format, timestamp_pb2
from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor

from platform_api.client import errors

DURATION_FORMS = 'give seconds with an "s": "3600s" (one hour), "604800s" (7 days), "1.5s"'
TIMESTAMP_FORMS = 'give an RFC 3339 time with its offset: "2026-01-02T15:04:05Z", "2026-01-02T17:04:05+02:00"'
MAX_LISTED = 20  # enum names listed in full; beyond, the nearest ones
_BAD_REQUEST = "type.googleapis.com/google.rpc.BadRequest"


def invalid(field: str, description: str) -> errors.InvalidArgument:
    """The client's own INVALID_ARGUMENT, shaped as the server's (a BadRequest field violation); never sent."""
    detail = {"@type": _BAD_REQUEST, "fieldViolations": [{"field": field, "description": description}]}
    error = errors.InvalidArgument(f"{field}: {description}", [detail])
    error.request_sent = False
    return error


def request(desc: Descriptor, record: Any) -> None:
    """Raise InvalidArgument for the first value of `record` (a request record or a dict in JSON names) its
    field cannot take."""
    data = record if isinstance(record, dict) else msgspec.to_builtins(record)
    _message(desc, data, "")


def _message(desc: Descriptor, data: Any, prefix: str) -> None:
    if not isinstance(data, dict):
        return  # a wrong shape is the records' own TypeError (client.build_request)
    by_json = {f.json_name: f for f in desc.fields}
    for key, value in data.items():
        f = by_json.get(key) or desc.fields_by_name.get(key)
        if f is None or value is None:
            continue
        path = f"{prefix}{f.name}"
        if f.message_type is not None and f.message_type.GetOptions().map_entry:
            value_field = f.message_type.fields_by_name["value"]
            for k, v in value.items() if isinstance(value, dict) else ():
                _value(value_field, v, f"{path}[{k}]")
        elif f.is_repeated and isinstance(value, list):
            for i, v in enumerate(value):
                _value(f, v, f"{path}[{i}]")
        else:
            _value(f, value, path)


def _value(f: FieldDescriptor, value: Any, path: str) -> None:
    if f.type == FieldDescriptor.TYPE_ENUM and isinstance(value, str):
        _enum(f.enum_type, value, path)
    elif f.type == FieldDescriptor.TYPE_MESSAGE:
        name = f.message_type.full_name
        if name == "google.protobuf.Duration":
            _well_known(duration_pb2.Duration(), value, path, "a duration", DURATION_FORMS)
        elif name == "google.protobuf.Timestamp":
            _well_known(timestamp_pb2.Timestamp(), value, path, "a time", TIMESTAMP_FORMS)
        else:
            _message(f.message_type, value, path + ".")


def _well_known(message: Any, value: Any, path: str, what: str, forms: str) -> None:
    if not isinstance(value, str):
        return  # a wrong type: the records' own TypeError (client.build_request)
    try:
        message.FromJsonString(value)
    except (ValueError, json_format.ParseError):
        raise invalid(path, f"{value!r} is not {what}: {forms}") from None


def _enum(e: EnumDescriptor, value: str, path: str) -> None:
    names = [str(v.name) for v in e.values]
    if value in names:
        return
    if len(names) <= MAX_LISTED:
        raise invalid(path, f"{value!r} is not a value of {e.name}: one of {', '.join(names)}")
    near = difflib.get_close_matches(value.upper(), names, n=5, cutoff=0.5)
    hint = f"; nearest: {', '.join(near)}" if near else ""
    raise invalid(path, f"{value!r} is not one of the {len(names)} values of {e.name}{hint}")
