"""Request transcoding (api/transcode.py) in-process, on a message built here with every kind of field:
the canonical dict a JSON body, a query string or a path variable becomes, and the INVALID_ARGUMENT
naming the field for each kind of wrong value."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from google.protobuf import descriptor_pb2, descriptor_pool, duration_pb2, field_mask_pb2, timestamp_pb2
from google.protobuf.descriptor import Descriptor

from platform_api.api import transcode
from platform_api.core import errors

FDP = descriptor_pb2.FieldDescriptorProto


def _message() -> Descriptor:
    pool = descriptor_pool.DescriptorPool()
    for wkt in (timestamp_pb2, duration_pb2, field_mask_pb2):
        fdp = descriptor_pb2.FileDescriptorProto()
        wkt.DESCRIPTOR.CopyToProto(fdp)
        pool.Add(fdp)
    f = descriptor_pb2.FileDescriptorProto(
        name="transcode_test.proto", package="tt", syntax="proto3",
        dependency=["google/protobuf/timestamp.proto", "google/protobuf/duration.proto",
                    "google/protobuf/field_mask.proto"],
    )  # fmt: skip
    f.enum_type.add(name="State").value.extend(
        [descriptor_pb2.EnumValueDescriptorProto(name=n, number=i) for i, n in enumerate(["STATE_UNSPECIFIED", "ON"])]
    )
    inner = f.message_type.add(name="Inner")
    inner.field.add(
        name="display_name", number=1, type=FDP.TYPE_STRING, label=FDP.LABEL_OPTIONAL, json_name="displayName"
    )
    t = f.message_type.add(name="T")
    entry = t.nested_type.add(name="SizesEntry")
    entry.options.map_entry = True
    entry.field.add(name="key", number=1, type=FDP.TYPE_STRING, label=FDP.LABEL_OPTIONAL, json_name="key")
    entry.field.add(name="value", number=2, type=FDP.TYPE_INT64, label=FDP.LABEL_OPTIONAL, json_name="value")
    fields: list[tuple[str, int, str, int]] = [
        ("name", FDP.TYPE_STRING, "", FDP.LABEL_OPTIONAL),
        ("count", FDP.TYPE_INT64, "", FDP.LABEL_OPTIONAL),
        ("small", FDP.TYPE_UINT32, "", FDP.LABEL_OPTIONAL),
        ("on", FDP.TYPE_BOOL, "", FDP.LABEL_OPTIONAL),
        ("ratio", FDP.TYPE_DOUBLE, "", FDP.LABEL_OPTIONAL),
        ("blob", FDP.TYPE_BYTES, "", FDP.LABEL_OPTIONAL),
        ("state", FDP.TYPE_ENUM, ".tt.State", FDP.LABEL_OPTIONAL),
        ("at_time", FDP.TYPE_MESSAGE, ".google.protobuf.Timestamp", FDP.LABEL_OPTIONAL),
        ("ttl", FDP.TYPE_MESSAGE, ".google.protobuf.Duration", FDP.LABEL_OPTIONAL),
        ("update_mask", FDP.TYPE_MESSAGE, ".google.protobuf.FieldMask", FDP.LABEL_OPTIONAL),
        ("sizes", FDP.TYPE_MESSAGE, ".tt.T.SizesEntry", FDP.LABEL_REPEATED),
        ("tags", FDP.TYPE_STRING, "", FDP.LABEL_REPEATED),
        ("inner", FDP.TYPE_MESSAGE, ".tt.Inner", FDP.LABEL_OPTIONAL),
        ("items", FDP.TYPE_MESSAGE, ".tt.Inner", FDP.LABEL_REPEATED),
    ]
    for number, (name, type_, type_name, label) in enumerate(fields, start=1):
        json_name = name.split("_")[0] + "".join(p.title() for p in name.split("_")[1:])
        fd = t.field.add(name=name, number=number, type=type_, label=label, json_name=json_name)
        if type_name:
            fd.type_name = type_name
    pool.Add(f)
    return pool.FindMessageTypeByName("tt.T")


T = _message()


def bad(call: Any, *args: Any, **kwargs: Any) -> str:
    """The one field an INVALID_ARGUMENT names."""
    with pytest.raises(errors.ApiError) as info:
        call(*args, **kwargs)
    assert info.value.code == errors.INVALID_ARGUMENT, info.value.message
    [detail] = info.value.details
    [violation] = detail["fieldViolations"]
    return str(violation["field"])


def test_normalize_accepts_both_names_and_canonicalizes_values() -> None:
    body = {
        "name": "n", "count": "12", "small": 7.0, "on": True, "ratio": 2, "blob": "aGk", "state": 1,
        "at_time": "2026-01-28T13:54:21.189+01:00", "ttl": "1.5s", "updateMask": ["name", "inner.display_name"],
        "sizes": {"a": 3, "b": None}, "tags": ["x", "y"], "inner": {"display_name": "d"},
        "items": [{"displayName": "e"}], "unknown": {"ignored": True}, "inner_unknown": None,
    }  # fmt: skip
    assert transcode.normalize(T, body) == {
        "name": "n", "count": "12", "small": 7, "on": True, "ratio": 2.0, "blob": "aGk", "state": "ON",
        "atTime": "2026-01-28T12:54:21.189Z", "ttl": "1.5s", "updateMask": "name,inner.display_name",
        "sizes": {"a": "3"}, "tags": ["x", "y"], "inner": {"displayName": "d"}, "items": [{"displayName": "e"}],
    }  # fmt: skip
    assert transcode.normalize(T, {"name": None, "state": "STATE_UNSPECIFIED"}) == {"state": "STATE_UNSPECIFIED"}


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"name": 5}, "name"),
        ({"name": "a\x00b"}, "name"),
        ({"count": "12x"}, "count"),
        ({"count": True}, "count"),
        ({"count": 2**63}, "count"),
        ({"small": -1}, "small"),
        ({"small": 2**32}, "small"),
        ({"on": "true"}, "on"),
        ({"ratio": "lots"}, "ratio"),
        ({"blob": "abcde"}, "blob"),
        ({"blob": "***"}, "blob"),
        ({"blob": "aGk*"}, "blob"),
        ({"state": "OFF"}, "state"),
        ({"state": 9}, "state"),
        ({"at_time": "2026-01-28T12:54:21"}, "at_time"),
        ({"ttl": "1h"}, "ttl"),
        ({"update_mask": 3}, "update_mask"),
        ({"sizes": {"a": "x"}}, "sizes[a]"),
        ({"sizes": ["a"]}, "sizes"),
        ({"tags": "x"}, "tags"),
        ({"tags": ["x", 1]}, "tags[1]"),
        ({"inner": "d"}, "inner"),
        ({"inner": {"displayName": 1}}, "inner.display_name"),
        ({"items": [{}, {"display_name": ["d"]}]}, "items[1].display_name"),
    ],
)
def test_a_wrong_value_is_invalid_argument_naming_the_field(body: dict[str, Any], field: str) -> None:
    assert bad(transcode.normalize, T, body) == field


def test_query_and_path_text() -> None:
    out: dict[str, Any] = {}
    transcode.set_path(T, out, "count", "-5", query=True)
    transcode.set_path(T, out, "on", "1", query=True)
    transcode.set_path(T, out, "state", "ON", query=True)
    transcode.set_path(T, out, "tags", "a", query=True)
    transcode.set_path(T, out, "tags", "b", query=True)  # repeated keys accumulate
    transcode.set_path(T, out, "inner.display_name", "deep", query=True)
    transcode.set_path(T, out, "ratio", "0.25", query=True)
    for ignored in ("nope", "inner.nope", "name.deeper", "sizes", "items.display_name"):
        transcode.set_path(T, out, ignored, "x", query=True)  # unknown, or not expressible as text
    assert out == {"count": "-5", "on": True, "state": "ON", "tags": ["a", "b"], "inner": {"displayName": "deep"},
                   "ratio": 0.25}  # fmt: skip
    # A bad query value names the parameter as given; a bad path variable names the field.
    assert bad(transcode.set_path, T, {}, "inner.displayName", "a\x00", query=True) == "inner.displayName"
    assert bad(transcode.set_path, T, {}, "small", "-1", query=False) == "small"
    assert bad(transcode.set_path, T, {}, "on", "yes", query=True) == "on"


def test_body_paths_are_the_mask_of_what_a_body_sets() -> None:
    body = {"name": "n", "inner": {"displayName": "d"}, "sizes": {"a": 1}, "items": [{}], "ttl": "1s", "x": 1}
    assert transcode.body_paths(T, body) == ["name", "inner.display_name", "sizes", "items", "ttl"]
    assert transcode.body_paths(T, {"inner": {}}) == ["inner"]  # an empty object replaces the whole message


def test_plain_string_fields_and_records() -> None:
    assert transcode.plain_string_field(T, "name") == "name"
    assert transcode.plain_string_field(T, "tags") is None and transcode.plain_string_field(T, "count") is None

    class Rec(msgspec.Struct):
        name: str = ""
        size: int = 0

    assert transcode.to_record(Rec, {"name": "n", "size": 3}) == Rec("n", 3)
    assert bad(transcode.to_record, Rec, {"size": "3"}) == "size"
