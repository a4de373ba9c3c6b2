"""`platform-api routes`: every URL and gRPC method the server answers, with the file:function that answers
it, built without a database or a server. Held complete against the app's own tables (the router's HTTP rules,
the contract's methods, the Starlette routes outside the contract), so a route added anywhere is listed or
this test fails."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from platform_api.api import schema
from platform_api.app import HANDLERS, create_app
from platform_api.core.settings import Settings
from tests.helpers.run_cli import run_cli

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def listed() -> list[dict[str, Any]]:
    # No server started, no database given: the command needs neither.
    r = run_cli("routes", "-o", "json")
    assert r.returncode == 0, r.stderr
    lines: list[dict[str, Any]] = json.loads(r.stdout)
    return lines


def _defined(handler: str, line: int) -> None:
    """`handler` (src/platform_api/<file>.py:<qualified name>) names a file of the repo that defines its
    function at `line`."""
    file, _, qualname = handler.partition(":")
    source = (ROOT / file).read_text().splitlines()
    name = qualname.rsplit(".", 1)[-1]
    assert re.match(rf"\s*(@|(async )?def {name}\b)", source[line - 1]), (handler, line, source[line - 1])


def test_every_http_rule_of_the_contract_is_listed_with_its_implementation(listed: list[dict[str, Any]]) -> None:
    starlette = {r.path for r in create_app(Settings()).fallback_routes}
    by_key = {(x["method"], x["url"]): x for x in listed}
    for m in schema.methods().values():
        for rule in m.rules:
            if rule.template in starlette:  # answered over HTTP by the Starlette route, which names the method
                line = next(x for x in listed if x["url"] == rule.template and rule.verb in x["method"].split(","))
                assert m.full_name in line["grpc"].split(","), line
                continue
            line = by_key[(rule.verb, rule.template)]
            assert line["grpc"] == m.full_name
            if m.impl in HANDLERS:
                _defined(line["handler"], line["line"])
            else:
                assert line["handler"] == "(UNIMPLEMENTED)"


def test_every_grpc_method_of_the_contract_is_listed(listed: list[dict[str, Any]]) -> None:
    """Each method is reachable from a line (its HTTP rule's, or its own GRPC line) naming its implementation."""
    names = {n for x in listed for n in x["grpc"].split(",") if n}
    assert names == set(schema.methods())
    for x in listed:
        if x["method"] == "GRPC":
            m = schema.methods()[x["grpc"]]
            assert x["url"] == m.grpc_path
            if m.impl in HANDLERS:
                assert x["handler"] == listed_handler(HANDLERS[m.impl])
                _defined(x["handler"], x["line"])


def listed_handler(fn: Any) -> str:
    module = fn.__module__.replace(".", "/")
    return f"src/{module}.py:{fn.__qualname__}"


def test_every_starlette_route_of_the_app_is_listed(listed: list[dict[str, Any]]) -> None:
    app = create_app(Settings())
    for route in app.fallback_routes:
        line = next(x for x in listed if x["url"] == route.path and not x["grpc"].startswith("/"))
        assert set(line["method"].split(",")) == set(route.methods) - {"HEAD"}
        assert line["handler"].startswith("src/platform_api/") and "handle" not in line["handler"], line
        _defined(line["handler"], line["line"])
    paths = {x["url"] for x in listed}
    for path in ("/oauth", "/oauth/callback", "/oauth/revoke", "/sts/exchange", "/registry/token",
                 "/registry/notifications", "/.well-known/openid-configuration", "/healthz", "/readyz", "/metrics",
                 "/openapi.json"):  # fmt: skip
        assert path in paths


def test_as_many_lines_as_the_app_has_routes(listed: list[dict[str, Any]]) -> None:
    """HTTP rules not taken by a Starlette route, plus Starlette routes, plus the methods left without an
    HTTP line: a route the listing does not know of changes the count."""
    app = create_app(Settings())
    rules = app.router.routes()
    free = [r for r in rules if r.rule.template not in app.own_paths]
    over_http = {r.method.full_name for r in free}
    grpc_only = [m for m in schema.methods() if m not in over_http]
    assert len(listed) == len(free) + len(app.fallback_routes) + len(grpc_only)
    assert len({(x["method"], x["url"]) for x in listed}) == len(listed)


def test_table_has_one_line_per_route_and_a_header(listed: list[dict[str, Any]]) -> None:
    r = run_cli("routes")
    assert r.returncode == 0, r.stderr
    rows = r.stdout.splitlines()
    assert rows[0].split() == ["METHOD", "URL", "GRPC", "HANDLER"]
    assert len(rows) == len(listed) + 1
    assert any(row.split() == ["GET", "/oauth", "-", "src/platform_api/api/sts_routes.py:routes.<locals>.http_oauth"]
               for row in rows)  # fmt: skip
