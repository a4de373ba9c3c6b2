"""Partial update with a field mask (AIP-134), for every updatable resource.

The transports always hand the implementation a mask: the one the caller gave, or, when absent, the
paths of the keys present in the body. `*` replaces every updatable field. Paths name proto fields
(snake_case; the camelCase JSON spelling is accepted too); a path that names no field of the resource
is INVALID_ARGUMENT; output-only fields are ignored.

Fields of the contract that this server leaves out (reserved in our messages, listed in a record's NOT_KEPT;
v1 declares them but keeps nothing either) follow one rule, whatever the version and the transport: a
request may carry one only with its zero value, which equals what is stored (nothing), so a mask naming
it is a no-op; a non-zero value is INVALID_ARGUMENT naming it (`not_kept`). The transports refuse the
non-zero values before the request is built (api/omitted.py, by `zero_json` and `zero_wire`), so a mask
path that reaches `parse` names a field whose value was zero.
"""

from __future__ import annotations

from typing import Any, TypeVar

import msgspec

from platform_api.core import errors

R = TypeVar("R", bound=msgspec.Struct)


# Record type -> its fields by name: msgspec.structs.fields evaluates the annotations on every call (~0.25 ms).
_FIELDS: dict[type, dict[str, msgspec.structs.FieldInfo]] = {}


def _fields(t: type) -> dict[str, msgspec.structs.FieldInfo]:
    found = _FIELDS.get(t)
    if found is None:
        found = _FIELDS[t] = {f.name: f for f in msgspec.structs.fields(t)}
    return found


def _field_names(t: type) -> dict[str, str]:
    """Accepted spelling -> attribute name, for a record type."""
    out: dict[str, str] = {}
    for f in _fields(t).values():
        out[f.name] = f.name
        out[f.encode_name] = f.name
    return out


def _field_type(t: type, name: str) -> Any:
    f = _fields(t).get(name)
    return None if f is None else f.type


def _struct_type(tp: Any) -> type | None:
    """The record type inside `X | None`, if the field is a message."""
    for arg in getattr(tp, "__args__", (tp,)):
        if isinstance(arg, type) and issubclass(arg, msgspec.Struct):
            return arg
    return None


def camel(name: str) -> str:
    """protoc's default JSON name of a proto field name (`resource_limits` -> `resourceLimits`)."""
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def not_kept(path: str) -> errors.ApiError:
    """The error for a non-zero value of a field this server leaves out, `path` its place in the request."""
    return errors.invalid_argument(path, f"this server does not keep {path.rsplit('.', 1)[-1]}")


# Enum values sent by name: the zero value of every enum of the contract's v2 packages is `<ENUM>_UNSPECIFIED`.
_UNSPECIFIED = "_UNSPECIFIED"


def zero_json(value: Any, zero_names: frozenset[str] = frozenset()) -> bool:
    """Whether a JSON value is a zero value: null, false, 0, "", [], {}, an enum's `*_UNSPECIFIED` name, or one
    of `zero_names` (a declared enum's zero name, e.g. v1's `UNKNOWN`). Anything else is a value to keep."""
    if value is None or value is False or value == "" or value == [] or value == {}:
        return True
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value == 0
    return isinstance(value, str) and (value.endswith(_UNSPECIFIED) or value in zero_names)


def zero_wire(wire_type: int, data: Any) -> bool:
    """Whether a protobuf field read as an unknown field holds a zero value: varint or fixed-width 0, or an
    empty length-delimited value (a message with nothing set, an empty string)."""
    if wire_type == 2:
        return bool(data == b"")
    if wire_type == 3:  # a group: its unknown fields
        return len(data) == 0
    return bool(data == 0)


# Record type -> the spellings (proto and JSON name) of the fields it leaves out (generated: `NOT_KEPT`).
_NOT_KEPT: dict[type, frozenset[str]] = {}


def _not_kept_names(t: type) -> frozenset[str]:
    found = _NOT_KEPT.get(t)
    if found is None:
        names: tuple[str, ...] = getattr(t, "NOT_KEPT", ())
        found = _NOT_KEPT[t] = frozenset(names) | {camel(n) for n in names}
    return found


def parse(mask: str | None, record_type: type) -> list[list[str]] | None:
    """Normalized paths as attribute-name lists, or None for '*' (replace everything updatable). A path naming
    a field this server leaves out is a no-op (its value was zero: see the module's docstring)."""
    paths: list[list[str]] = []
    for raw in (mask or "").split(","):
        raw = raw.strip()
        if not raw:
            continue
        if raw == "*":
            return None
        attrs = _attrs(raw, record_type)
        if attrs is not None:
            paths.append(attrs)
    return paths


def _attrs(raw: str, record_type: type) -> list[str] | None:
    """The attribute names along one mask path; None when its last part names a field left out."""
    t: type | None = record_type
    attrs: list[str] = []
    parts = raw.split(".")
    for i, part in enumerate(parts):
        names = _field_names(t) if t is not None else {}
        if part in names:
            attrs.append(names[part])
            t = _struct_type(_field_type(t, names[part])) if t is not None else None
        elif t is not None and i == len(parts) - 1 and part in _not_kept_names(t):
            return None
        else:
            raise errors.invalid_argument("update_mask", f"unknown field {raw!r} in update_mask")
    return attrs


def apply(current: R, patch: R, mask: str | None, updatable: frozenset[str]) -> R:
    """`current` with the masked, updatable fields taken from `patch`."""
    paths = parse(mask, type(current))
    if paths is None:
        paths = [[name] for name in sorted(updatable)]
    result = current
    for attrs in paths:
        if attrs[0] not in updatable:
            continue  # output-only or immutable: ignored, as for fields of the body outside the mask
        result = _set(result, patch, attrs)
    return result


def _default(t: type, name: str) -> Any:
    f = _fields(t)[name]
    return f.default_factory() if f.default is msgspec.NODEFAULT else f.default


def _set(target: Any, source: Any, attrs: list[str]) -> Any:
    name = attrs[0]
    # A nested message absent from the patch means its fields are cleared.
    value = getattr(source, name) if source is not None else _default(type(target), name)
    if len(attrs) == 1:
        return msgspec.structs.replace(target, **{name: value})
    inner = getattr(target, name)
    if inner is None:
        inner_type = _struct_type(_field_type(type(target), name))
        if inner_type is None:
            return target
        inner = inner_type()
    return msgspec.structs.replace(target, **{name: _set(inner, value, attrs[1:])})
