"""The v1 contract over the wire, walked from tests/fixtures/wire-v1.md (a method the contract adds is walked
too): every v1 method we declare but do not serve answers a structured UNIMPLEMENTED, over gRPC (google.rpc.Status
with ErrorInfo) and over HTTP at its contract route (501 code 12), to any authenticated caller whatever the
scope, naming the method it reached; anonymous callers get UNAUTHENTICATED, as on every route but the public
ones. A method that no service of ours has (the vendor's product-only services, a moved or misspelt method)
answers the same structured UNIMPLEMENTED over gRPC, whatever its streaming kind; its HTTP path, unknown to
us, is NOT_FOUND like every unknown route (docs/reference/wire-contract.md)."""

from __future__ import annotations

import re
from typing import Any

import grpc
import httpx
from google.rpc import status_pb2

from platform_api import app
from tests.helpers import TIMEOUT, Server, assert_error, error_info, wire_facts

FACTS = wire_facts.parse(wire_facts.WIRE_V1)
DOMAIN = "platform-api.local"
# Served now (what the domains contribute: README, Wire contract); every other v1 method is walked here.
SERVED = {f"{s}.{m.name}" for s, methods in FACTS.services.items() for m in methods.values()} & set(app.HANDLERS)
METHODS = [
    (service, m)
    for service, methods in sorted(FACTS.services.items())
    for m in methods.values()
    if f"{service}.{m.name}" not in SERVED
]
# Paths of services no proto of ours declares (the vendor's product-only services: v2beta1 overlays and
# request groups; v1 npm, malware and marketplace services), of a v1 call that is not its service's in the
# contract, and of no service at all: (gRPC path, ErrorInfo domain's area).
UNKNOWN = [
    ("/chainguard.platform.registry.v2beta1.OverlaysService/ListOverlays", "registry"),
    ("/chainguard.platform.registry.v2beta1.OverlayBindingsService/ListOverlayBindings", "registry"),
    ("/chainguard.platform.libraries.v2beta1.RequestGroupsService/ListRequestGroups", "libraries"),
    ("/chainguard.platform.libraries.Npm/ListPackages", "libraries"),
    ("/chainguard.platform.registry.Registry/ListVulnCountReports", "registry"),  # Vulnerabilities' in the contract
    ("/chainguard.platform.iam.v2.GroupsService/NoSuchMethod", "iam"),
    ("/no.such.Service/Method", "api"),
]


def _area(service: str) -> str:
    return service.split(".")[2]


def _grpc_answer(call: Any, request: Any) -> tuple[str, str, str, str]:
    """(code name, ErrorInfo reason, ErrorInfo domain, message) of a call; a bare status has no reason."""
    try:
        call(request, timeout=TIMEOUT)
    except grpc.RpcError as e:
        raw = dict(e.trailing_metadata() or ()).get("grpc-status-details-bin")
        if raw is None:
            return e.code().name, "", "", e.details() or ""
        info = error_info(status_pb2.Status.FromString(raw))
        return e.code().name, info.reason, info.domain, e.details() or ""
    return "OK", "", "", ""


def _drained(call: Any) -> Any:
    """A streaming call as a callable that reads every answer (a stream's status comes at its end)."""
    return lambda request, timeout: list(call(request, timeout=timeout))


def test_every_unserved_v1_method_is_unimplemented_over_grpc(server: Server) -> None:
    """An empty request: the answer does not depend on the scope (the owner lacks some capabilities here,
    e.g. CAP_ADVISORIES_CREATE, and would be refused before anything else if it did)."""
    wrong = {}
    for service, m in METHODS:
        got = _grpc_answer(server.channel.unary_unary(f"/{service}/{m.name}"), b"")
        full = f"{service}.{m.name}"
        want = ("UNIMPLEMENTED", "UNIMPLEMENTED", f"{_area(service)}.{DOMAIN}")
        if got[:3] != want or full not in got[3]:
            wrong[full] = got
    assert wrong == {}


def test_unserved_v1_methods_want_a_token_unless_public(server: Server) -> None:
    wrong = {}
    with server.grpc_channel(None) as anonymous:
        for service, m in METHODS:
            got = _grpc_answer(anonymous.unary_unary(f"/{service}/{m.name}"), b"")[:2]
            want = ("UNIMPLEMENTED",) * 2 if m.public else ("UNAUTHENTICATED",) * 2
            if got != want:
                wrong[f"{service}.{m.name}"] = got
    assert wrong == {}
    # The contract's public methods, less those served now (all three are: the walk has none left to try).
    public = {
        "chainguard.platform.advisory.SecurityAdvisory.ListDocuments",
        "chainguard.platform.advisory.SecurityAdvisory.ListVulnerabilityMetadata",
        "chainguard.platform.ping.PingService.Ping",
    }
    assert sorted(f"{s}.{m.name}" for s, m in METHODS if m.public) == sorted(public - SERVED)


def _sample_path(template: str, org: str) -> str:
    """The template with a uid path for each greedy variable and a digest for each one-segment variable."""
    path = re.sub(r"\{[^}=]+=\*\*\}", f"{org}/{'b' * 16}", template)
    return re.sub(r"\{[^}]+\}", "sha256:" + "c" * 64, path)


def _sample_body(request: str, body: str) -> Any:
    """A body of the rule's shape: the request (`*`) or a message field as an object, a list field as an array,
    an enum field as one of its names (v1 entitlements bind the body to `ecosystem`)."""
    if not body:
        return None
    if body == "*":
        return {}
    f = FACTS.messages[request].fields[body]
    if f.label == "repeated":
        return []
    return next(iter(FACTS.enums[f.type])) if f.type in FACTS.enums else {}


def _http_answer(r: httpx.Response) -> tuple[int, int, str, str]:
    try:
        body = r.json()
        info = body["details"][0]
        return r.status_code, body["code"], info["reason"], info["domain"]
    except (ValueError, KeyError, IndexError, TypeError):
        return r.status_code, 0, "", r.text[:80]


def test_every_unserved_v1_route_is_unimplemented_over_http(server: Server, org: str, anon: httpx.Client) -> None:
    wrong: dict[str, Any] = {}
    routes = 0
    for service, m in METHODS:
        for h in m.http:
            routes += 1
            path = _sample_path(h.path, org)
            body = _sample_body(m.request, h.body)
            r = server.http.request(h.verb, path, json=body)
            want = (501, 12, "UNIMPLEMENTED", f"{_area(service)}.{DOMAIN}")
            # The message names the method the route reached (batch/{parent} is CreateBatch's, not Create's).
            if _http_answer(r) != want or f"{service}.{m.name}" not in r.json().get("message", ""):
                wrong[f"{h.verb} {h.path}"] = _http_answer(r)
            a = anon.request(h.verb, path, json=body)
            want_anon = want[:3] if m.public else (401, 16, "UNAUTHENTICATED")
            if _http_answer(a)[:3] != want_anon:
                wrong[f"anonymous {h.verb} {h.path}"] = _http_answer(a)
    assert wrong == {}
    assert routes == sum(len(m.http) for _, m in METHODS)
    # The walk reaches the product-only calls, which are never served (docs/reference/wire-contract.md).
    walked = {f"{service}.{m.name}" for service, m in METHODS}
    assert walked >= {f"chainguard.platform.{n}" for n in PRODUCT_ONLY}, sorted(walked)


def test_no_v2_route_is_unimplemented(server: Server, org: str) -> None:
    """Every v2 route of the contract (tests/fixtures/wire-v2.md) is built: none answers 501 UNIMPLEMENTED to its
    sample request (issue 27; the last one built was checkAccountAssociation)."""
    facts = wire_facts.parse()
    wrong: dict[str, Any] = {}
    routes = 0
    for methods in facts.services.values():
        for m in methods.values():
            for h in m.http:
                routes += 1
                r = server.http.request(h.verb, _sample_path(h.path, org), json={} if h.body else None)
                if r.status_code == 501:
                    wrong[f"{h.verb} {h.path}"] = r.json().get("message")
    assert routes > 70 and wrong == {}


PRODUCT_ONLY = ("registry.Apko.BuildImage", "registry.Registry.GetHelm", "registry.Registry.GetRegistrySettings",
                "libraries.Entitlements.Create")  # fmt: skip


def test_a_method_no_service_has_is_a_structured_unimplemented(server: Server) -> None:
    """grpcio alone answers these with a bare "Method not found!" (no status details): clients that read
    google.rpc.Status (the vendor's SDK) then see no ErrorInfo."""
    wrong = {}
    with server.grpc_channel(None) as anonymous:
        for path, area in UNKNOWN:
            want = ("UNIMPLEMENTED", "UNIMPLEMENTED", f"{area}.{DOMAIN}")
            answers = {
                "unary": _grpc_answer(server.channel.unary_unary(path), b""),
                "anonymous": _grpc_answer(anonymous.unary_unary(path), b""),
                "stream": _grpc_answer(_drained(anonymous.stream_stream(path)), iter([b"\x0a\x01x", b""])),
                "server stream": _grpc_answer(_drained(anonymous.unary_stream(path)), b""),
            }
            for kind, got in answers.items():
                if got[:3] != want or path not in got[3]:
                    wrong[f"{kind} {path}"] = got
    assert wrong == {}


def test_a_very_long_unknown_method_is_quoted_short(server: Server) -> None:
    path = "/no.such.Service/" + "M" * 5000
    code, reason, _, message = _grpc_answer(server.channel.unary_unary(path), b"")
    assert (code, reason) == ("UNIMPLEMENTED", "UNIMPLEMENTED") and len(message) < 300


def test_a_product_only_http_path_is_not_found(http: httpx.Client) -> None:
    """We know no HTTP rule of the services we do not declare: their paths are unknown routes (404 code 5)."""
    for path in ("/registry/v2beta1/overlays", "/libraries/v2beta1/requestGroups", "/registry/v1/npm/packages"):
        body = assert_error(http.get(path), 404, 5)
        assert body["details"][0]["domain"].endswith(DOMAIN)
