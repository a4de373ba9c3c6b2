"""A client of the published contract over gRPC: the contract's method paths and binary messages (our
generated classes are that contract, tests/functional/contract/test_wire_contract.py) get the same data as
HTTP/JSON, for every resource with a CRUD surface, under v2 and v2beta1; paging, masks and filters work at
their numbers.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import grpc
import pytest
from google.protobuf import descriptor_pool, json_format, message_factory
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from platform_api.api import schema
from tests.helpers import Server, mk_repo, wire_facts

schema.methods()  # loads every generated module into the default pool
POOL = descriptor_pool.Default()
DIGEST = "sha256:" + "c" * 64


FACTS = wire_facts.parse()


def contract_json(message: str, data: Any) -> None:
    """Every key of an HTTP answer is a field of the contract's message (by JSON name) or one of our
    extensions (numbered from 1000), recursively."""
    if isinstance(data, list):
        for item in data:
            contract_json(message, item)
        return
    if not isinstance(data, dict) or message.startswith("google.") or message not in FACTS.messages:
        return
    desc = POOL.FindMessageTypeByName(message)
    ours = {f.json_name: f for f in desc.fields}
    for key, value in data.items():
        fact = next((f for f in FACTS.messages[message].fields.values() if f.json_name == key), None)
        if fact is None:
            assert key in ours and ours[key].number >= 1000, f"{message}.{key} is neither contract nor extension"
            continue
        type_ = fact.type.split(", ")[-1].rstrip(">") if fact.type.startswith("map<") else fact.type
        if fact.type.startswith("map<"):
            for v in value.values():
                contract_json(type_, v)
        else:
            contract_json(type_, value)


def proto_json(message: str, data: dict[str, Any]) -> dict[str, Any]:
    """HTTP JSON as protobuf writes it (`...:06Z` for `...:06.000Z`), to compare with a gRPC answer."""
    cls = message_factory.GetMessageClass(POOL.FindMessageTypeByName(message))
    return json_format.MessageToDict(json_format.ParseDict(data, cls()))


def call(channel: grpc.Channel, service: str, method: str, request: dict[str, Any]) -> dict[str, Any]:
    """What a generated stub does: serialize the request message, POST /<service>/<method>, parse."""
    m = POOL.FindServiceByName(service).methods_by_name[method]
    req = json_format.ParseDict(request, message_factory.GetMessageClass(m.input_type)())
    out_cls = message_factory.GetMessageClass(m.output_type)
    rpc = channel.unary_unary(
        f"/{service}/{method}",
        request_serializer=lambda m: m.SerializeToString(),
        response_deserializer=out_cls.FromString,
    )
    return json_format.MessageToDict(rpc(req, timeout=15))


@dataclass
class Resource:
    service: str  # relative to chainguard.platform, e.g. iam.v2.GroupsService
    singular: str  # Group
    collection: str  # HTTP collection, e.g. /iam/v2/groups
    field: str  # request field of the resource, e.g. group
    body: Callable[[Server, str], dict[str, Any]]
    update: dict[str, Any]  # fields to change, with an explicit mask
    parent: Callable[[Server, str], str] = lambda s, org: org
    # (parent, created resource) -> List request filter selecting exactly that resource
    list_filter: Callable[[str, dict[str, Any]], dict[str, Any]] = lambda parent, _: {"uidp": {"childrenOf": parent}}


def _identity(_: Server, __: str) -> dict[str, Any]:
    return {"name": "robot", "claimMatch": {"issuer": "https://issuer.example", "subject": secrets.token_hex(4)}}


def _binding(s: Server, org: str) -> dict[str, Any]:
    ident = s.http.post(f"/iam/v2/identities/{org}", json=_identity(s, org)).json()["uid"]
    return {"identityUid": ident, "roleUid": "63921b2c44617e3f2603851537be0123af4a57d7"}


def _repo_parent(s: Server, org: str) -> str:
    return str(mk_repo(s.http, org, "r" + secrets.token_hex(3))["uid"])


# Subscriptions over gRPC are tested with a loopback webhook receiver in tests/functional/events/test_events.py
# (test_over_grpc).
RESOURCES = [
    Resource("iam.v2.GroupsService", "Group", "/iam/v2/groups", "group",
             lambda s, o: {"name": "team", "description": "d"}, {"description": "changed"}),
    Resource("registry.v2.ReposService", "Repo", "/registry/v2/repos", "repo",
             lambda s, o: {"name": "nginx", "aliases": ["nginx:1"], "activeTags": ["latest"]}, {"description": "web"}),
    Resource("iam.v2.IdentitiesService", "Identity", "/iam/v2/identities", "identity", _identity,
             {"description": "bot"}),
    Resource("iam.v2.RolesService", "Role", "/iam/v2/roles", "role",
             lambda s, o: {"name": "reader", "capabilities": ["CAP_REPO_LIST", "CAP_TAG_LIST"]},
             {"capabilities": ["CAP_REPO_LIST"]}),
    Resource("iam.v2.RoleBindingsService", "RoleBinding", "/iam/v2/roleBindings", "roleBinding", _binding,
             {"roleUid": "63921b2c44617e3f2603851537be0123af4a57d7"},
             list_filter=lambda p, made: {"identity": made["identity"]["uid"]}),
    Resource("registry.v2.TagsService", "Tag", "/registry/v2/tags", "tag",
             lambda s, o: {"name": "latest", "digest": DIGEST}, {}, parent=_repo_parent),
]  # fmt: skip


def _without_secrets(d: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if k != "secret"}


@pytest.mark.parametrize("version", ["v2", "v2beta1"])
@pytest.mark.parametrize("res", RESOURCES, ids=lambda r: r.singular)
def test_crud_over_grpc_matches_http(server: Server, org: str, res: Resource, version: str) -> None:
    service = f"chainguard.platform.{res.service}".replace(".v2.", f".{version}.")
    collection = res.collection.replace("/v2/", f"/{version}/")
    ch, http = server.channel, server.http
    parent = res.parent(server, org)
    made = call(ch, service, f"Create{res.singular}", {"parent": parent, res.field: res.body(server, org)})
    uid = made["uid"]
    resource = f"chainguard.platform.{res.service.split('.')[0]}.v2.{res.singular}"
    fetched = http.get(f"{collection}/{uid}").json()
    contract_json(resource, fetched)
    assert _without_secrets(made) == _without_secrets(proto_json(resource, fetched))
    got = call(ch, service, f"Get{res.singular}", {"uid": uid})
    assert got == proto_json(resource, http.get(f"{res.collection}/{uid}").json())  # same data in both versions

    # List at the contract's numbers for the filter and paging fields.
    plural = "Identities" if res.singular == "Identity" else res.singular + "s"
    listed = call(ch, service, f"List{plural}", {**res.list_filter(parent, made), "pageSize": 1})
    listed.setdefault("skipped", 0)  # binary int32 0 is absent; our JSON always says it (README)
    items = next(v for k, v in listed.items() if isinstance(v, list))
    assert [i["uid"] for i in items] == [uid] and listed["totalCount"] == "1"
    http_list = http.get(collection, params={"page_size": 1, **_query(res.list_filter(parent, made))}).json()
    listing = f"chainguard.platform.{res.service.split('.')[0]}.v2.List{plural}Response"
    assert listed == {**proto_json(listing, http_list), "skipped": http_list["skipped"]}
    contract_json(f"chainguard.platform.{res.service.split('.')[0]}.v2.List{plural}Response", http_list)

    if res.update:
        mask = ",".join(res.update)  # JSON spelling of a FieldMask: camelCase paths
        changed = call(
            ch, service, f"Update{res.singular}", {res.field: {"uid": uid, **res.update}, "updateMask": mask}
        )
        # A binding answers its role as a nested object (role.uid), the others echo the fields.
        echoed = {"roleUid": changed.get("role", {}).get("uid"), **changed}
        assert all(echoed[k] == v for k, v in res.update.items())
        assert changed == proto_json(resource, http.get(f"{collection}/{uid}").json())
    call(ch, service, f"Delete{res.singular}", {"uid": uid})
    assert http.get(f"{collection}/{uid}").status_code == 404


def _snake(name: str) -> str:
    return "".join("_" + c.lower() if c.isupper() else c for c in name)


def _query(f: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in f.items():
        if isinstance(v, dict):
            out.update({f"{k}.{_snake(kk)}": vv for kk, vv in v.items()})
        else:
            out[k] = v
    return out


def test_paging_over_grpc_at_contract_numbers(server: Server, org: str) -> None:
    for i in range(5):
        server.http.post(f"/registry/v2/repos/{org}", json={"name": f"repo-{i}"})
    service = "chainguard.platform.registry.v2.ReposService"
    seen: list[str] = []
    token = ""
    while True:
        req = {"uidp": {"childrenOf": org}, "pageSize": 2, "orderBy": "name desc", "pageToken": token}
        page = call(server.channel, service, "ListRepos", req)
        seen += [r["name"] for r in page.get("repos", [])]
        token = page.get("nextPageToken", "")
        if not token:
            break
    assert seen == [f"repo-{i}" for i in reversed(range(5))]
    skipped = call(server.channel, service, "ListRepos", {"uidp": {"childrenOf": org}, "orderBy": "name", "skip": 3})
    assert [r["name"] for r in skipped["repos"]] == ["repo-3", "repo-4"] and skipped["skipped"] == 3
    exact = call(server.channel, service, "ListRepos", {"uidp": {"childrenOf": org}, "name": "repo-2"})
    assert [r["name"] for r in exact["repos"]] == ["repo-2"]


def test_ping_over_grpc_both_versions(server: Server) -> None:
    assert call(grpc.insecure_channel(server.grpc_target), "chainguard.platform.ping.v2.PingService", "Ping", {}) == {
        "response": "pong"
    }


def test_every_contract_capability_is_accepted_in_a_role(server: Server, org: str) -> None:
    from platform_api.auth import capabilities as caps

    grantable = [n for n in caps.BIT if n not in caps.INTERNAL_ONLY and n != "CAP_INTERNAL"]
    assert len(grantable) + len(caps.INTERNAL_ONLY) + 1 == 216
    owned = [n for n in grantable if caps.mask([n]) & caps.OWNER.capabilities]
    r = server.http.post(f"/iam/v2/roles/{org}", json={"name": "everything-owned", "capabilities": owned})
    assert r.status_code == 200, r.text
    assert set(r.json()["capabilities"]) == set(owned)
    role = call(server.channel, "chainguard.platform.iam.v2.RolesService", "GetRole", {"uid": r.json()["uid"]})
    assert set(role["capabilities"]) == set(owned)  # binary enum numbers round-trip to the same names
    # A capability the owner does not hold is refused for escalation, not as an unknown name.
    not_owned = next(n for n in grantable if not caps.mask([n]) & caps.OWNER.capabilities)
    r = server.http.post(f"/iam/v2/roles/{org}", json={"name": "more", "capabilities": [not_owned]})
    assert r.status_code == 403, r.text
    internal = sorted(caps.INTERNAL_ONLY)[0]
    r = server.http.post(f"/iam/v2/roles/{org}", json={"name": "internal", "capabilities": [internal]})
    assert r.status_code == 400 and "CAP_INTERNAL" in r.json()["message"], r.text
    r = server.http.post(f"/iam/v2/roles/{org}", json={"name": "bogus", "capabilities": ["CAP_NOT_A_THING"]})
    assert r.status_code == 400, r.text


def test_reflection_lists_contract_and_v2beta1_services(server: Server) -> None:
    stub = reflection_pb2_grpc.ServerReflectionStub(grpc.insecure_channel(server.grpc_target))
    answers = stub.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(list_services="")]), timeout=10)
    names = {s.name for a in answers for s in a.list_services_response.service}
    want = {"registry.v2.ReposService", "registry.v2beta1.ReposService", "iam.v2beta1.GroupsService",
            "oidc.SecurityTokenService", "auth.Auth"}  # fmt: skip
    assert {"chainguard.platform." + w for w in want} <= names


def test_openapi_lists_v2beta1(server: Server) -> None:
    paths = server.http.get("/openapi.json").json()["paths"]
    assert "/registry/v2beta1/repos" in paths and "/registry/v2/repos" in paths
