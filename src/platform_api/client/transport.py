"""The two transports behind one call: gRPC (binary protobuf, the default, like the vendor's SDK) and
HTTP/JSON (the google.api.http rules of the same descriptors). Both take and return the generated records;
both raise errors.ApiError subclasses with the server's google.rpc details."""

from __future__ import annotations

from typing import Any, Protocol
from urllib.parse import quote, urlsplit

import grpc
import httpx
import msgspec
from google.protobuf import json_format
from grpc_status import rpc_status

from platform_api.api import transcode
from platform_api.client import errors
from platform_api.client.contract import Method
from platform_api.core.errors import ApiError  # the transcoder's refusals (request_from_json)

USER_AGENT = "platform-api-client/0.1"
# What one answer may hold (the server's own message cap is 1 MiB; lists page far below it).
MAX_ANSWER = 16 << 20


class Transport(Protocol):
    def call(self, m: Method, request: Any, token: str | None, timeout: float) -> Any: ...

    def close(self) -> None: ...


def derive_grpc_target(url: str) -> tuple[str, bool]:
    """gRPC's address for a server URL: https -> the same host and port with TLS (one public port serves
    both); http on the server's default HTTP port 8080 -> the same host on 9090 (serve's default gRPC port);
    any other http port -> the same port (`serve --port` answers both there)."""
    if urlsplit(url).scheme == "https":
        return host_port(url), True
    host, _, port = host_port(url).rpartition(":")
    return f"{host}:{9090 if port == '8080' else port}", False


def host_port(url: str) -> str:
    """`host:port` of a server URL (its scheme's port when it names none; IPv6 hosts in brackets)."""
    parts = urlsplit(url)
    host = parts.hostname or "localhost"
    if ":" in host:
        host = f"[{host}]"
    return f"{host}:{parts.port or (443 if parts.scheme == 'https' else 80)}"


# --- gRPC -------------------------------------------------------------------------------------------------


def to_pb(m: Method, request: Any) -> Any:
    """The request as protobuf; what protobuf refuses (client/checks.py catches the usual cases first, naming
    the field) is the InvalidArgument the server would answer over HTTP/JSON, not protobuf's own error."""
    try:
        return json_format.ParseDict(msgspec.to_builtins(request), m.input_pb())
    except (json_format.ParseError, TypeError, ValueError) as e:
        error = errors.InvalidArgument(f"{m.name}: {e}")
        error.request_sent = False
        raise error from None


def request_from_json(m: Method, data: dict[str, Any]) -> Any:
    """The request record of `data`, the request message in protobuf's JSON mapping (`platformctl api grpc`);
    ValueError naming what is wrong when it is not one (an unknown field, a value of the wrong type)."""
    try:
        message = json_format.ParseDict(data, m.input_pb())
        return msgspec.convert(transcode.normalize(m.input, json_format.MessageToDict(message)), m.input_record)
    except (json_format.ParseError, msgspec.ValidationError, ApiError) as e:
        raise ValueError(str(e)) from None


def from_pb(m: Method, message: Any) -> Any:
    # The server's own normalization (int64 as strings, Timestamps to milliseconds), so a record read over
    # gRPC equals the one read over HTTP.
    data = transcode.normalize(m.output, json_format.MessageToDict(message))
    return msgspec.convert(data, m.output_record)


class GrpcTransport:
    """One channel to `target`; `source` says how that address was chosen (client/discovery.py), for the
    error when it cannot be reached."""

    def __init__(self, target: str, *, tls: bool = False, user_agent: str = USER_AGENT,
                 source: str = "the gRPC address set", hint: str = errors.GRPC_SETTING) -> None:  # fmt: skip
        self.target, self.source, self.hint = target, source, hint
        options = [
            ("grpc.primary_user_agent", user_agent),
            ("grpc.max_receive_message_length", MAX_ANSWER),
            ("grpc.enable_retries", 0),  # the client retries itself, honouring the server's delay
        ]
        if tls:
            self.channel = grpc.secure_channel(target, grpc.ssl_channel_credentials(), options=options)
        else:
            self.channel = grpc.insecure_channel(target, options=options)
        self._stubs: dict[str, Any] = {}

    def call(self, m: Method, request: Any, token: str | None, timeout: float) -> Any:
        stub = self._stubs.get(m.grpc_path)
        if stub is None:
            stub = self._stubs[m.grpc_path] = self.channel.unary_unary(
                m.grpc_path,
                request_serializer=lambda msg: msg.SerializeToString(),
                response_deserializer=m.output_pb.FromString,
            )
        metadata = [("authorization", f"Bearer {token}")] if token else []
        try:
            answer = stub(to_pb(m, request), metadata=metadata, timeout=timeout)
        except grpc.RpcError as e:
            error = grpc_error(e)
            # grpc's own UNAVAILABLE (no status of the server's): never sent when no connection could be made,
            # named then with the address tried, how it was chosen, and what to set instead; else the
            # connection was lost with the request sent or on its way (client/retries.py).
            if error.code == grpc.StatusCode.UNAVAILABLE.value[0] and not error.details:
                where = f"the gRPC server at {self.target} ({self.source})"
                if never_sent(error.message):
                    error = errors.Unavailable(f"cannot reach {where}: {error.message}; {self.hint}")
                    error.request_sent = False
                else:
                    error = errors.Unavailable(f"the connection to {where} failed: {error.message}")
            elif error.code == grpc.StatusCode.DEADLINE_EXCEEDED.value[0] and not error.details:
                error = errors.DeadlineExceeded(f"{error.message} (gRPC server at {self.target}, {self.source})")
            raise error from None
        return from_pb(m, answer)

    def close(self) -> None:
        self.channel.close()


# How grpc says a call found no connection to send it on: none could be made (refused, reset during the
# handshake, timed out) or the name did not resolve. grpc sends a call only on a connection that is ready.
NO_CONNECTION = ("failed to connect", "errors resolving", "dns resolution failed", "name resolution")


def never_sent(grpc_message: str) -> bool:
    return any(marker in grpc_message.lower() for marker in NO_CONNECTION)


def grpc_error(e: grpc.RpcError) -> errors.ApiError:
    status = None
    try:
        status = rpc_status.from_call(e)
    except ValueError:  # a details trailer that disagrees with the call's code
        status = None
    if status is not None:
        return errors.from_status(status)
    code = e.code() if hasattr(e, "code") else None
    number = code.value[0] if code is not None else 2
    text = e.details() if hasattr(e, "details") else str(e)
    return errors.make(number, str(text or code))


# --- HTTP/JSON ----------------------------------------------------------------------------------------------


def _json_path(m: Method, dotted: str) -> list[str]:
    """A request field path in proto names (`repo.uid`) as JSON names (`repo`, `uid`)."""
    desc, out = m.input, []
    for part in dotted.split("."):
        f = transcode.fields_of(desc)[part]
        out.append(f.json)
        desc = f.message  # type: ignore[assignment]
    return out


def _pop(data: dict[str, Any], path: list[str]) -> Any:
    cur = data
    for key in path[:-1]:
        nxt = cur.get(key)
        if not isinstance(nxt, dict):
            return None
        cur = nxt
    return cur.pop(path[-1], None)


def _query(data: Any, prefix: str, out: list[tuple[str, str]]) -> None:
    if isinstance(data, dict):
        for k, v in data.items():
            _query(v, f"{prefix}.{k}" if prefix else k, out)
    elif isinstance(data, list):
        for v in data:
            _query(v, prefix, out)
    elif isinstance(data, bool):
        out.append((prefix, "true" if data else "false"))
    elif data is not None:
        out.append((prefix, str(data)))


def http_request(m: Method, request: Any) -> tuple[str, str, list[tuple[str, str]], Any]:
    """(verb, path, query, JSON body or None) of a request under its method's google.api.http rule."""
    rule = m.rule
    if rule is None:
        raise errors.Unimplemented(f"{m.full_name} has no HTTP binding: use the gRPC transport")
    data: dict[str, Any] = msgspec.to_builtins(request)
    path = ""
    rest = rule.template
    while "{" in rest:
        before, _, after = rest.partition("{")
        var, _, rest = after.partition("}")
        field, _, pattern = var.partition("=")
        # An empty value stays empty (`POST /iam/v2/groups/` creates an organization); the server judges it.
        value = _pop(data, _json_path(m, field))
        value = "" if value is None else value
        path += before + quote(str(value), safe="/:@" if pattern == "**" else ":@")
    path += rest
    if rule.body == "*":
        return rule.verb, path, [], data
    body = None
    if rule.body:
        body = data.pop(_json_path(m, rule.body)[0], None) or {}
    query: list[tuple[str, str]] = []
    _query(data, "", query)
    return rule.verb, path, query, body


def _read_capped(r: httpx.Response, cap: int) -> bytes:
    """The body, refused past `cap` bytes (an error answer: cut there; it is only quoted)."""
    out = bytearray()
    for chunk in r.iter_bytes():
        out += chunk
        if len(out) > cap:
            if not 200 <= r.status_code < 300:
                return bytes(out[:cap])
            raise errors.Internal(f"the server's answer is larger than {cap} bytes")
    return bytes(out)


class HttpTransport:
    def __init__(self, base_url: str, *, user_agent: str = USER_AGENT) -> None:
        self.url = base_url.rstrip("/")
        self.http = httpx.Client(base_url=self.url, headers={"user-agent": user_agent})

    def call(self, m: Method, request: Any, token: str | None, timeout: float) -> Any:
        verb, path, query, body = http_request(m, request)
        answer = self.send(verb, path, query, body, token, timeout)
        try:
            return msgspec.json.decode(answer, type=m.output_record)
        except (msgspec.ValidationError, msgspec.DecodeError) as e:
            raise errors.Internal(f"the server's answer to {m.name} did not parse: {e}") from None

    def send(self, verb: str, path: str, query: list[tuple[str, str]], body: Any, token: str | None,
             timeout: float) -> bytes:  # fmt: skip
        """One HTTP request (a JSON body unless None); the answer's bytes, or its error raised as an ApiError.
        Also `platformctl api`'s raw calls (ctl/api_cmd.py)."""
        headers = {"authorization": f"Bearer {token}"} if token else {}
        content = msgspec.json.encode(body) if body is not None else None
        if content is not None:
            headers["content-type"] = "application/json"
        request = self.http.build_request(verb, path, params=tuple(query), content=content, headers=headers,
                                          timeout=timeout)  # fmt: skip
        try:
            r = self.http.send(request, stream=True)
            try:
                answer = _read_capped(r, MAX_ANSWER if 200 <= r.status_code < 300 else 65536)
                status, retry_after = r.status_code, r.headers.get("retry-after")
            finally:
                r.close()
        except httpx.TransportError as e:
            # Never sent: no connection was made (refused, unresolvable, timed out), or none was free in time.
            # Anything else (a read that timed out, a connection lost) may have come after the server had it.
            if isinstance(e, httpx.ConnectError | httpx.ConnectTimeout | httpx.PoolTimeout):
                error = errors.Unavailable(
                    f"cannot connect to {self.url} ({type(e).__name__}: {e}); {errors.HTTP_SETTING}"
                )
                error.request_sent = False
            else:
                error = errors.Unavailable(f"the connection to {self.url} failed ({type(e).__name__}: {e})")
            raise error from None
        if not 200 <= status < 300:
            raise errors.from_http(status, answer, retry_after)
        return answer

    def close(self) -> None:
        self.http.close()
