"""Typed flag values (`--ttl 1h`, `--state delivered`, `--capabilities repo.list`), checked and converted while
the command line is parsed, so a wrong one is a usage error (exit 2) naming the flag and the forms it takes,
before any call. The type is the contract's: the descriptor of the request field the flag sets, so a flag
added to specs.py is checked by its field's type without a word more (a Duration, a Timestamp, an enum, a
number, a bool; a string is passed as given and judged by the server).

Durations: a number with a unit, d h m s, or several (`1h30m`), or plain seconds (`3600`); the API's form
is seconds (`5400s`). Timestamps: RFC 3339 (`2026-01-02T03:04:05Z`, any offset) or a date (midnight UTC).
Enums: the value's name, with or without its prefix (`DELIVERED`, `STATE_DELIVERED`), in any case, `.` and
`-` standing for `_` (`repo.list` for `CAP_REPO_LIST`)."""

from __future__ import annotations

import argparse
import difflib
import math
from collections.abc import Callable
from datetime import UTC, date, datetime
from typing import Any

from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor

from platform_api.client import contract

DURATION_FORMS = "give a number with a unit, d h m or s (30m, 1h, 7d, 1h30m, 3600s), or plain seconds (3600)"
TIMESTAMP_FORMS = "give an RFC 3339 time (2026-01-02T15:04:05Z, or with an offset: +02:00) or a date (2026-01-02)"
MAX_LISTED = 20  # enum values listed in full in an error; beyond, the nearest names and where to see all
_UNITS = {"d": 86400, "h": 3600, "m": 60, "s": 1}
MAX_DURATION_SECONDS = 315_576_000_000  # protobuf Duration's range (10,000 years)
_INT_RANGES = {
    FieldDescriptor.TYPE_INT32: (-(2**31), 2**31 - 1), FieldDescriptor.TYPE_SINT32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_SFIXED32: (-(2**31), 2**31 - 1), FieldDescriptor.TYPE_UINT32: (0, 2**32 - 1),
    FieldDescriptor.TYPE_FIXED32: (0, 2**32 - 1), FieldDescriptor.TYPE_INT64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_SINT64: (-(2**63), 2**63 - 1), FieldDescriptor.TYPE_SFIXED64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_UINT64: (0, 2**64 - 1), FieldDescriptor.TYPE_FIXED64: (0, 2**64 - 1),
}  # fmt: skip
_64 = {FieldDescriptor.TYPE_INT64, FieldDescriptor.TYPE_SINT64, FieldDescriptor.TYPE_SFIXED64,
       FieldDescriptor.TYPE_UINT64, FieldDescriptor.TYPE_FIXED64}  # fmt: skip
_TRUE, _FALSE = ("true", "yes", "on", "1"), ("false", "no", "off", "0")


class BadValue(ValueError):
    """A value the flag's field cannot take; the message says which forms it can."""


def duration(raw: str) -> str:
    """`1h30m` -> `5400s` (protojson's Duration)."""
    text = raw.strip().lower()
    parts = _duration_parts(text)
    if _number(text):
        seconds = float(text)
    elif parts is not None:
        units = [u for _, u in parts]
        if len(set(units)) != len(units):
            raise BadValue(f"{raw!r} is not a duration (a unit given twice): {DURATION_FORMS}")
        seconds = sum(float(n) * _UNITS[u] for n, u in parts)
    else:
        raise BadValue(f"{raw!r} is not a duration: {DURATION_FORMS}")
    if not math.isfinite(seconds) or seconds > MAX_DURATION_SECONDS:
        raise BadValue(f"{raw!r} is too long a duration (at most 10,000 years)")
    whole = int(seconds)
    nanos = round((seconds - whole) * 1e9)
    return f"{whole}s" if not nanos else f"{whole}.{nanos:09d}".rstrip("0") + "s"


def _number(text: str) -> bool:
    """Digits, with one decimal point inside them at most (ASCII: no regular expression, and `ctl` is below
    `core`, where the RE2 patterns are)."""
    pieces = text.split(".")
    return len(pieces) <= 2 and all(p and p.isascii() and p.isdigit() for p in pieces)


def _duration_parts(text: str) -> list[tuple[str, str]] | None:
    """`1h30m` -> [("1", "h"), ("30", "m")]; None unless `text` is numbers each followed by a unit."""
    parts, start = [], 0
    for i, c in enumerate(text):
        if c in _UNITS:
            parts.append((text[start:i], c))
            start = i + 1
    if not parts or start != len(text) or not all(_number(n) for n, _ in parts):
        return None
    return parts


def _digits_at(text: str, layout: str) -> bool:
    """Whether `text` has `layout`'s shape: `9` a digit, any other character itself."""
    return len(text) == len(layout) and all(
        (c.isascii() and c.isdigit()) if want == "9" else c == want for c, want in zip(text, layout, strict=True)
    )


def _time_fraction(text: str) -> str | None:
    """The fraction (`.123`, or '') of an RFC 3339 time `YYYY-MM-DD[T ]HH:MM:SS[.frac](Z|+HH:MM)`; None if it is
    not one."""
    if len(text) < 20 or not _digits_at(text[:10], "9999-99-99") or text[10] not in "Tt ":
        return None
    if not _digits_at(text[11:19], "99:99:99"):
        return None
    rest, fraction = text[19:], ""
    if rest.startswith("."):
        digits = len(rest) - len(rest[1:].lstrip("0123456789")) - 1
        if not 1 <= digits <= 9:
            return None
        fraction, rest = rest[: digits + 1], rest[digits + 1 :]
    if rest in ("Z", "z") or (len(rest) == 6 and rest[0] in "+-" and _digits_at(rest[1:], "99:99")):
        return fraction
    return None


def timestamp(raw: str) -> str:
    """An RFC 3339 time or a date -> protojson's Timestamp (UTC, `Z`)."""
    text = raw.strip()
    try:
        if _digits_at(text, "9999-99-99"):
            when = datetime.combine(date.fromisoformat(text), datetime.min.time(), UTC)
        elif (fraction := _time_fraction(text)) is not None:
            # datetime takes at most microseconds: the fraction beyond is dropped.
            text = text.replace(fraction, fraction[:7], 1) if len(fraction) > 7 else text
            when = datetime.fromisoformat(text.replace("z", "Z").replace("Z", "+00:00")).astimezone(UTC)
        else:
            raise ValueError
    except (ValueError, OverflowError):
        raise BadValue(f"{raw!r} is not a time: {TIMESTAMP_FORMS}") from None
    fraction = f".{when.microsecond:06d}".rstrip("0") if when.microsecond else ""
    return when.strftime("%Y-%m-%dT%H:%M:%S") + fraction + "Z"


def enum_prefix(e: EnumDescriptor) -> str:
    """What the names of an enum's values share, up to an underscore: STATE_ for STATE_DELIVERED."""
    names = [str(v.name) for v in e.values if v.number != 0] or [str(v.name) for v in e.values]
    common = names[0]
    for n in names[1:]:
        while not n.startswith(common):
            common = common[:-1]
    return common[: common.rfind("_") + 1]


def enum_choices(e: EnumDescriptor) -> list[str]:
    """The names a person may give (the prefix left out): not the zero value, which means "not set"."""
    prefix = enum_prefix(e)
    return [v.name.removeprefix(prefix) for v in e.values if v.number != 0]


def enum(e: EnumDescriptor, raw: str) -> str:
    prefix = enum_prefix(e)
    names = {v.name for v in e.values if v.number != 0}
    key = "".join("_" if c in ".-" or c.isspace() else c for c in raw.strip()).upper()
    for candidate in (key, prefix + key):
        if candidate in names:
            return candidate
    choices = enum_choices(e)
    if len(choices) <= MAX_LISTED:
        raise BadValue(f"{raw!r} is not one of {', '.join(choices)} (any case; {prefix}... also)")
    near = difflib.get_close_matches(key.removeprefix(prefix), choices, n=5, cutoff=0.5)
    hint = f"; nearest: {', '.join(near)}" if near else ""
    raise BadValue(f"{raw!r} is not one of the {len(choices)} values of {e.name} (any case; {prefix}... also){hint}")


def integer(f: FieldDescriptor, raw: str) -> int | str:
    low, high = _INT_RANGES[f.type]
    try:
        n = int(raw.strip(), 10)
    except ValueError:
        raise BadValue(f"{raw!r} is not a whole number") from None
    if not low <= n <= high:
        raise BadValue(f"{raw!r} is out of range ({low} to {high})")
    return str(n) if f.type in _64 else n  # protojson writes 64-bit integers as strings


def boolean(raw: str) -> bool:
    text = raw.strip().lower()
    if text in _TRUE or text in _FALSE:
        return text in _TRUE
    raise BadValue(f"{raw!r} is not true or false (also: yes/no, on/off, 1/0)")


def number(raw: str) -> float:
    try:
        value = float(raw.strip())
    except ValueError:
        raise BadValue(f"{raw!r} is not a number") from None
    if not math.isfinite(value):
        raise BadValue(f"{raw!r} is not a finite number")
    return value


def convert(f: FieldDescriptor, raw: str) -> Any:
    """`raw` as the JSON value of field `f`, or BadValue."""
    if f.type == FieldDescriptor.TYPE_MESSAGE:
        name = f.message_type.full_name
        if name == "google.protobuf.Duration":
            return duration(raw)
        if name == "google.protobuf.Timestamp":
            return timestamp(raw)
        return raw
    if f.type == FieldDescriptor.TYPE_ENUM:
        return enum(f.enum_type, raw)
    if f.type in _INT_RANGES:
        return integer(f, raw)
    if f.type == FieldDescriptor.TYPE_BOOL:
        return boolean(raw)
    if f.type in (FieldDescriptor.TYPE_FLOAT, FieldDescriptor.TYPE_DOUBLE):
        return number(raw)
    return raw


def typed(f: FieldDescriptor) -> bool:
    """Whether `convert` checks values of this field (a string or a plain message is the server's to judge)."""
    if f.type == FieldDescriptor.TYPE_MESSAGE:
        return f.message_type.full_name in ("google.protobuf.Duration", "google.protobuf.Timestamp")
    return f.type not in (FieldDescriptor.TYPE_STRING, FieldDescriptor.TYPE_BYTES)


def field(area: str, method: str, resource: str, path: str) -> FieldDescriptor:
    """The field a flag sets: `path` (dotted JSON names) in the request's `resource` field (create, update),
    or, without `resource`, the request's own field of that proto name (ls filters)."""
    desc: Descriptor = contract.area_methods(area)[method].input
    if not resource:
        return desc.fields_by_name[path]
    desc = desc.fields_by_name[resource].message_type
    parts = path.split(".")
    for i, part in enumerate(parts):
        by_json = {fd.json_name: fd for fd in desc.fields}
        fd = by_json[part]
        if i == len(parts) - 1:
            return fd
        desc = fd.message_type
    raise KeyError(path)


def enum_prefixes(area: str, method: str, paths: list[str]) -> dict[str, str]:
    """Of the paths (dotted JSON names) into `method`'s answer, those of enum fields, each with the prefix its
    values' names share: a table shows `DELIVERED` for `STATE_DELIVERED`, as `--state` takes it."""
    out: dict[str, str] = {}
    for path in paths:
        desc: Descriptor | None = contract.area_methods(area)[method].output
        fd: FieldDescriptor | None = None
        for part in path.split("."):
            fd = {f.json_name: f for f in desc.fields}.get(part) if desc is not None else None
            if fd is None:
                break
            desc = fd.message_type
        if fd is not None and fd.type == FieldDescriptor.TYPE_ENUM:
            out[path] = enum_prefix(fd.enum_type)
    return out


def parser_type(find: Callable[[], FieldDescriptor], *, split: bool = False) -> Callable[[str], Any]:
    """An argparse `type=`: the value converted for the field `find()` names (found when a value is given,
    not when the parser is built), comma-separated values each when `split`. argparse turns the BadValue
    (a ValueError subclass would read "invalid ... value") into the usage error, so: ArgumentTypeError."""

    def convert_one(raw: str) -> Any:
        f = find()
        try:
            if split:
                items = [convert(f, item) for item in raw.split(",") if item.strip()]
                return items or [convert(f, raw.strip())]  # none given: refused as an empty value would be
            return convert(f, raw)
        except BadValue as e:
            raise argparse.ArgumentTypeError(str(e)) from None

    convert_one.__name__ = "value"
    return convert_one


def count(raw: str) -> int:
    """`--limit`, `--page-size`: a whole number from 0 (a page size is an int32 of the API)."""
    try:
        n = int(raw.strip(), 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{raw!r} is not a whole number") from None
    if not 0 <= n <= 2**31 - 1:
        raise argparse.ArgumentTypeError(f"{raw!r} is out of range (0 to {2**31 - 1})")
    return n
