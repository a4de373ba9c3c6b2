"""What a domain package contributes to the service, declared once in its `__init__` as a `Domain`, and
collected by `app` from its one list of domains. Nothing is wired by the side effect of an import: a module
marks its RPC implementations with `@rpc` (which only names them), its package lists the modules, and the
app hands the collected table to the dispatcher.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import TypeVar

from platform_api.service.cascade import Cascade
from platform_api.service.context import Handler, rpc, rpc_name

T = TypeVar("T")


@dataclass(frozen=True)
class Domain:
    """One domain package's contributions."""

    name: str
    # Full proto method name -> implementation (`handlers` of the package's RPC modules).
    rpcs: Mapping[str, Handler] = field(default_factory=dict)
    # `platform-api import <kind>` -> the importer module (HELP, arguments(parser), async run(job)).
    importers: Mapping[str, ModuleType] = field(default_factory=dict)
    # What it keeps under a group, role or identity that is being deleted (service.cascade).
    cascades: tuple[Cascade, ...] = ()


def handlers(*modules: ModuleType) -> dict[str, Handler]:
    """The RPC implementations of `modules`: each function marked `@rpc(name)`, by that name."""
    found: dict[str, Handler] = {}
    for module in modules:
        for value in vars(module).values():
            name = rpc_name(value)
            if name and getattr(value, "__module__", None) == module.__name__:
                if name in found:
                    raise RuntimeError(f"{name} is implemented twice")
                found[name] = value
    return found


def collect(domains: Iterable[Domain]) -> tuple[dict[str, Handler], dict[str, ModuleType], tuple[Cascade, ...]]:
    """Every domain's RPC implementations, importers and cascades; a method or importer contributed twice
    is an error at start."""
    rpcs: dict[str, Handler] = {}
    importers: dict[str, ModuleType] = {}
    cascades: list[Cascade] = []
    for d in domains:
        _merge(rpcs, d.rpcs, "method", d.name)
        _merge(importers, d.importers, "importer", d.name)
        cascades += d.cascades
    return rpcs, importers, tuple(cascades)


def _merge(into: dict[str, T], more: Mapping[str, T], what: str, domain: str) -> None:
    twice = sorted(into.keys() & more.keys())
    if twice:
        raise RuntimeError(f"{what} {twice[0]} is contributed twice (again by {domain})")
    into.update(more)


__all__ = ["Domain", "collect", "handlers", "rpc"]
