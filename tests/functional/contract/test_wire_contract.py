"""Our compiled descriptors speak the published wire contracts (tests/fixtures/wire-v2.md and wire-v1.md).

Clients generated from the vendor's protos send exactly its method paths and field numbers, so any
difference in a name, number, type, label, JSON name, oneof, enum value or HTTP rule breaks them. The only
differences allowed are listed here, each with its reason:
- contract fields we leave out are `reserved` in our message, by number and by name;
- our own fields are numbered from 1000 (docs/reference/wire-contract.md "Extensions");
- the methods, messages and enums below that we do not serve;
- our own methods and services, listed below.
The v2beta1 packages must be the v2 ones under another name (spec 9.3).

The v1 contract (packages chainguard.platform.iam, .registry, .tenant, .events, .ping, .libraries, .advisory
and chainguard.platform.vulnerabilities.v1) is declared whole: every service, method, message, field and enum,
with the contract's method options (capabilities, events). Declared is not served: the methods without an
implementation answer UNIMPLEMENTED (tests/functional/contract/test_v1_unimplemented.py).
"""

from __future__ import annotations

import importlib
import pkgutil

import pytest
from google.api import annotations_pb2 as http_annotations
from google.protobuf import descriptor_pb2, descriptor_pool
from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor, ServiceDescriptor

import platform_api.gen.chainguard as gen_root
from platform_api.gen.platformapi import annotations_pb2 as ours
from tests.helpers import wire_facts

FACTS = wire_facts.parse()
FACTS_V1 = wire_facts.parse(wire_facts.WIRE_V1)
EXTENSION_FROM = 1000

# Contract methods we do not serve (gRPC answers UNIMPLEMENTED, HTTP 404), and why.
OMITTED_METHODS = {
    # Account self-deletion (a product-console call).
    "chainguard.platform.auth.Auth.Delete",
}
# Contract messages and enums that only omitted fields or methods use.
OMITTED_TYPES = {
    "chainguard.platform.auth.DeletionRequest",
    # Group.kind/status/verified/resource_limits: the vendor's commercial org metadata.
    "chainguard.platform.iam.v2.OrgKind",
    "chainguard.platform.iam.v2.OrgStatus",
    # Identity.aws_identity / service_principal: AWS IAM logins and the vendor's internal services.
    "chainguard.platform.iam.v2.Identity.AWSIdentity",
    "chainguard.platform.iam.v2.ServicePrincipal",
    # AccountAssociation.chainguard: bindings to the vendor's own service accounts.
    "chainguard.platform.iam.v2.AccountAssociation.Chainguard",
    # Repo.catalog_tier / sync_config / custom_overlay / bundles: the vendor's commercial catalog.
    "chainguard.platform.registry.v2.CatalogTier",
    "chainguard.platform.registry.v2.SyncConfig",
    "chainguard.platform.registry.v2.CustomOverlay",
    "chainguard.platform.registry.v2.CustomOverlay.ImageContents",
    "chainguard.platform.registry.v2.CustomOverlay.ImageContents.RuntimeKeyringEntry",
    "chainguard.platform.registry.v2.CustomOverlay.Accounts",
    "chainguard.platform.registry.v2.CustomOverlay.Accounts.User",
    "chainguard.platform.registry.v2.CustomOverlay.Accounts.Group",
    "chainguard.platform.registry.v2.CustomOverlay.Certificates",
    "chainguard.platform.registry.v2.CustomOverlay.Certificates.AdditionalEntry",
}
# Our own methods in the contract's services, and our own services (docs/reference/wire-contract.md "Extensions").
EXTENSION_METHODS = {
    "chainguard.platform.events.v2.SubscriptionsService.UpdateSubscription",
    "chainguard.platform.events.v2.SubscriptionsService.RedeliverEvent",
}
EXTENSION_SERVICES = {
    "chainguard.platform.events.v2.DeliveriesService",
    "chainguard.platform.iam.v2.GroupDomainsService",
}
# v1 methods whose events option differs from the contract's event type, and why.
V1_EVENT_DEVIATIONS = {
    # Product-only (docs/reference/wire-contract.md): never served, so they emit nothing; the events machinery has no
    # group rule for the vendor's library entitlements.
    "chainguard.platform.libraries.Entitlements.Create": "",
    "chainguard.platform.libraries.Entitlements.Delete": "",
}
# Capabilities we require differently from the contract, and why.
CAPABILITY_DEVIATIONS = {
    # CAP_REPO_INTERNAL_ADMIN is internal-only: no role an organization can hold has it, so requiring it
    # would make readmes read-only for everyone. Editing a readme needs what editing its repo needs.
    "chainguard.platform.registry.v2.ReposService.UpdateRepoReadme": ["CAP_REPO_UPDATE"],
}
# Contract methods with no capability column that authenticate their caller themselves (the bearer is an
# upstream token or a refresh token, not our access token).
SELF_AUTHENTICATING = {
    "chainguard.platform.oidc.SecurityTokenService.Exchange",
    "chainguard.platform.oidc.SecurityTokenService.ExchangeRefreshToken",
}
# Contract methods that take our access token but need no capability ("token only" in reference 13.4): our
# annotation says so as unscoped without capabilities.
TOKEN_ONLY = {"chainguard.platform.auth.Auth.Validate"}

_SCALARS = {
    FieldDescriptor.TYPE_STRING: "string", FieldDescriptor.TYPE_BOOL: "bool", FieldDescriptor.TYPE_INT32: "int32",
    FieldDescriptor.TYPE_INT64: "int64", FieldDescriptor.TYPE_BYTES: "bytes", FieldDescriptor.TYPE_UINT32: "uint32",
    FieldDescriptor.TYPE_UINT64: "uint64", FieldDescriptor.TYPE_DOUBLE: "double", FieldDescriptor.TYPE_FLOAT: "float",
}  # fmt: skip


def _load() -> descriptor_pool.DescriptorPool:
    for mod in pkgutil.walk_packages(gen_root.__path__, gen_root.__name__ + "."):
        if mod.name.endswith("_pb2"):
            importlib.import_module(mod.name)
    return descriptor_pool.Default()


POOL = _load()


def _find(name: str) -> Descriptor | EnumDescriptor | None:
    for find in (POOL.FindMessageTypeByName, POOL.FindEnumTypeByName):
        try:
            return find(name)  # type: ignore[no-any-return]
        except KeyError:
            pass
    return None


def _type(fd: FieldDescriptor) -> str:
    if fd.type == FieldDescriptor.TYPE_MESSAGE:
        if fd.message_type.GetOptions().map_entry:
            key, value = fd.message_type.fields_by_name["key"], fd.message_type.fields_by_name["value"]
            return f"map<{_type(key)}, {_type(value)}>"
        return str(fd.message_type.full_name)
    if fd.type == FieldDescriptor.TYPE_ENUM:
        return str(fd.enum_type.full_name)
    return _SCALARS[fd.type]


def _label(fd: FieldDescriptor) -> str:
    if fd.is_repeated and not (fd.type == FieldDescriptor.TYPE_MESSAGE and fd.message_type.GetOptions().map_entry):
        return "repeated"
    oneof = fd.containing_oneof
    if oneof is not None and oneof.name == f"_{fd.name}" and len(oneof.fields) == 1:
        return "optional"  # proto3 optional: a synthetic oneof
    return ""


def _reserved(desc: Descriptor) -> tuple[set[int], set[str]]:
    proto = descriptor_pb2.DescriptorProto()
    desc.CopyToProto(proto)
    numbers = {n for r in proto.reserved_range for n in range(r.start, r.end)}
    return numbers, set(proto.reserved_name)


def _real_oneofs(desc: Descriptor) -> dict[str, list[str]]:
    return {
        o.name: [f.name for f in o.fields]
        for o in desc.oneofs
        if not (o.name == f"_{o.fields[0].name}" and len(o.fields) == 1)
    }


def _message_problems(name: str, fact: wire_facts.Message, desc: Descriptor) -> list[str]:
    problems: list[str] = []
    fields = {f.name: f for f in desc.fields}
    by_number = {f.number: f for f in desc.fields}
    reserved_numbers, reserved_names = _reserved(desc)
    for ff in fact.fields.values():
        fd = fields.get(ff.name)
        if fd is None:
            if ff.number not in reserved_numbers or ff.name not in reserved_names:
                problems.append(f"{name}.{ff.name} ({ff.number}) is neither served nor reserved by number and name")
            if ff.number in by_number:
                problems.append(f"{name}: our field {by_number[ff.number].name} uses the contract's number {ff.number}")
            continue
        got = (fd.number, fd.json_name, _type(fd), _label(fd))
        want = (ff.number, ff.json_name, ff.type, ff.label)
        if got != want:
            problems.append(f"{name}.{ff.name}: ours (number, json, type, label) = {got}, contract {want}")
    for fd in desc.fields:
        if fd.name not in fact.fields and fd.number < EXTENSION_FROM:
            problems.append(f"{name}.{fd.name}: our extension is numbered {fd.number}, below {EXTENSION_FROM}")
    served = set(fields)
    want_oneofs = {k: [m for m in v if m in served] for k, v in fact.oneofs.items()}
    want_oneofs = {k: v for k, v in want_oneofs.items() if v}
    if _real_oneofs(desc) != want_oneofs:
        problems.append(f"{name}: oneofs {_real_oneofs(desc)}, contract {want_oneofs}")
    return problems


def _served(kind: str, name: str, problems: list[str]) -> Descriptor | EnumDescriptor | None:
    """Our descriptor of a contract type, or None (a problem unless the type is listed as omitted)."""
    desc = _find(name)
    if desc is None and name not in OMITTED_TYPES:
        problems.append(f"{kind} {name} is missing and not listed as omitted")
    if desc is not None and name in OMITTED_TYPES:
        problems.append(f"{kind} {name} is listed as omitted but we define it")
    return desc


def _messages_problems(facts: wire_facts.Facts) -> list[str]:
    problems: list[str] = []
    for name, fact in facts.messages.items():
        desc = _served("message", name, problems)
        if isinstance(desc, Descriptor):
            problems += _message_problems(name, fact, desc)
    return problems


def test_every_contract_message_is_served_or_listed_as_omitted() -> None:
    assert _messages_problems(FACTS) == []


def test_every_v1_contract_message_is_declared_with_its_numbers_types_and_json_names() -> None:
    assert _messages_problems(FACTS_V1) == []


def _enums_problems(facts: wire_facts.Facts) -> list[str]:
    problems: list[str] = []
    for name, values in facts.enums.items():
        desc = _served("enum", name, problems)
        if not isinstance(desc, EnumDescriptor):
            continue
        ours_ = {v.name: v.number for v in desc.values}
        if ours_ != values:
            missing = {k: v for k, v in values.items() if ours_.get(k) != v}
            extra = {k: v for k, v in ours_.items() if values.get(k) != v}
            problems.append(f"enum {name}: contract-only {missing}, ours-only {extra}")
    return problems


def test_every_contract_enum_has_the_same_values() -> None:
    assert _enums_problems(FACTS) == []


def test_every_v1_contract_enum_has_the_same_values() -> None:
    assert _enums_problems(FACTS_V1) == []


def _service(name: str) -> ServiceDescriptor | None:
    try:
        return POOL.FindServiceByName(name)
    except KeyError:
        return None


def _http(method: object) -> list[tuple[str, str, str]]:
    opts = method.GetOptions()  # type: ignore[attr-defined]
    if not opts.HasExtension(http_annotations.http):
        return []
    top = opts.Extensions[http_annotations.http]
    out = []
    for rule in [top, *top.additional_bindings]:
        kind = rule.WhichOneof("pattern")
        out.append((kind.upper(), getattr(rule, kind), rule.body))
    return sorted(out)


def _methods_problems(facts: wire_facts.Facts) -> list[str]:
    problems: list[str] = []
    for service_name, methods in facts.services.items():
        service = _service(service_name)
        if service is None:
            problems.append(f"service {service_name} is missing")
            continue
        served = {m.name: m for m in service.methods}
        for name, fact in methods.items():
            full = f"{service_name}.{name}"
            m = served.get(name)
            if m is None:
                if full not in OMITTED_METHODS:
                    problems.append(f"{full} is missing and not listed as omitted")
                continue
            if full in OMITTED_METHODS:
                problems.append(f"{full} is listed as omitted but served")
            types = (m.input_type.full_name, m.output_type.full_name)
            if types != (fact.request, fact.response):
                problems.append(f"{full}: types {types}, contract {(fact.request, fact.response)}")
            want_http = sorted((h.verb, h.path, h.body) for h in fact.http)
            if _http(m) != want_http:
                problems.append(f"{full}: HTTP {_http(m)}, contract {want_http}")
            iam = m.GetOptions().Extensions[ours.iam]
            public = iam.WhichOneof("mode") == "disabled"
            caps = sorted(_cap_name(c) for c in iam.enabled.capabilities)
            want_caps = sorted(CAPABILITY_DEVIATIONS.get(full, fact.capabilities))
            auth_service = service_name.endswith(".Auth") and full not in TOKEN_ONLY
            if public != (fact.public or full in SELF_AUTHENTICATING or auth_service):
                problems.append(f"{full}: needs no token = {public}, contract {fact.public}")
            if full in TOKEN_ONLY:
                if public or caps or not iam.enabled.unscoped:
                    problems.append(f"{full}: must need a token and no capability")
            elif not public and (caps != want_caps or iam.enabled.unscoped != fact.unscoped):
                got = (caps, iam.enabled.unscoped)
                problems.append(f"{full}: capabilities {got}, contract {(want_caps, fact.unscoped)}")
        for name in served:
            full = f"{service_name}.{name}"
            if name not in methods and full not in EXTENSION_METHODS:
                problems.append(f"{full} is ours but not listed as an extension")
    return problems


def test_every_contract_method_has_its_path_types_http_rules_and_capabilities() -> None:
    assert _methods_problems(FACTS) == []


def test_every_v1_contract_method_has_its_path_types_http_rules_and_capabilities() -> None:
    assert _methods_problems(FACTS_V1) == []


def test_every_v1_method_declares_the_contracts_event() -> None:
    """The events option holds the contract's type without the operator's prefix (`dev.chainguard.api.`)."""
    problems: list[str] = []
    for service_name, methods in FACTS_V1.services.items():
        service = _service(service_name)
        assert service is not None, service_name
        for m in service.methods:
            full = f"{service_name}.{m.name}"
            opts = m.GetOptions()
            got = opts.Extensions[ours.events].type if opts.HasExtension(ours.events) else ""
            want = methods[m.name].event_type.removeprefix("dev.chainguard.api.")
            if got != V1_EVENT_DEVIATIONS.get(full, want):
                problems.append(f"{full}: event type {got!r}, contract {want!r}")
    assert problems == []


def _cap_name(number: int) -> str:
    from platform_api.gen.chainguard.capabilities import capabilities_pb2

    return str(capabilities_pb2.Capability.Name(number))


def _our_services() -> list[ServiceDescriptor]:
    out = []
    for mod in pkgutil.walk_packages(gen_root.__path__, gen_root.__name__ + "."):
        if mod.name.endswith("_pb2"):
            out += list(importlib.import_module(mod.name).DESCRIPTOR.services_by_name.values())
    return out


def test_no_service_of_ours_outside_the_contract_unless_listed() -> None:
    ours_ = [s.full_name for s in _our_services() if not s.full_name.split(".")[-2].endswith("v2beta1")]
    assert sorted(set(ours_) - set(FACTS.services) - set(FACTS_V1.services)) == sorted(EXTENSION_SERVICES)


def test_the_capability_enum_is_the_contracts() -> None:
    desc = POOL.FindEnumTypeByName("chainguard.capabilities.Capability")
    assert {v.name: v.number for v in desc.values} == FACTS.enums["chainguard.capabilities.Capability"]


@pytest.mark.parametrize("service", [s for s in _our_services() if s.full_name.split(".")[-2] == "v2"])
def test_v2beta1_is_v2_under_another_name(service: ServiceDescriptor) -> None:
    """Spec 9.3: same methods, same messages and numbers; only the package and the path segment differ."""
    package = service.file.package
    beta = POOL.FindServiceByName(service.full_name.replace(package, package + "beta1", 1))
    assert [m.name for m in beta.methods] == [m.name for m in service.methods]
    for m, b in zip(service.methods, beta.methods, strict=True):
        assert [(v, p.replace("/v2beta1/", "/v2/"), body) for v, p, body in _http(b)] == _http(m)
        for ours_, theirs in ((m.input_type, b.input_type), (m.output_type, b.output_type)):
            a, c = descriptor_pb2.DescriptorProto(), descriptor_pb2.DescriptorProto()
            ours_.CopyToProto(a)
            theirs.CopyToProto(c)
            assert str(c).replace(".v2beta1.", ".v2.") == str(a)
