"""`platform-api routes`: every URL and gRPC method the server answers, with the function that answers it
(as `flask routes`), read from the app's own tables: the router's HTTP rules of the contract with the `@rpc`
implementations they dispatch to, the contract's methods without an HTTP rule (gRPC only), and the Starlette
routes outside the contract (health, discovery, token exchange, browser login, registry, metrics). Built
without a database or a listener: `create_app` only assembles."""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from platform_api.api.rest import RestApp

_PACKAGE = Path(__file__).resolve().parent.parent
HELP = "list every URL and gRPC method with the file:function that answers it (no database needed)"
# What a method of the contract that no `@rpc` implements answers (api/dispatch.py).
UNIMPLEMENTED = "(UNIMPLEMENTED)"


@dataclass(frozen=True)
class Line:
    method: str  # GET, POST, ... (several, comma-separated, for a Starlette route); GRPC for a gRPC-only method
    url: str  # the HTTP rule's template, the Starlette route's path, or the gRPC path of a gRPC-only method
    grpc: str  # the contract's full method name ("" outside the contract; comma-separated if several)
    handler: str  # src/platform_api/<file>.py:<qualified name>, or UNIMPLEMENTED
    line: int  # where the handler's definition starts (0 when unimplemented)


def where(fn: Callable[..., Any]) -> tuple[str, int]:
    """`src/platform_api/<file>.py:<qualified name>` of `fn` (through its wrappers) and its first line."""
    fn = inspect.unwrap(fn)
    source = inspect.getsourcefile(fn)
    assert source is not None, fn
    relative = Path(source).resolve().relative_to(_PACKAGE).as_posix()
    return f"src/platform_api/{relative}:{fn.__qualname__}", fn.__code__.co_firstlineno


def lines(app: RestApp) -> list[Line]:
    """One line per HTTP rule of the contract, per Starlette route, and per method of the contract that has no
    HTTP line of its own (gRPC only, or its rules' paths taken by a Starlette route, which the HTTP transport
    tries first: the Starlette line names the method it answers for); sorted by URL."""
    out: list[Line] = []
    over_http: set[str] = set()
    taken: dict[str, list[str]] = {}
    for route in app.router.routes():
        m, rule = route.method, route.rule
        if rule.template in app.own_paths:
            taken.setdefault(rule.template, []).append(m.full_name)
            continue
        over_http.add(m.full_name)
        out.append(_contract_line(app, rule.verb, rule.template, m.full_name, m.impl))
    for m in app.rt.methods.values():
        if m.full_name not in over_http:
            out.append(_contract_line(app, "GRPC", m.grpc_path, m.full_name, m.impl))
    for r in app.fallback_routes:
        handler, first = where(r.endpoint)
        verbs = ",".join(sorted(r.methods - {"HEAD"})) if r.methods else "*"
        out.append(Line(verbs, r.path, ",".join(sorted(set(taken.get(r.path, [])))), handler, first))
    return sorted(out, key=lambda x: (x.url, x.method))


def _contract_line(app: RestApp, verb: str, url: str, full_name: str, impl: str) -> Line:
    fn = app.rt.handlers.get(impl)
    handler, first = where(fn) if fn is not None else (UNIMPLEMENTED, 0)
    return Line(verb, url, full_name, handler, first)


def render(found: list[Line], output: str) -> str:
    """As a table (aligned columns, `-` for no gRPC method) or as a JSON list of objects."""
    if output == "json":
        return json.dumps([asdict(x) for x in found], indent=2)
    rows = [("METHOD", "URL", "GRPC", "HANDLER")] + [(x.method, x.url, x.grpc or "-", x.handler) for x in found]
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    return "\n".join("  ".join([*(c.ljust(w) for c, w in zip(row[:3], widths, strict=True)), row[3]]) for row in rows)
