"""Every `functools.cache` / `lru_cache` of the package is bounded (maxsize set), takes no arguments, or is keyed
by values of a set fixed before the first request (the contract, the settings): a cache keyed by what requests
carry (a subject uid, a name) grows with every write and is never released (issue 26 item 15: `group_of` kept
~440 bytes per create). A new unbounded cache fails here until its key space is shown to be finite below."""

from __future__ import annotations

import functools
import importlib
import inspect
import pkgutil
from collections.abc import Iterator
from typing import Any

import platform_api

# Unbounded caches whose arguments cannot grow with traffic: qualified name -> why.
FINITE_KEYS = {
    "platform_api.api.transcode.fields_of": "message descriptors of the compiled contract",
    "platform_api.api.transcode.plain_string_field": "(message descriptor, path variable of a route template): both "
    "from the contract, never from a request's values",
    "platform_api.api.omitted.plan": "message descriptors of the compiled contract",
    "platform_api.client.contract.area_methods": "(API area, version): the contract's areas, which the client's "
    "attributes name",
    "platform_api.client.contract.areas": "the contract's versions",
    "platform_api.outbox.outbox.rule_of": "event type suffixes: the contract's `events` options",
}


def _modules() -> Iterator[Any]:
    for info in pkgutil.walk_packages(platform_api.__path__, "platform_api."):
        if ".gen." in info.name or info.name.endswith(".__main__"):
            continue
        yield importlib.import_module(info.name)


def caches() -> dict[str, Any]:
    """Every cache wrapper defined at module level or in a class body of the package, by qualified name."""
    found: dict[str, Any] = {}
    for module in _modules():
        owner = module.__name__
        members = [(name, value) for name, value in vars(module).items()]
        for name, value in list(members):
            if inspect.isclass(value) and value.__module__ == owner:
                members += [(f"{name}.{attr}", member) for attr, member in vars(value).items()]
        for name, value in members:
            value = value.__func__ if isinstance(value, staticmethod | classmethod) else value
            if isinstance(value, functools._lru_cache_wrapper) and value.__module__ == owner:
                found[f"{owner}.{name}"] = value
    return found


def test_every_cache_is_bounded_or_keyed_by_a_finite_set() -> None:
    found = caches()
    assert found["platform_api.auth.matching._pattern"].cache_parameters()["maxsize"] == 4096  # the walk sees them
    unbounded = {
        name
        for name, wrapper in found.items()
        if wrapper.cache_parameters()["maxsize"] is None and inspect.signature(wrapper.__wrapped__).parameters
    }
    assert sorted(unbounded - FINITE_KEYS.keys()) == []
    assert sorted(FINITE_KEYS.keys() - unbounded) == []  # the allowlist names only what still needs it
