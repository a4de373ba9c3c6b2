"""OpenAPI 3.0.3 document generated from the contract: exactly the HTTP surface the server transcodes.

Everything comes from `schema.methods()` and the message descriptors, classified with the same
`transcode.fields_of` the server uses, so the document cannot drift from the routes:
- one path item per google.api.http template; `{uid=**}` becomes the path parameter `{uid}` (a raw
  uid path, slashes included), a nested name like `{repo.uid}` is named by its last part (`{uid}`: the
  same template as GetRepo's, which OpenAPI requires to be one path item, and a name that tools which
  fill templates with format strings can use), `:verb` suffixes stay literal;
- query parameters are the scalar request fields bound neither to the path nor to the body, nested
  message fields flattened with dot paths (`uidp.descendants_of`); with body `*` there are none
  (the server ignores the query string then);
- component schemas use JSON names and the canonical JSON forms (int64 as strings, enums as names,
  Timestamps as RFC 3339 strings); errors are google.rpc.Status bodies.
"""

from __future__ import annotations

from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor

from platform_api.api import caps, transcode
from platform_api.api.router import parse_template
from platform_api.service.methods import HttpRule, MethodInfo

UIDP_PATTERN = r"^[0-9a-f]{40}(/[0-9a-f]{16})*$"
# Greedy path variables the server also accepts empty: `POST /iam/v2/groups/` creates a root organization.
_MAY_BE_EMPTY = {("chainguard.platform.iam.v2.GroupsService.CreateGroup", "parent")}
_UIDP_OR_EMPTY_PATTERN = r"^([0-9a-f]{40}(/[0-9a-f]{16})*)?$"
_DURATION_PATTERN = r"^-?\d+(\.\d{1,9})?s$"
_UNSIGNED = {FieldDescriptor.TYPE_UINT32, FieldDescriptor.TYPE_FIXED32}
_EMPTY = "google.protobuf.Empty"
STATUS = "Status"
SCHEMAS = "#/components/schemas/"
RESPONSES = "#/components/responses/"

_ERRORS = {
    "BadRequest": (
        "400",
        "INVALID_ARGUMENT (a BadRequest detail names the fields), FAILED_PRECONDITION or OUT_OF_RANGE.",
    ),
    "Unauthenticated": ("401", "UNAUTHENTICATED: missing or invalid bearer token."),
    "PermissionDenied": ("403", "PERMISSION_DENIED: the caller lacks a required capability in the scope."),
    "NotFound": ("404", "NOT_FOUND: the resource, or the route, does not exist."),
    "PayloadTooLarge": ("413", "RESOURCE_EXHAUSTED: the request body is larger than 1 MiB."),
    "Unimplemented": ("501", "UNIMPLEMENTED: a wrong method on a known path, or a route not built yet."),
    # Not the API's answer: the HTTP server's, before any route runs (a query string of many long values
    # reaches it before a repeated field's cap does).
    "UriTooLong": ("414", "URI Too Long: the request line is over 64 KiB; the HTTP server answers, with no body."),
    "RateLimited": (
        "429",
        "RESOURCE_EXHAUSTED: over a rate limit, the token routes' or the anonymous routes' per client, the account "
        "association check's per association (ErrorInfo reason RATE_LIMITED, metadata retryAfterSeconds); "
        "`Retry-After` says when to retry.",
    ),
    # RequestGroupAccess (signin/joining.py) within the cool-down.
    "AccessRequestedRecently": (
        "429",
        "RESOURCE_EXHAUSTED: the caller asked this organization for access within the cool-down (ErrorInfo "
        "reason ACCESS_ALREADY_REQUESTED, google.rpc.RetryInfo); `Retry-After` says when to ask again.",
    ),
}
# Authenticated methods with a rate limit of their own (iam/account_association_check.py: per association).
_RATE_LIMITED = {
    "chainguard.platform.iam.v2.AccountAssociationsService.CheckAccountAssociation",
    "chainguard.platform.iam.GroupAccountAssociations.Check",
}
# The token routes (src/platform_api/api/sts_routes.py): Starlette routes served before the API router, sharing
# their implementation with gRPC. Not transcoded: parameters come from the query string or, for the STS
# routes, a form body; the bearer is not the API's access token (so no `bearerAuth`) but what the value
# here names; every attempt is rate limited; no NOT_FOUND for the route itself.
_TOKEN_ROUTES = {
    "chainguard.platform.oidc.SecurityTokenService.Exchange": (
        "an upstream OIDC token that the identity's `claimMatch` or `staticKeys` accepts (or a `--trusted-issuer` "
        "user's)"
    ),
    "chainguard.platform.oidc.SecurityTokenService.ExchangeRefreshToken": "a refresh token from an earlier exchange",
    "chainguard.platform.auth.Auth.Register": (
        "the caller's access token, or on first contact a `--trusted-issuer` token (which registers its user)"
    ),
}
_REGISTER = "chainguard.platform.auth.Auth.Register"


def path_key(template: str) -> str:
    """The OpenAPI path of an http rule template: `{x=**}` -> `{x}`, `{a.x}` -> `{x}`, everything else literal."""
    parts = parse_template(template).parts()
    return "".join(text if name is None else "{" + _param_name(name) + "}" for name, text in parts)


def _param_name(field_path: str) -> str:
    return field_path.rsplit(".", 1)[-1]


def path_vars(template: str) -> list[tuple[str, str]]:
    """(request field path, segment pattern) of each variable: `("repo.uid", "**")`, `("digest", "*")`."""
    t = parse_template(template)
    return [(name, "**" if name == t.greedy else "*") for name, _ in t.parts() if name is not None]


def _summary(name: str) -> str:
    words = "".join(" " + c if i and "A" <= c <= "Z" else c for i, c in enumerate(name)).split()
    return " ".join([words[0], *(w.lower() for w in words[1:])]) if words else name


def _ref(name: str) -> dict[str, Any]:
    return {"$ref": SCHEMAS + name}


class _Schemas:
    """Component schemas of the messages reached from the operations, built on first reference."""

    def __init__(self) -> None:
        self.components: dict[str, Any] = {}

    def message(self, desc: Descriptor) -> dict[str, Any]:
        name = desc.full_name
        if name not in self.components:
            self.components[name] = {}  # placeholder first: recursive messages end here
            self.components[name] = self._object(desc)
        return _ref(name)

    def _object(self, desc: Descriptor) -> dict[str, Any]:
        if desc.full_name == _EMPTY:
            return {"type": "object", "description": "An empty JSON object: `{}`."}
        props = {f.json: self.field(f) for f in _fields(desc)}
        out: dict[str, Any] = {"type": "object"}
        if props:
            out["properties"] = props
        return out

    def field(self, f: transcode.Field) -> dict[str, Any]:
        if f.kind == "map":
            assert f.map_value is not None
            return {"type": "object", "additionalProperties": self.single(f.map_value), **_cap("maxProperties", f)}
        if f.repeated:
            return {"type": "array", "items": self.single(f), **_cap("maxItems", f)}
        return self.single(f)

    def single(self, f: transcode.Field) -> dict[str, Any]:
        if f.kind == "message":
            assert f.message is not None
            return self.message(f.message)
        if f.kind == "empty":
            return self.message(f.fd.message_type)
        return scalar(f)


def _cap(keyword: str, f: transcode.Field) -> dict[str, int]:
    """The field's declared cap (`platformapi.annotations.max_items`) as a JSON Schema keyword."""
    limit = caps.declared(f.fd)
    return {keyword: limit} if limit else {}


def _fields(desc: Descriptor) -> list[transcode.Field]:
    by_name = transcode.fields_of(desc)
    return [by_name[fd.name] for fd in desc.fields]


def scalar(f: transcode.Field) -> dict[str, Any]:
    """Schema of a non-message value in its canonical JSON form (also its query-string form)."""
    k = f.kind
    if k == "bool":
        return {"type": "boolean"}
    if k == "int32":
        if f.fd.type in _UNSIGNED:
            return {"type": "integer", "format": "int64", "minimum": 0, "maximum": 2**32 - 1}
        return {"type": "integer", "format": "int32"}
    if k == "int64":
        return {"type": "string", "format": "int64"}
    if k == "float":
        return {"type": "number", "format": "double" if f.fd.type == FieldDescriptor.TYPE_DOUBLE else "float"}
    if k == "enum":
        return {"type": "string", "enum": [v.name for v in f.fd.enum_type.values]}
    if k == "bytes":
        return {"type": "string", "format": "byte"}
    if k == "timestamp":
        return {"type": "string", "format": "date-time"}
    if k == "duration":
        return {"type": "string", "pattern": _DURATION_PATTERN, "example": "3600s"}
    if k == "fieldmask":
        limit = caps.declared(f.fd)
        most = f", at most {limit}" if limit else ""
        return {"type": "string", "description": f"Comma-separated field paths (proto names){most}."}
    return {"type": "string"}


def _resolve(desc: Descriptor, dotted: str) -> transcode.Field | None:
    """The request field at a dotted proto path, or None."""
    d: Descriptor | None = desc
    f: transcode.Field | None = None
    for part in dotted.split("."):
        if d is None:
            return None
        f = transcode.fields_of(d).get(part)
        if f is None:
            return None
        d = f.message
    return f


def query_fields(
    desc: Descriptor, excluded: set[str], prefix: tuple[str, str] = ("", ""), seen: tuple[str, ...] = ()
) -> list[tuple[str, str, transcode.Field]]:
    """(proto path, JSON path, field) of every field a query parameter can set (see transcode.set_path)."""
    out: list[tuple[str, str, transcode.Field]] = []
    for f in _fields(desc):
        proto, json = prefix[0] + f.proto, prefix[1] + f.json
        if proto in excluded or f.kind in ("map", "empty"):
            continue
        if f.kind == "message":
            if f.repeated or f.message is None or f.message.full_name in seen:
                continue
            out.extend(query_fields(f.message, excluded, (proto + ".", json + "."), (*seen, desc.full_name)))
            continue
        out.append((proto, json, f))
    return out


def _path_parameter(m: MethodInfo, name: str, pattern: str) -> dict[str, Any]:
    if pattern == "**":
        empty = (m.full_name, name) in _MAY_BE_EMPTY
        text = (
            f"Request field `{name}`: a uid path (40 hex, then `/`16 hex per level), placed in the path raw, "
            "slashes included, not URL-encoded."
        )
        if empty:
            text += " Empty (the path ends in `/`) creates a root organization."
        schema = {"type": "string", "pattern": _UIDP_OR_EMPTY_PATTERN if empty else UIDP_PATTERN}
    else:
        f = _resolve(m.input, name)
        schema = scalar(f) if f is not None and f.kind not in ("message", "map", "empty") else {"type": "string"}
        text = f"Request field `{name}`: one path segment."
    return {"name": _param_name(name), "in": "path", "required": True, "description": text, "schema": schema}


def _query_parameter(proto: str, json: str, f: transcode.Field) -> dict[str, Any]:
    text = f"Request field `{proto}`" + (f"; the camelCase name `{json}` is also accepted." if json != proto else ".")
    if f.kind == "enum":
        text += " Enum numbers are also accepted."
    param: dict[str, Any] = {"name": proto, "in": "query", "required": False, "schema": scalar(f)}
    if f.repeated:
        text += " Repeat the parameter for several values."
        param.update(schema={"type": "array", "items": scalar(f), **_cap("maxItems", f)}, style="form", explode=True)
    param["description"] = text
    return param


def _request_body(m: MethodInfo, rule: HttpRule, path_fields: set[str], schemas: _Schemas) -> dict[str, Any]:
    if rule.body == "*":
        top = {p for p in path_fields if "." not in p}
        if not top:
            schema = schemas.message(m.input)
        else:
            props = {f.json: schemas.field(f) for f in _fields(m.input) if f.proto not in top}
            schema = {"type": "object", "properties": props} if props else {"type": "object"}
        text = "The request message (JSON or proto field names); fields bound to the path are taken from the path."
    else:
        f = transcode.fields_of(m.input)[rule.body]
        schema = schemas.field(f)  # an object, or the array or value of a list or scalar field
        text = f"Request field `{rule.body}` (JSON or proto field names); fields bound to the path are taken from it."
    if m.mask_from_body:
        text += " Without `update_mask`, the keys present in the body are the mask."
    return {"description": text, "required": False, "content": {"application/json": {"schema": schema}}}


def _form_body(m: MethodInfo) -> dict[str, Any]:
    """The token exchange routes also read their parameters from a form body (the SDK's HTTP/1 fallback)."""
    props = {proto: _query_parameter(proto, json, f)["schema"] for proto, json, f in query_fields(m.input, set())}
    return {
        "description": "The same parameters as the query string, form-encoded (both are read).",
        "required": False,
        "content": {"application/x-www-form-urlencoded": {"schema": {"type": "object", "properties": props}}},
    }


def _token_route(m: MethodInfo, rule: HttpRule, op: dict[str, Any]) -> None:
    """Adjusts the generated operation of a token route (see _TOKEN_ROUTES) to what the route does."""
    if rule.verb == "POST" and not rule.body:
        op["requestBody"] = _form_body(m)
    errors = ["BadRequest", "Unauthenticated", "RateLimited", "Unimplemented", "UriTooLong"]
    if rule.verb == "POST":
        errors.append("PayloadTooLarge")
    if m.full_name == _REGISTER:
        errors += ["PermissionDenied", "NotFound"]  # an invite for someone else; an unknown, spent or expired code
    responses = {k: v for k, v in op["responses"].items() if k in ("200", "default")}
    for name in errors:
        responses[_ERRORS[name][0]] = {"$ref": RESPONSES + name}
    op["responses"] = dict(sorted(responses.items()))
    op["description"] = (
        f"gRPC `{m.grpc_path}`. Requires `Authorization: Bearer <token>`, where the token is "
        f"{_TOKEN_ROUTES[m.full_name]}: the route verifies it itself (hence no `security` requirement). Rate "
        "limited per client address and per requested identity."
    )


def short_names(methods: list[MethodInfo]) -> dict[str, str]:
    """Each service's name in operation ids and tags: its own (`GroupsService`, v1 `Groups`), unless a service
    of another version has it too (`PingService` of v1 and v2): then the unversioned v1 one is `PingServiceV1`."""
    services = {m.service for m in methods if m.impl == m.full_name}
    names: dict[str, list[str]] = {}
    for service in services:
        names.setdefault(service.rsplit(".", 1)[-1], []).append(service)
    out = {}
    for name, same in names.items():
        for service in same:
            version = service.rsplit(".", 2)[-2]
            versioned = version[:1] == "v" and version[1:2].isdigit()
            out[service] = name if len(same) == 1 or versioned else name + "V1"
    return out


def _operation(called: MethodInfo, rule: HttpRule, schemas: _Schemas, m: MethodInfo, short: str) -> dict[str, Any]:
    """`called` is the RPC the path reaches; `m` the one whose messages describe it: the same, except for a
    v2beta1 alias, whose request and response are documented as the v2 method's (one schema each); `short`
    names `m`'s service (short_names)."""
    suffix = "" if called is m else "_" + called.service.split(".")[-2]
    if called.rules.index(rule) > 0:  # an additional binding (GET /sts/exchange): operation ids are unique
        suffix += "_" + rule.verb.lower()
    vars_ = path_vars(rule.template)
    path_fields = {name for name, _ in vars_}
    if len({_param_name(name) for name in path_fields}) != len(vars_):
        raise ValueError(f"{rule.template}: path parameter names collide once shortened")
    params = [_path_parameter(m, name, pattern) for name, pattern in vars_]
    if rule.body != "*":  # with body "*" the server ignores the query string
        excluded = path_fields | ({rule.body} if rule.body else set())
        params += [_query_parameter(p, j, f) for p, j, f in query_fields(m.input, excluded)]
    description = f"gRPC `{called.grpc_path}`."
    op: dict[str, Any] = {
        "operationId": f"{short}_{m.name}{suffix}",
        "tags": [short],
        "summary": _summary(m.name),
    }
    if params:
        op["parameters"] = params
    if rule.body:
        op["requestBody"] = _request_body(m, rule, path_fields, schemas)
    responses: dict[str, Any] = {
        "200": {
            "description": "OK" + (" (`{}`)" if m.output.full_name == _EMPTY else ""),
            "headers": {"x-request-id": {"$ref": "#/components/headers/RequestId"}},
            "content": {"application/json": {"schema": schemas.message(m.output)}},
        }
    }
    errors = ["BadRequest", "NotFound", "Unimplemented"]
    if not m.auth_disabled:
        errors += ["Unauthenticated", "PermissionDenied"]
    else:
        errors.append("RateLimited")  # the anonymous routes' per-client limit
    if rule.body:
        errors.append("PayloadTooLarge")
    if any(p["in"] == "query" for p in params):
        errors.append("UriTooLong")
    if m.name == "RequestGroupAccess":
        errors.append("AccessRequestedRecently")
    if m.impl in _RATE_LIMITED:
        errors.append("RateLimited")
    for name in sorted(errors, key=lambda e: _ERRORS[e][0]):
        responses[_ERRORS[name][0]] = {"$ref": RESPONSES + name}
    responses["default"] = {"$ref": RESPONSES + "Error"}
    op["responses"] = responses
    if m.auth_disabled:
        op["security"] = []
        description += " No authentication."
    else:
        op["security"] = [{"bearerAuth": []}]
        op["x-required-capabilities"] = list(m.capabilities)
        op["x-authorization-mode"] = "unscoped" if m.unscoped else "scoped"
        caps = ", ".join(f"`{c}`" for c in m.capabilities) or "none"
        where = "" if m.unscoped or not m.scope_field else f" on the scope of `{m.scope_field}`"
        description += f" Required capabilities{where}: {caps}."
    op["description"] = description
    if m.full_name in _TOKEN_ROUTES:
        _token_route(m, rule, op)
    return op


def _error_components() -> tuple[dict[str, Any], dict[str, Any]]:
    detail = {
        "type": "object",
        "properties": {"@type": {"type": "string", "example": "type.googleapis.com/google.rpc.ErrorInfo"}},
        "required": ["@type"],
        "additionalProperties": True,
    }
    status = {
        "type": "object",
        "description": "google.rpc.Status; `details` always holds an ErrorInfo{reason, domain}.",
        "properties": {
            "code": {"type": "integer", "format": "int32", "description": "The gRPC status code."},
            "message": {"type": "string"},
            "details": {"type": "array", "items": detail},
        },
        "required": ["code", "message", "details"],
    }
    content = {"application/json": {"schema": _ref(STATUS)}}
    headers = {"x-request-id": {"$ref": "#/components/headers/RequestId"}}
    responses: dict[str, Any] = {
        name: {"description": text, "headers": headers, "content": content} for name, (_, text) in _ERRORS.items()
    }
    retry_after = {"description": "Seconds to wait before retrying.", "schema": {"type": "integer", "minimum": 1}}
    responses["RateLimited"]["headers"] = {**headers, "Retry-After": retry_after}
    responses["AccessRequestedRecently"]["headers"] = {**headers, "Retry-After": retry_after}
    responses["Error"] = {"description": "Any other error (google.rpc.Status).", "headers": headers, "content": content}
    responses["UriTooLong"] = {"description": _ERRORS["UriTooLong"][1]}
    return status, responses


def document(methods: list[MethodInfo], server_url: str) -> dict[str, Any]:
    """The OpenAPI 3.0.3 document of the HTTP/JSON API served at `server_url`."""
    schemas = _Schemas()
    paths: dict[str, dict[str, Any]] = {}
    tags: dict[str, str] = {}
    by_name = {m.full_name: m for m in methods}
    shorts = short_names(methods)
    for m in methods:
        if m.impl == m.full_name:
            tags[shorts[m.service]] = m.service
        for rule in m.rules:
            key, verb = path_key(rule.template), rule.verb.lower()
            item = paths.setdefault(key, {})
            if verb in item:
                other = item[verb]["operationId"]
                raise ValueError(f"{rule.verb} {rule.template} ({m.full_name}) collides with {other} at {key}")
            described = by_name.get(m.impl, m)
            item[verb] = _operation(m, rule, schemas, described, shorts[described.service])
    status, responses = _error_components()
    components: dict[str, Any] = {
        "schemas": {STATUS: status, **dict(sorted(schemas.components.items()))},
        "responses": responses,
        "headers": {
            "RequestId": {
                "description": "The request id (echoes `x-request-id` if sent).",
                "schema": {"type": "string"},
            }
        },
        "securitySchemes": {"bearerAuth": {"type": "http", "scheme": "bearer"}},
    }
    return {
        "openapi": "3.0.3",
        "info": {
            "title": "Platform API v2",
            "version": "2",
            "description": (
                "HTTP/JSON transcoding of the gRPC API (google.api.http rules, grpc-gateway semantics). "
                "Every success is HTTP 200. Output uses camelCase JSON names and omits zero values; input "
                "accepts camelCase or snake_case and ignores unknown fields. int64 values are strings, "
                "enums are names, timestamps RFC 3339 UTC."
            ),
        },
        "servers": [{"url": server_url}],
        "tags": [{"name": name, "description": f"gRPC service `{full}`."} for name, full in sorted(tags.items())],
        "paths": dict(sorted(paths.items())),
        "components": components,
    }
