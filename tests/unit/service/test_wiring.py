"""Explicit wiring: every method the contract serves has exactly one implementation, collected from the app's
one list of domains (no import side effect decides it), and a method or importer claimed twice stops the
start."""

from __future__ import annotations

import types

import pytest

from platform_api import app
from platform_api.api import schema
from platform_api.service import wiring
from platform_api.service.context import rpc

# Contract methods deliberately left unimplemented (README: they answer UNIMPLEMENTED), by implementation name.
UNIMPLEMENTED: set[str] = set()


def _v1(method: str) -> bool:
    """A method of the v1 contract (`chainguard.platform.<domain>.<Service>`, or `...vulnerabilities.v1`)."""
    package = method.rsplit(".", 2)[0]
    return not package.endswith((".v2", ".v2beta1")) and package.split(".")[2] not in ("oidc", "auth")


def test_every_served_method_has_exactly_one_implementation() -> None:
    served = {m.impl for m in schema.methods().values()}
    # The v1 contract is declared whole; its calls are implemented as their adapters land
    # (docs/reference/wire-contract.md).
    missing = sorted(served - set(app.HANDLERS) - UNIMPLEMENTED - {m for m in served if _v1(m)})
    assert missing == []
    assert sorted(set(app.HANDLERS) - served) == []  # no implementation of a method nobody serves
    assert sorted(UNIMPLEMENTED & set(app.HANDLERS)) == []  # the list above stays true


def test_every_importer_is_collected() -> None:
    assert sorted(app.IMPORTERS) == ["advisories", "eol", "libraries", "oci", "osv", "sbom", "vulnreport"]
    for importer in app.IMPORTERS.values():
        assert importer.HELP and callable(importer.arguments) and callable(importer.run)


def _module(name: str, *functions: object) -> types.ModuleType:
    m = types.ModuleType(name)
    for f in functions:
        f.__module__ = name  # type: ignore[attr-defined]
        setattr(m, f.__name__, f)  # type: ignore[attr-defined]
    return m


def test_a_method_implemented_twice_stops_the_start() -> None:
    @rpc("x.S.M")
    async def one(req: object, ctx: object) -> None: ...

    @rpc("x.S.M")
    async def two(req: object, ctx: object) -> None: ...

    assert wiring.handlers(_module("m1", one)) == {"x.S.M": one}
    with pytest.raises(RuntimeError, match="implemented twice"):
        wiring.handlers(_module("m2", one, two))
    a = wiring.Domain("a", rpcs={"x.S.M": one})
    b = wiring.Domain("b", rpcs={"x.S.M": two})
    with pytest.raises(RuntimeError, match="contributed twice"):
        wiring.collect([a, b])


def test_a_function_imported_from_elsewhere_is_not_claimed_twice() -> None:
    """A module that imports another's implementation (to call it) does not implement it again."""

    @rpc("x.S.N")
    async def impl(req: object, ctx: object) -> None: ...

    home = _module("home", impl)
    caller = types.ModuleType("caller")
    caller.impl = impl  # type: ignore[attr-defined]
    assert wiring.handlers(home, caller) == {"x.S.N": impl}
