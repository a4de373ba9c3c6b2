"""Request transcoding (grpc-gateway semantics), driven by the message descriptors.

JSON bodies, query parameters and path variables become one canonical dict keyed by JSON names,
which msgspec then converts into the request record:
- keys are accepted as the JSON name (camelCase) or the proto name (snake_case); unknown keys and
  unknown query parameters are ignored; `null` means "not set";
- int64 accepts numbers or decimal strings and becomes a string; enums accept names or numbers and
  become names; Timestamps are normalized to RFC 3339 UTC with milliseconds;
- a wrong type or value is INVALID_ARGUMENT naming the field; so is a NUL character in any string (PostgreSQL
  text cannot hold it, SQLite can: refused here, for both transports, the backends answer alike).
The same normalization serves gRPC requests (after MessageToDict), so both transports agree.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from functools import cache
from typing import Any

import msgspec
from google.protobuf.descriptor import Descriptor, FieldDescriptor

from platform_api.core import clock, errors, patterns
from platform_api.core.patterns import Pattern

FD = FieldDescriptor
_INT32 = {FD.TYPE_INT32, FD.TYPE_SINT32, FD.TYPE_SFIXED32, FD.TYPE_UINT32, FD.TYPE_FIXED32}
_INT64 = {FD.TYPE_INT64, FD.TYPE_SINT64, FD.TYPE_SFIXED64, FD.TYPE_UINT64, FD.TYPE_FIXED64}
_UNSIGNED = {FD.TYPE_UINT32, FD.TYPE_FIXED32, FD.TYPE_UINT64, FD.TYPE_FIXED64}
_URLSAFE = str.maketrans("-_", "+/")
_DURATION = Pattern(r"-?[0-9]+(\.[0-9]{1,9})?s")


def _int_text(v: str) -> bool:
    """-?[0-9]+ (ASCII digits: `int()` would also read other scripts' digits)"""
    return patterns.digits(v.removeprefix("-"))


_WKT_STRING = {"google.protobuf.Timestamp", "google.protobuf.Duration", "google.protobuf.FieldMask"}


@dataclass(frozen=True)
class Field:
    fd: FieldDescriptor
    json: str
    proto: str
    kind: str  # string bytes bool int32 int64 float enum message timestamp duration fieldmask empty
    repeated: bool
    map_value: Field | None  # for map fields: how values convert
    message: Descriptor | None


def _kind(fd: FieldDescriptor) -> str:
    t = fd.type
    if t == FD.TYPE_MESSAGE:
        name = fd.message_type.full_name
        return {
            "google.protobuf.Timestamp": "timestamp",
            "google.protobuf.Duration": "duration",
            "google.protobuf.FieldMask": "fieldmask",
            "google.protobuf.Empty": "empty",
        }.get(name, "message")
    if t == FD.TYPE_ENUM:
        return "enum"
    if t == FD.TYPE_BOOL:
        return "bool"
    if t in _INT32:
        return "int32"
    if t in _INT64:
        return "int64"
    if t in (FD.TYPE_DOUBLE, FD.TYPE_FLOAT):
        return "float"
    if t == FD.TYPE_BYTES:
        return "bytes"
    return "string"


def _field(fd: FieldDescriptor) -> Field:
    is_map = fd.type == FD.TYPE_MESSAGE and fd.message_type.GetOptions().map_entry
    map_value = _field(fd.message_type.fields_by_name["value"]) if is_map else None
    msg = fd.message_type if fd.type == FD.TYPE_MESSAGE and not is_map else None
    return Field(
        fd=fd,
        json=fd.json_name,
        proto=fd.name,
        kind="map" if is_map else _kind(fd),
        repeated=fd.is_repeated and not is_map,
        map_value=map_value,
        message=msg,
    )


@cache
def fields_of(desc: Descriptor) -> dict[str, Field]:
    """Accepted key (JSON or proto name) -> field."""
    out: dict[str, Field] = {}
    for fd in desc.fields:
        f = _field(fd)
        out[f.json] = f
        out[f.proto] = f
    return out


def _bad(path: str, what: str) -> errors.ApiError:
    return errors.invalid_argument(path, what)


def text(v: str, path: str) -> str:
    """A string input as given, unless it holds a NUL character."""
    if "\x00" in v:
        raise _bad(path, "must not contain NUL characters")
    return v


def _scalar(f: Field, v: Any, path: str, *, from_text: bool = False) -> Any:
    """Convert one JSON (or query-string) value of field f to its canonical JSON form."""
    k = f.kind
    if k == "string":
        if not isinstance(v, str):
            raise _bad(path, "must be a string")
        return text(v, path)
    if k == "bool":
        if from_text and isinstance(v, str) and v.lower() in ("true", "false", "1", "0"):
            return v.lower() in ("true", "1")
        if not isinstance(v, bool):
            raise _bad(path, "must be a boolean")
        return v
    if k in ("int32", "int64"):
        if isinstance(v, bool):
            raise _bad(path, "must be an integer")
        if isinstance(v, float) and v.is_integer():
            v = int(v)
        if isinstance(v, str) and _int_text(v.strip()):
            v = int(v.strip())
        if not isinstance(v, int):
            raise _bad(path, "must be an integer")
        bits = 32 if k == "int32" else 64
        unsigned = f.fd.type in _UNSIGNED
        lo, hi = (0, 2**bits - 1) if unsigned else (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)
        if not lo <= v <= hi:
            raise _bad(path, f"integer out of range for a {'u' if unsigned else ''}int{bits}")
        return v if k == "int32" else str(v)
    if k == "float":
        if isinstance(v, str):
            try:
                v = float(v)
            except ValueError:
                raise _bad(path, "must be a number") from None
        if isinstance(v, bool) or not isinstance(v, int | float):
            raise _bad(path, "must be a number")
        return float(v)
    if k == "enum":
        et = f.fd.enum_type
        if isinstance(v, str) and v in et.values_by_name:
            return v
        if isinstance(v, str) and _int_text(v):
            v = int(v)
        if isinstance(v, int) and not isinstance(v, bool) and v in et.values_by_number:
            return et.values_by_number[v].name
        raise _bad(path, f"must be one of {', '.join(et.values_by_name)}")
    if k == "bytes":
        if not isinstance(v, str):
            raise _bad(path, "must be a base64 string")
        try:
            # Standard or URL-safe alphabet, padding optional (as protobuf's JSON mapping accepts); any
            # other character is an error, not silently dropped.
            base64.b64decode((v + "=" * (-len(v) % 4)).translate(_URLSAFE), validate=True)
        except (binascii.Error, ValueError):
            raise _bad(path, "must be a base64 string") from None
        return v
    if k == "timestamp":
        if not isinstance(v, str):
            raise _bad(path, "must be an RFC 3339 timestamp string")
        try:
            return clock.parse(v)
        except ValueError:
            raise _bad(path, "must be an RFC 3339 timestamp, e.g. 2026-01-28T12:54:21.189Z") from None
    if k == "duration":
        if not isinstance(v, str) or not _DURATION.fullmatch(v):
            raise _bad(path, 'must be a duration string of seconds, e.g. "3600s"')
        return v
    if k == "fieldmask":
        if isinstance(v, list) and all(isinstance(p, str) for p in v):
            return ",".join(v)
        if not isinstance(v, str):
            raise _bad(path, "must be a comma-separated string of field paths")
        return text(v, path)
    if k == "empty":
        if not isinstance(v, dict):
            raise _bad(path, "must be an object")
        return {}
    raise _bad(path, "unsupported value")


def _value(f: Field, v: Any, path: str) -> Any:
    if f.kind == "message":
        assert f.message is not None
        if not isinstance(v, dict):
            raise _bad(path, "must be an object")
        return normalize(f.message, v, path + ".")
    if f.kind == "map":
        if not isinstance(v, dict):
            raise _bad(path, "must be an object")
        assert f.map_value is not None
        return {
            text(str(key), path): _value(f.map_value, item, f"{path}[{key}]")
            for key, item in v.items()
            if item is not None
        }
    return _scalar(f, v, path)


def normalize(desc: Descriptor, obj: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """A JSON object for message `desc` -> canonical dict (JSON names, canonical values)."""
    fields = fields_of(desc)
    out: dict[str, Any] = {}
    for key, v in obj.items():
        f = fields.get(key)
        if f is None or v is None:
            continue  # unknown fields are ignored; null is "not set"
        path = prefix + f.proto
        if f.repeated:
            if not isinstance(v, list):
                raise _bad(path, "must be an array")
            out[f.json] = [_value(f, item, f"{path}[{i}]") for i, item in enumerate(v)]
        else:
            out[f.json] = _value(f, v, path)
    return out


def body_paths(desc: Descriptor, obj: dict[str, Any], prefix: str = "") -> list[str]:
    """Field-mask paths (proto names) of the keys present in a JSON body; maps and lists are leaves."""
    fields = fields_of(desc)
    out: list[str] = []
    for key, v in obj.items():
        f = fields.get(key)
        if f is None:
            continue
        path = prefix + f.proto
        if f.kind == "message" and not f.repeated and isinstance(v, dict) and v and f.message is not None:
            out.extend(body_paths(f.message, v, path + "."))
        else:
            out.append(path)
    return out


def infer_mask(desc: Descriptor, resource_field: str, data: dict[str, Any], sent: dict[str, Any]) -> bool:
    """An Update sent without `update_mask` changes the fields it sent: sets the mask in `data` (canonical
    JSON of the request `desc`) to the paths present in `sent`, the resource as the client sent it (REST:
    the body; gRPC: the message's resource field). Both transports call this; True when it inferred."""
    by_name = fields_of(desc)
    mask_field = by_name["update_mask"].json
    resource = by_name[resource_field].message
    if data.get(mask_field) or resource is None:
        return False
    data[mask_field] = ",".join(body_paths(resource, sent))
    return True


def set_path(desc: Descriptor, target: dict[str, Any], dotted: str, value: str, *, query: bool) -> None:
    """Set a (possibly nested) field from text: a query parameter or a path variable.

    Unknown query parameters are ignored; repeated fields accumulate repeated keys.
    """
    parts = dotted.split(".")
    d, cur = desc, target
    for i, part in enumerate(parts):
        f = fields_of(d).get(part)
        if f is None:
            return
        if i < len(parts) - 1:
            if f.kind != "message" or f.repeated or f.message is None:
                return
            nxt = cur.get(f.json)
            if not isinstance(nxt, dict):
                nxt = cur[f.json] = {}
            d, cur = f.message, nxt
            continue
        if f.kind in ("message", "map", "empty"):
            return  # not expressible as a query string
        converted = _scalar(f, value, dotted if query else f.proto, from_text=True)
        if f.repeated:
            cur.setdefault(f.json, []).append(converted)
        else:
            cur[f.json] = converted


@cache
def plain_string_field(desc: Descriptor, name: str) -> str | None:
    """JSON name of a top-level singular string field (bound as-is from a path variable), else None."""
    f = fields_of(desc).get(name)
    return f.json if f is not None and f.kind == "string" and not f.repeated else None


def to_record(record_type: type, data: dict[str, Any]) -> Any:
    try:
        return msgspec.convert(data, record_type)
    except msgspec.ValidationError as e:
        text = str(e)
        field = text.rsplit("`$.", 1)[-1].rstrip("`") if "`$." in text else "body"
        raise errors.invalid_argument(field, text.split(" - at ")[0]) from None
