"""The OpenAPI document describes exactly the HTTP surface of the contract (no server needed)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from platform_api.api import openapi, schema
from platform_api.api.router import Router
from platform_api.service import methods
from tests.helpers import wire_facts

VERBS = {"get", "post", "put", "patch", "delete"}


@pytest.fixture(scope="module")
def doc() -> dict[str, Any]:
    return openapi.document(list(schema.methods().values()), "http://x")


def _operations(doc: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, item in doc["paths"].items():
        for verb, op in item.items():
            if verb in VERBS:
                yield path, verb, op


def _params(op: dict[str, Any], where: str) -> dict[str, dict[str, Any]]:
    return {p["name"]: p for p in op.get("parameters", []) if p["in"] == where}


def _refs(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "$ref" and isinstance(v, str):
                yield v
            else:
                yield from _refs(v)
    elif isinstance(node, list):
        for v in node:
            yield from _refs(v)


def _resolve(doc: dict[str, Any], ref: str) -> Any:
    assert ref.startswith("#/components/"), ref
    node: Any = doc
    for part in ref[2:].split("/"):
        assert isinstance(node, dict) and part in node, ref
        node = node[part]
    return node


def test_header(doc: dict[str, Any]) -> None:
    assert doc["openapi"] == "3.0.3"
    assert doc["info"]["title"] == "Platform API v2"
    assert doc["servers"] == [{"url": "http://x"}]
    assert doc["components"]["securitySchemes"]["bearerAuth"] == {"type": "http", "scheme": "bearer"}


def test_every_rule_is_an_operation(doc: dict[str, Any]) -> None:
    ops = {(path, verb): op for path, verb, op in _operations(doc)}
    # The reference's 78 domain bindings plus the events additions (UpdateSubscription, RedeliverEvent,
    # GetDelivery, ListDeliveries) and joining's (ListGroupDomains, ListAccessRequests), each under v2 and v2beta1,
    # the 4 of the token exchange and registration,
    # the 2 of human login (WhoAmI at /auth/v1/ok, GetHeadlessSession),
    # and the v1 contract's (all its methods but GroupInvites.CreateWithGroup, which has no HTTP rule).
    v1 = wire_facts.parse(wire_facts.WIRE_V1)
    v1_rules = sum(len(m.http) for methods_ in v1.services.values() for m in methods_.values())
    assert v1_rules == 104
    assert len(ops) == 84 * 2 + 4 + 2 + v1_rules
    shorts = openapi.short_names(list(schema.methods().values()))
    assert shorts["chainguard.platform.ping.PingService"] == "PingServiceV1"  # v2's is PingService
    assert shorts["chainguard.platform.iam.Groups"] == "Groups"
    for m in schema.methods().values():
        short = m.service.rsplit(".", 1)[-1]
        short += "V1" if m.service == "chainguard.platform.ping.PingService" else ""
        suffix = "_v2beta1" if m.impl != m.full_name else ""
        for i, r in enumerate(m.rules):
            op = ops[(openapi.path_key(r.template), r.verb.lower())]
            assert op["operationId"] == f"{short}_{m.name}{suffix}" + (f"_{r.verb.lower()}" if i else "")
            assert op["tags"] == [short]
    ids = [op["operationId"] for op in ops.values()]
    assert len(ids) == len(set(ids))


def test_path_keys() -> None:
    # A nested field is named by its last part: the same template as GetRepo's is one path item.
    assert openapi.path_key("/registry/v2/repos/{repo.uid=**}") == "/registry/v2/repos/{uid}"
    assert openapi.path_key("/iam/v2/accountAssociations/{uid=**}:checkAccountAssociation") == (
        "/iam/v2/accountAssociations/{uid}:checkAccountAssociation"
    )
    assert openapi.path_key("/libraries/v2/artifacts/{artifact_id=*}/versions") == (
        "/libraries/v2/artifacts/{artifact_id}/versions"
    )


def test_path_parameters_match_templates(doc: dict[str, Any]) -> None:
    for path, _, op in _operations(doc):
        names = [p["name"] for p in op.get("parameters", []) if p["in"] == "path"]
        assert names == [name for name, _ in openapi.path_vars(path)], path
    get_repo = doc["paths"]["/registry/v2/repos/{uid}"]["get"]
    uid = _params(get_repo, "path")["uid"]
    assert uid["required"] is True
    assert uid["schema"] == {"type": "string", "pattern": openapi.UIDP_PATTERN}
    assert "not URL-encoded" in uid["description"]
    # Merged under one path (UpdateRepo's `{repo.uid}` included).
    assert set(doc["paths"]["/registry/v2/repos/{uid}"]) == {"get", "delete", "patch"}


def test_list_repos_query(doc: dict[str, Any]) -> None:
    op = doc["paths"]["/registry/v2/repos"]["get"]
    q = _params(op, "query")
    expected = {"page_size", "page_token", "order_by", "skip", "uidp.descendants_of", "uidp.children_of", "uidp.ids"}
    assert expected | {"name"} <= set(q)
    assert q["uidp.ids"]["schema"] == {"type": "array", "items": {"type": "string"}, "maxItems": 1000}
    assert q["uidp.ids"]["explode"] is True
    assert q["page_size"]["schema"]["type"] == "integer"
    assert "pageSize" in q["page_size"]["description"]
    assert q["uidp.in_root"]["schema"] == {"type": "boolean"}
    assert "requestBody" not in op
    assert op["x-required-capabilities"] == ["CAP_REPO_LIST"]
    assert op["x-authorization-mode"] == "unscoped"
    assert op["security"] == [{"bearerAuth": []}]


def test_update_repo(doc: dict[str, Any]) -> None:
    op = doc["paths"]["/registry/v2/repos/{uid}"]["patch"]
    assert op["requestBody"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/chainguard.platform.registry.v2.Repo"
    }
    assert set(_params(op, "query")) == {"update_mask"}
    assert set(_params(op, "path")) == {"uid"}
    assert "`repo.uid`" in _params(op, "path")["uid"]["description"]
    assert op["x-authorization-mode"] == "scoped"


def test_body_star_has_no_query_and_drops_path_fields(doc: dict[str, Any]) -> None:
    for m in schema.methods().values():
        for r in m.rules:
            if r.body != "*":
                continue
            op = doc["paths"][openapi.path_key(r.template)][r.verb.lower()]
            assert not _params(op, "query"), r.template
            body = op["requestBody"]["content"]["application/json"]["schema"]
            if "$ref" in body:
                body = _resolve(doc, body["$ref"])
            path_json = {m.input.fields_by_name[n].json_name for n, _ in openapi.path_vars(r.template) if "." not in n}
            assert not path_json & set(body.get("properties", {})), r.template


def test_empty_output_and_errors(doc: dict[str, Any]) -> None:
    op = doc["paths"]["/registry/v2/repos/{uid}"]["delete"]
    out = op["responses"]["200"]["content"]["application/json"]["schema"]
    assert _resolve(doc, out["$ref"])["type"] == "object"
    for code in ("400", "404", "501", "default"):
        resp = _resolve(doc, op["responses"][code]["$ref"])
        assert resp["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Status"}
    status = doc["components"]["schemas"]["Status"]["properties"]
    assert status["code"]["type"] == "integer"
    assert status["message"]["type"] == "string"
    assert "@type" in status["details"]["items"]["properties"]


def test_component_schemas(doc: dict[str, Any]) -> None:
    schemas = doc["components"]["schemas"]
    repo = schemas["chainguard.platform.registry.v2.Repo"]["properties"]
    assert {"uid", "name", "description", "createTime", "updateTime"} <= set(repo)
    assert repo["createTime"] == {"type": "string", "format": "date-time"}
    total = schemas["chainguard.platform.registry.v2.ListReposResponse"]["properties"]["totalCount"]
    assert total == {"type": "string", "format": "int64"}
    items = schemas["chainguard.platform.registry.v2.ListReposResponse"]["properties"]["repos"]
    assert items == {"type": "array", "items": {"$ref": "#/components/schemas/chainguard.platform.registry.v2.Repo"}}
    for name, s in schemas.items():
        assert s.get("type") == "object", name


def test_security(doc: dict[str, Any]) -> None:
    ping = doc["paths"]["/ping/v2/ping"]["get"]
    assert ping["security"] == []
    assert "x-required-capabilities" not in ping
    methods = {m.full_name: m for m in schema.methods().values()}
    shorts = openapi.short_names(list(methods.values()))
    by_id = {op["operationId"]: op for _, _, op in _operations(doc)}
    for m in methods.values():
        if not m.rules:  # v1 GroupInvites.CreateWithGroup: gRPC only
            continue
        op = by_id[f"{shorts[methods[m.impl].service]}_{m.name}"]
        if m.auth_disabled:
            assert op["security"] == []
        else:
            assert op["x-required-capabilities"] == list(m.capabilities)
            assert op["x-authorization-mode"] == ("unscoped" if m.unscoped else "scoped")


def test_refs_resolve(doc: dict[str, Any]) -> None:
    refs = set(_refs(doc))
    assert refs
    for ref in refs:
        _resolve(doc, ref)
        if ref.startswith("#/components/schemas/"):
            assert ref.removeprefix("#/components/schemas/") in doc["components"]["schemas"]


def test_colliding_rules_are_rejected() -> None:
    m = schema.methods()["chainguard.platform.registry.v2.ReposService.GetRepo"]
    other = schema.methods()["chainguard.platform.registry.v2.ReposService.DeleteRepo"]
    clash = methods.MethodInfo(**{**vars(other), "rules": [methods.HttpRule("GET", "/registry/v2/repos/{uid=*}", "")]})
    with pytest.raises(ValueError, match="collides"):
        openapi.document([m, clash], "http://x")


def test_paths_route_to_their_operation(doc: dict[str, Any]) -> None:
    """Filling each documented path with valid values reaches that operation's RPC in the router."""
    router = Router(list(schema.methods().values()))
    shorts = openapi.short_names(list(schema.methods().values()))
    by_id = {
        f"{shorts[schema.methods()[m.impl].service]}_{m.name}{'_v2beta1' if m.impl != m.full_name else ''}"
        + (f"_{r.verb.lower()}" if i else ""): m.full_name
        for m in schema.methods().values()
        for i, r in enumerate(m.rules)
    }
    uid = "0123456789abcdef0123456789abcdef01234567/0123456789abcdef"
    for path, verb, op in _operations(doc):
        concrete = path
        for name, p in _params(op, "path").items():
            concrete = concrete.replace("{" + name + "}", uid if "pattern" in p["schema"] else "seg")
        match = router.match(verb.upper(), concrete)
        assert match is not None, (verb, concrete)
        assert match.route.method.full_name == by_id[op["operationId"]], (verb, concrete)
