"""The contract as data: every RPC of our .proto files with its HTTP rules and method options.

Built once at start from the generated descriptors; the router, both transports and the OpenAPI
document all read it, so nothing about a route is written twice.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterator
from functools import cache
from typing import Any

from google.api import annotations_pb2, http_pb2
from google.protobuf import descriptor_pool, message_factory
from google.protobuf.descriptor import Descriptor, FieldDescriptor, FileDescriptor, MethodDescriptor

import platform_api.gen.chainguard as gen_root
from platform_api.api import caps as request_caps
from platform_api.api import omitted
from platform_api.auth import capabilities as caps
from platform_api.gen.chainguard.capabilities import capabilities_pb2
from platform_api.gen.platformapi import annotations_pb2 as ours
from platform_api.gen.records import RECORDS
from platform_api.service.methods import HttpRule, MethodInfo, collection_path

# The earlier version segment (v2beta1, which older clients call), served by the v2 implementations.
BETA = ".v2beta1"


def _load_generated() -> None:
    for mod in pkgutil.walk_packages(gen_root.__path__, gen_root.__name__ + "."):
        if mod.name.endswith("_pb2"):
            importlib.import_module(mod.name)


def _rules(opts: Any) -> list[HttpRule]:
    out: list[HttpRule] = []
    if not opts.HasExtension(annotations_pb2.http):
        return out
    top: http_pb2.HttpRule = opts.Extensions[annotations_pb2.http]
    for r in [top, *top.additional_bindings]:
        kind = r.WhichOneof("pattern")
        if kind is None or kind == "custom":
            continue
        out.append(HttpRule(kind.upper(), getattr(r, kind), r.body))
    return out


def _scope_field(desc: Descriptor) -> str:
    for f in desc.fields:
        if f.GetOptions().Extensions[ours.iam_scope]:
            return f"{f.name}.uid" if f.type == FieldDescriptor.TYPE_MESSAGE else f.name
    return ""


# Resources whose service name does not singularize to them, or whose scope names another resource.
_SCOPE_RESOURCES = {
    "chainguard.platform.registry.v2.TagsService.CreateTag": "chainguard.platform.registry.v2.Repo",
    "chainguard.platform.registry.v2.ImagesService": "chainguard.platform.registry.v2.Repo",
    "chainguard.platform.registry.Registry.GetVulnReport": "chainguard.platform.registry.v2.Repo",
    "chainguard.platform.iam.v2.IdentitiesService": "chainguard.platform.iam.v2.Identity",
    "chainguard.platform.events.v2.DeliveriesService": "chainguard.platform.events.v2.Delivery",
    "chainguard.platform.iam.v2.GroupDomainsService": "chainguard.platform.iam.v2.Group",
    "chainguard.platform.vulnerabilities.v2.AdvisoriesService": "chainguard.platform.vulnerabilities.v2.Advisory",
    "chainguard.platform.iam.v2.ExternalGroupRoleMappingsService.CreateExternalGroupRoleMapping": (
        "chainguard.platform.iam.v2.IdentityProvider"
    ),
    "chainguard.platform.iam.v2.ExternalGroupRoleMappingsService.BatchDeleteExternalGroupRoleMappings": (
        "chainguard.platform.iam.v2.IdentityProvider"
    ),
}


def _scope_resource(info: MethodInfo) -> str:
    """The v2 resource name (for the v2beta1 alias too: error messages name one resource)."""
    impl_service = info.impl.rsplit(".", 1)[0]
    if info.impl in _SCOPE_RESOURCES:
        return _SCOPE_RESOURCES[info.impl]
    if info.scope_field in ("parent", "group"):
        return "chainguard.platform.iam.v2.Group"
    if impl_service in _SCOPE_RESOURCES:
        return _SCOPE_RESOURCES[impl_service]
    package, service = impl_service.rsplit(".", 1)
    return f"{package}.{service.removesuffix('Service').removesuffix('s')}"


def _method(m: MethodDescriptor) -> MethodInfo:
    service = m.containing_service.full_name
    package = m.containing_service.file.package
    cap_enum = capabilities_pb2.Capability
    info = MethodInfo(
        full_name=f"{service}.{m.name}",
        grpc_path=f"/{service}/{m.name}",
        service=service,
        name=m.name,
        # The token exchange and registration are IAM's (their HTTP routes answer errors in that domain).
        area={"oidc": "iam", "auth": "iam"}.get(package.split(".")[2], package.split(".")[2]),
        impl=f"{service}.{m.name}".replace(f"{BETA}.", ".v2.", 1),
        input=m.input_type,
        output=m.output_type,
        input_record=RECORDS[m.input_type.full_name],
        output_record=RECORDS[m.output_type.full_name],
        input_pb=message_factory.GetMessageClass(m.input_type),
        output_pb=message_factory.GetMessageClass(m.output_type),
    )
    opts = m.GetOptions()
    info.rules = _rules(opts)
    iam = opts.Extensions[ours.iam]
    info.auth_disabled = iam.WhichOneof("mode") == "disabled"
    info.capabilities = tuple(cap_enum.Name(c) for c in iam.enabled.capabilities)
    info.unscoped = iam.enabled.unscoped
    if opts.HasExtension(ours.events):
        info.event_type = opts.Extensions[ours.events].type
        info.event_subject = opts.Extensions[ours.events].subject_field
    info.scope_field = _scope_field(m.input_type)
    info.scope_resource = _scope_resource(info)
    info.required = caps.mask(info.capabilities)
    info.caps = request_caps.plan(m.input_type)
    info.omitted = omitted.plan(m.input_type) or None  # None: a plain truth test for most requests
    fields = {f.name for f in m.input_type.fields}
    for r in info.rules:
        if r.body not in ("", "*") and "update_mask" in fields:
            info.mask_from_body = r.body
    return info


def _files() -> Iterator[FileDescriptor]:
    """Every file of our contract, once all are loaded (a v1 message's v2 twin is looked up by name)."""
    _load_generated()
    pool = descriptor_pool.Default()
    for mod in pkgutil.walk_packages(gen_root.__path__, gen_root.__name__ + "."):
        if mod.name.endswith("_pb2"):
            yield pool.FindFileByName(importlib.import_module(mod.name).DESCRIPTOR.name)


@cache
def methods() -> dict[str, MethodInfo]:
    """Every RPC of our contract, by full name."""
    out: dict[str, MethodInfo] = {}
    for fd in _files():
        for svc in fd.services_by_name.values():
            for m in svc.methods:
                info = _method(m)
                out[info.full_name] = info
    for info in out.values():  # a v2beta1 call emits the v2 method's event, from the v2 collection
        v2 = out[info.impl]
        info.event_source = collection_path(v2.rules[0].template) if v2.rules else ""
    return out


@cache
def messages() -> tuple[Descriptor, ...]:
    """Every message of our contract, nested ones included (map entries too)."""
    out: list[Descriptor] = []
    for fd in _files():
        todo = list(fd.message_types_by_name.values())
        while todo:
            d = todo.pop()
            out.append(d)
            todo += d.nested_types
    return tuple(out)


@cache
def areas() -> frozenset[str]:
    """The API areas of the contract (`chainguard.platform.<area>.*`), each an ErrorInfo domain's first label."""
    return frozenset(m.area for m in methods().values())


def services() -> dict[str, list[MethodInfo]]:
    out: dict[str, list[MethodInfo]] = {}
    for m in methods().values():
        out.setdefault(m.service, []).append(m)
    return out
