"""Capabilities as bit masks, and the built-in roles.

A capability set is an int whose bit `i` is the capability whose `(bit)` option is `i` (the contract's
the token's compact encoding), so "holds all of" is `required & ~held == 0`. Names come from the
generated enum: v2 JSON uses enum names (`CAP_REPO_LIST`), tokens and v1 use friendly names
(`repo.list`). Unknown names or numbers in stored roles are skipped, never granted.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from platform_api.gen.chainguard.capabilities import capabilities_pb2 as _pb

_ENUM = _pb.DESCRIPTOR.enum_types_by_name["Capability"]

BIT: dict[str, int] = {}  # enum name -> bit
FRIENDLY: dict[str, str] = {}  # enum name -> friendly name
BY_FRIENDLY: dict[str, str] = {}  # friendly name -> enum name
INTERNAL_ONLY: set[str] = set()  # enum names a role may hold only together with CAP_INTERNAL
for _v in _ENUM.values:
    if _v.number == 0:
        continue
    _opts = _v.GetOptions()
    BIT[_v.name] = _opts.Extensions[_pb.bit]
    FRIENDLY[_v.name] = _opts.Extensions[_pb.friendly]
    BY_FRIENDLY[FRIENDLY[_v.name]] = _v.name
    if _opts.Extensions[_pb.internal_only]:
        INTERNAL_ONLY.add(_v.name)
_NAME_OF_BIT = {bit: name for name, bit in BIT.items()}


def mask(names: Iterable[str]) -> int:
    """Bit mask of enum names (or friendly names); unknown names contribute nothing."""
    m = 0
    for n in names:
        bit = BIT.get(n)
        if bit is None:
            bit = BIT.get(BY_FRIENDLY.get(n, ""))
        if bit is not None:
            m |= 1 << bit
    return m


def names(m: int) -> list[str]:
    """Enum names in a mask, in enum order."""
    return [v.name for v in _ENUM.values if v.number and m >> BIT[v.name] & 1]


def canonical(names_: Iterable[str]) -> Any:
    """Known names, each once, in enum order (typed loosely: records type them as a Literal)."""
    return names(mask(names_))


def unknown(names_: Iterable[str]) -> list[str]:
    return [n for n in names_ if n not in BIT and n not in BY_FRIENDLY]


def _friendly(*items: str) -> int:
    return mask(BY_FRIENDLY[i] for i in items)


# The vendor's built-in role bundles (its roles.go), fully expanded: each role is the one the reference's
# built-in role of that name holds, so roles and scripts written for that API work unchanged.
_CONSOLE_VIEWER = _friendly(
    "groups.list", "group_invites.list", "roles.list", "role_bindings.list", "record_signatures.list", "sboms.list",
    "vuln_reports.list", "account_associations.list", "identity.list", "identity_providers.list",
    "subscriptions.list", "repo.list", "manifest.list", "tag.list", "manifest.metadata.list", "referrers.list",
    "apk.list", "version.list", "vuln_report.list", "build_report.list", "registry.entitlements.list",
    "registry.settings.list", "registry.overlays.list", "libraries.entitlements.list", "libraries.artifacts.list",
    "libraries.cache.list", "libraries.aws_marketplace.subscriptions.list", "libraries.request_groups.list",
    "libraries.remote_registries.list", "advisories.list", "registry.deployments.list", "policies.policy.list",
    "policies.binding.list", "policies.decision.list", "policies.override.list", "packages.entitlements.list",
    "guardener.entitlement.list", "guardener.scan.list", "guardener.scan.get", "skills.entitlements.list",
    "skills.list", "libraries.policy.list", "libraries.policy.binding.list", "libraries.policy.block_event.list",
    "actions.list"
)  # fmt: skip
_REGISTRY_PULL = _friendly(
    "groups.list", "record_signatures.list", "sboms.list", "vuln_reports.list", "repo.blobs.get", "repo.list",
    "manifest.list", "tag.list", "manifest.metadata.list", "referrers.list"
)  # fmt: skip
_VIEWER = _CONSOLE_VIEWER | _friendly(
    "repo.blobs.get", "apk.blobs.get", "terms.list", "guardener.dfc.convert", "guardener.association.list",
    "guardener.actions.migrate"
)  # fmt: skip
_EDITOR = _VIEWER | _friendly(
    "subscriptions.create", "subscriptions.update", "subscriptions.delete", "repo.create", "repo.update",
    "repo.delete", "registry.overlays.edit", "libraries.request_groups.create", "libraries.request_groups.update",
    "libraries.request_groups.delete", "libraries.request_groups.items.update"
)  # fmt: skip
_REGISTRY_PUSH = _REGISTRY_PULL | _friendly(
    "groups.create", "repo.create", "repo.update", "repo.delete", "manifest.create", "manifest.update",
    "manifest.delete", "tag.create", "tag.update", "tag.delete"
)  # fmt: skip
_PULL_TOKEN_CREATOR = _REGISTRY_PULL | _friendly(
    "roles.list", "role_bindings.create", "identity.create", "apk.list", "apk.blobs.get"
)  # fmt: skip
_OWNER = _EDITOR | _friendly(
    "groups.create", "groups.update", "groups.delete", "group_invites.create", "group_invites.delete",
    "roles.create", "roles.update", "roles.delete", "role_bindings.create", "role_bindings.update",
    "role_bindings.delete", "account_associations.create", "account_associations.update",
    "account_associations.delete", "identity.create", "identity.update", "identity.delete",
    "identity_providers.create", "identity_providers.update", "identity_providers.delete",
    "identity_providers.scim.manage", "manifest.create", "manifest.update", "manifest.delete", "tag.create",
    "tag.update", "tag.delete", "apk.create", "apk.delete", "vuln_report.create", "vuln.create",
    "registry.entitlements.images.add", "registry.entitlements.images.remove", "registry.entitlements.images.swap",
    "libraries.entitlements.create", "libraries.entitlements.delete", "libraries.python.list",
    "libraries.python.create", "libraries.java.list", "libraries.java.create", "libraries.javascript.list",
    "libraries.javascript.create", "libraries.dotnet.list", "libraries.dotnet.create", "libraries.go.list",
    "libraries.go.create", "libraries.cache.invalidate", "libraries.aws_marketplace.subscriptions.create",
    "libraries.aws_marketplace.subscriptions.update", "libraries.request_groups.submit",
    "libraries.remote_registries.create", "libraries.remote_registries.delete", "policies.policy.create",
    "policies.policy.update", "policies.policy.delete", "policies.binding.create", "policies.binding.update",
    "policies.binding.delete", "policies.override.create", "policies.override.delete", "repo.check_policies",
    "terms.accept", "guardener.association.manage", "mcp.tool.call", "skills.publish", "skills.entitlements.create",
    "skills.entitlements.delete", "skills.harden.read", "skills.harden.write", "skills.harden.cancel",
    "libraries.policy.create", "libraries.policy.update", "libraries.policy.delete",
    "libraries.policy.binding.create", "libraries.policy.binding.update", "libraries.policy.binding.delete"
)  # fmt: skip


@dataclass(frozen=True)
class BuiltinRole:
    name: str
    description: str
    capabilities: int

    @property
    def uid(self) -> str:
        # `viewer` keeps the reference's published uid so clients that hard-code it work; the others get
        # a stable uid derived from their name.
        if self.name == "viewer":
            return "63921b2c44617e3f2603851537be0123af4a57d7"
        return hashlib.sha1(f"platform-api built-in role {self.name}".encode()).hexdigest()


BUILTIN_ROLES = (
    BuiltinRole("owner", "Owner Role (built-in)", _OWNER),
    BuiltinRole("editor", "Editor Role (built-in)", _EDITOR),
    BuiltinRole("viewer", "Viewer Role (built-in)", _VIEWER),
    BuiltinRole("console_viewer", "Console Viewer Role (built-in)", _CONSOLE_VIEWER),
    BuiltinRole("registry.pull", "Registry Pull Role (built-in)", _REGISTRY_PULL),
    BuiltinRole("registry.push", "Registry Push Role (built-in)", _REGISTRY_PUSH),
    BuiltinRole("registry.pull_token_creator", "Registry Pull Token Creator Role (built-in)", _PULL_TOKEN_CREATOR),
)
BUILTIN_BY_UID = {r.uid: r for r in BUILTIN_ROLES}
BUILTIN_BY_NAME = {r.name: r for r in BUILTIN_ROLES}
OWNER = BUILTIN_BY_NAME["owner"]
