"""Every repeated and map field of every message a served request can reach declares its cap
(`platformapi.annotations.max_items`), and so does every FieldMask (its paths); enum lists are capped at
their enum's size. Walked from the compiled descriptors of every method the app serves (both versions, the
token exchange and the v1 calls included), independently of the plans the transports check; then each
method's plan must hold exactly the capped fields found here."""

from __future__ import annotations

from google.protobuf.descriptor import Descriptor, FieldDescriptor

from platform_api.api import schema
from platform_api.gen.platformapi import annotations_pb2 as ours
from platform_api.service.methods import CapPlan

FD = FieldDescriptor


def _is_map(fd: FieldDescriptor) -> bool:
    return fd.type == FD.TYPE_MESSAGE and bool(fd.message_type.GetOptions().map_entry)


def _capped_paths(desc: Descriptor, prefix: str = "", seen: frozenset[str] = frozenset()) -> dict[str, FieldDescriptor]:
    """Path (`uidp.ids`, `image_refs[].tags`) -> field, for every repeated, map and FieldMask field below `desc`."""
    out: dict[str, FieldDescriptor] = {}
    if desc.full_name in seen:
        return out
    seen = seen | {desc.full_name}
    for fd in desc.fields:
        path = prefix + fd.name
        if fd.type != FD.TYPE_MESSAGE:
            if fd.is_repeated:
                out[path] = fd
            continue
        if fd.message_type.full_name == "google.protobuf.FieldMask" or fd.is_repeated:
            out[path] = fd
        value = fd.message_type.fields_by_name["value"] if _is_map(fd) else fd
        if value.type == FD.TYPE_MESSAGE and not value.message_type.full_name.startswith("google.protobuf."):
            inner = f"{path}[]." if fd.is_repeated else f"{path}."
            out.update(_capped_paths(value.message_type, inner, seen))
    return out


def _plan_paths(plan: CapPlan, prefix: str = "") -> set[str]:
    out: set[str] = set()
    for c in plan.fields:
        if c.kind == "message":
            out |= _plan_paths(c.inner, f"{prefix}{c.name}.")
            continue
        out.add(prefix + c.name)
        out |= _plan_paths(c.inner, f"{prefix}{c.name}[].")
    return out


def test_every_repeated_request_field_declares_a_cap() -> None:
    methods = schema.methods()
    assert any(".v2beta1." in name for name in methods) and "chainguard.platform.registry.Registry" in {
        m.service for m in methods.values()
    }
    missing, wrong_enum_caps = set(), set()
    for m in methods.values():
        for path, fd in _capped_paths(m.input).items():
            where = f"{m.input.full_name}: {path} ({fd.full_name})"
            cap = fd.GetOptions().Extensions[ours.max_items]
            if cap == 0:
                missing.add(where)
            elif fd.type == FD.TYPE_ENUM and cap != len(fd.enum_type.values):
                wrong_enum_caps.add(f"{where}: {cap}, the enum has {len(fd.enum_type.values)} values")
    assert not missing, "repeated request fields without [(platformapi.annotations.max_items) = N]:\n" + "\n".join(
        sorted(missing)
    )
    assert not wrong_enum_caps, "\n".join(sorted(wrong_enum_caps))


def test_every_plan_holds_exactly_the_capped_fields() -> None:
    for m in schema.methods().values():
        assert _plan_paths(m.caps) == set(_capped_paths(m.input)), m.full_name
        assert bool(m.caps) == bool(_capped_paths(m.input)), m.full_name  # nothing to check: no cost
