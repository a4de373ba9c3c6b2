"""The contract as the client sees it: every RPC of the generated descriptors with its HTTP rule and its
request/response records, read once (the same descriptors the server builds its router from, so the two
never disagree on a path). Client-side only: nothing here decides access."""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass
from functools import cache
from typing import Any

from google.api import annotations_pb2, http_pb2
from google.protobuf import descriptor_pool, message_factory
from google.protobuf.descriptor import Descriptor, FieldDescriptor

import platform_api.gen.chainguard as gen_root
from platform_api.gen.records import RECORDS


@dataclass(frozen=True)
class Rule:
    verb: str
    template: str
    body: str  # "", "*" or a top-level request field


@dataclass(frozen=True)
class Method:
    full_name: str  # chainguard.platform.registry.v2.ReposService.ListRepos
    grpc_path: str  # /chainguard.platform.registry.v2.ReposService/ListRepos
    name: str  # ListRepos
    python_name: str  # list_repos
    area: str  # registry
    version: str  # v2
    input: Descriptor
    output: Descriptor
    input_record: type
    output_record: type
    input_pb: Any
    output_pb: Any
    rule: Rule | None
    # For Lists: the response's repeated field of items (python name) when it pages with next_page_token.
    items: str = ""


def snake(name: str) -> str:
    """`ListRepos` -> `list_repos`: an underscore before each capital that follows a small letter or digit."""
    return "".join(
        "_" + c.lower() if c.isupper() and i and (name[i - 1].islower() or name[i - 1].isdigit()) else c.lower()
        for i, c in enumerate(name)
    )


def _rule(opts: Any) -> Rule | None:
    if not opts.HasExtension(annotations_pb2.http):
        return None
    r: http_pb2.HttpRule = opts.Extensions[annotations_pb2.http]
    kind = r.WhichOneof("pattern")
    if kind is None or kind == "custom":
        return None
    return Rule(kind.upper(), getattr(r, kind), r.body)


def _items(out: Descriptor) -> str:
    names = {f.name for f in out.fields}
    if "next_page_token" not in names:
        return ""
    repeated = [f for f in out.fields if f.is_repeated and f.type == FieldDescriptor.TYPE_MESSAGE]
    return repeated[0].name if len(repeated) == 1 else ""


@cache
def methods() -> dict[str, Method]:
    """Every RPC of the generated contract, by full name."""
    pool = descriptor_pool.Default()
    out: dict[str, Method] = {}
    for mod in pkgutil.walk_packages(gen_root.__path__, gen_root.__name__ + "."):
        if not mod.name.endswith("_pb2"):
            continue
        fd = pool.FindFileByName(importlib.import_module(mod.name).DESCRIPTOR.name)
        for svc in fd.services_by_name.values():
            parts = svc.full_name.split(".")
            for m in svc.methods:
                full = f"{svc.full_name}.{m.name}"
                out[full] = Method(
                    full_name=full,
                    grpc_path=f"/{svc.full_name}/{m.name}",
                    name=m.name,
                    python_name=snake(m.name),
                    area=parts[2],
                    version=parts[3] if len(parts) > 4 else "",
                    input=m.input_type,
                    output=m.output_type,
                    input_record=RECORDS[m.input_type.full_name],
                    output_record=RECORDS[m.output_type.full_name],
                    input_pb=message_factory.GetMessageClass(m.input_type),
                    output_pb=message_factory.GetMessageClass(m.output_type),
                    rule=_rule(m.GetOptions()),
                    items=_items(m.output_type) if m.name.startswith("List") else "",
                )
    return out


@cache
def area_methods(area: str, version: str = "v2") -> dict[str, Method]:
    """The methods of one API area and version by python name (`create_repo`): one namespace per area, as
    `client.registry.create_repo`. Two services of an area never share a method name in v2."""
    found: dict[str, Method] = {}
    for m in methods().values():
        if m.area == area and m.version == version:
            if m.python_name in found:
                raise RuntimeError(f"{m.full_name} and {found[m.python_name].full_name} share a name")
            found[m.python_name] = m
    return found


@cache
def areas(version: str = "v2") -> frozenset[str]:
    return frozenset(m.area for m in methods().values() if m.version == version)
