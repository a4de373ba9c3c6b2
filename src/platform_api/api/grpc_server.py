"""gRPC transport: an asyncio server exposing every method of the contract, with reflection and health.

Requests are converted to the same canonical JSON form as HTTP requests (MessageToDict, then the same
normalization) and handed to the same dispatch; records come back as protobuf messages. Errors carry
google.rpc.Status details in the `grpc-status-details-bin` trailer, put there by grpcio-status: a method no
service here has (a product-only service, a typo) answers UNIMPLEMENTED the same way, not with grpcio's
bare "Method not found!". Server reflection answers as v1 and v1alpha.
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

import grpc
from google.protobuf import any_pb2, json_format
from google.protobuf.message import DecodeError, Message
from google.rpc import error_details_pb2, status_pb2
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection
from grpc_reflection.v1alpha import reflection_pb2 as reflection_v1alpha
from grpc_status import rpc_status

from platform_api.api import caps, dispatch, fd_budget, omitted, schema, transcode
from platform_api.core import errors
from platform_api.gen.grpc.reflection.v1 import reflection_pb2 as reflection_v1
from platform_api.service.context import Context, peer_host
from platform_api.service.methods import MethodInfo
from platform_api.service.runtime import Runtime

log = logging.getLogger(__name__)
MAX_MESSAGE = 1 << 20
# Connection lifetime (the idle timeout and the connection cap come from settings and the fd budget): every
# connection is closed with a GOAWAY after about 30 minutes (grpc core adds ±10% jitter), its calls in flight
# get 30 s more; clients reconnect by themselves. Keepalive pings are allowed without calls, down to one every
# 10 s (the shortest interval grpc-go's clients may configure, so no standard client is refused); a client
# pinging more often gets a strike per ping and GOAWAY after 2.
MAX_CONNECTION_AGE_MS = 30 * 60 * 1000
MAX_CONNECTION_AGE_GRACE_MS = 30 * 1000
MIN_PING_INTERVAL_MS = 10 * 1000
MAX_PING_STRIKES = 2
_INT32_MAX = 2**31 - 1  # grpc core's channel arguments are C ints
_DETAIL_TYPES = {
    "ErrorInfo": error_details_pb2.ErrorInfo,
    "BadRequest": error_details_pb2.BadRequest,
    "PreconditionFailure": error_details_pb2.PreconditionFailure,
    "ResourceInfo": error_details_pb2.ResourceInfo,
    "RetryInfo": error_details_pb2.RetryInfo,
}


def status_proto(e: errors.ApiError, domain: str) -> status_pb2.Status:
    body = e.body(domain)
    st = status_pb2.Status(code=e.code, message=e.message)
    for detail in body["details"]:
        d = dict(detail)
        kind = d.pop("@type").rsplit(".", 1)[-1]
        msg = json_format.ParseDict(d, _DETAIL_TYPES[kind]())
        packed = any_pb2.Any()
        packed.Pack(msg)
        st.details.append(packed)
    return st


class Undecodable:
    """A request whose bytes did not parse: grpcio would answer UNKNOWN for a deserializer's exception, so
    the deserializer returns this and the handler answers INVALID_ARGUMENT."""

    def __init__(self, reason: str) -> None:
        self.reason = reason


def _deserializer(message_type: type[Message]) -> Any:
    def parse(data: bytes) -> Message | Undecodable:
        try:
            return message_type.FromString(data)
        except DecodeError:  # not protobuf, or a string field that is not UTF-8
            return Undecodable(f"the request is not a valid {message_type.DESCRIPTOR.full_name} message")

    return parse


def _as_dict(m: MethodInfo, request: Message | Undecodable) -> dict[str, Any]:
    if isinstance(request, Undecodable):
        raise errors.invalid_argument("request", request.reason)
    if m.caps:  # before MessageToDict, whose work grows with the values
        caps.check_message(m.caps, request)
    if m.omitted:  # before MessageToDict, which drops unknown fields
        omitted.check_message(m.omitted, request)
    try:
        data: dict[str, Any] = json_format.MessageToDict(request)
    except (json_format.Error, ValueError) as e:  # e.g. a Timestamp outside years 1-9999: its message says which
        raise errors.invalid_argument("request", str(e)) from None
    return data


def _handler(rt: Runtime, m: MethodInfo) -> Any:
    domain = f"{m.area}.{rt.settings.error_domain_base}"

    async def handle(request: Message | Undecodable, context: grpc.aio.ServicerContext) -> Any:
        pairs = context.invocation_metadata() or ()
        meta = dict(pairs)
        ctx = Context(
            m.full_name, rt, str(meta.get("x-request-id") or uuid.uuid4().hex), str(meta.get("authorization") or "")
        )
        ctx.peer = peer_host(context.peer() or "")
        try:
            if sum(1 for k, _ in pairs if k == "authorization") > 1:
                raise errors.duplicate_authorization()
            data = _as_dict(m, request)
            canonical = transcode.normalize(m.input, data)
            if m.mask_from_body:
                # No mask over gRPC: the fields set in the message are the ones to change.
                sent = data.get(transcode.fields_of(m.input)[m.mask_from_body].json, {})
                ctx.mask_inferred = transcode.infer_mask(m.input, m.mask_from_body, canonical, sent)
            req = transcode.to_record(m.input_record, canonical)
            return json_format.Parse(await dispatch.call(m, req, ctx), m.output_pb(), ignore_unknown_fields=False)
        except errors.ApiError as e:
            await context.abort_with_status(rpc_status.to_status(status_proto(e, domain)))
        except Exception:
            log.exception("rpc %s failed (request id %s)", m.grpc_path, ctx.request_id)
            await context.abort_with_status(rpc_status.to_status(status_proto(errors.internal(), domain)))

    return grpc.unary_unary_rpc_method_handler(
        handle, request_deserializer=_deserializer(m.input_pb), response_serializer=m.output_pb.SerializeToString
    )


# grpc.reflection.v1 (what grpcurl and newer clients ask first) has v1alpha's messages field for field under
# another package (proto/grpc/reflection/v1): its bytes are read and written with the v1alpha classes, so
# grpcio-reflection's v1alpha servicer answers both.
REFLECTION_V1 = reflection_v1.DESCRIPTOR.services_by_name["ServerReflection"].full_name
# An unknown method's path is quoted in the error at most this long (the status must stay well below the
# 8 KiB a client reads of trailers).
_MAX_QUOTED = 200


def _reflection_v1(servicer: reflection.aio.ReflectionServicer) -> grpc.GenericRpcHandler:
    handler = grpc.stream_stream_rpc_method_handler(
        servicer.ServerReflectionInfo,
        request_deserializer=reflection_v1alpha.ServerReflectionRequest.FromString,
        response_serializer=reflection_v1alpha.ServerReflectionResponse.SerializeToString,
    )
    return grpc.method_handlers_generic_handler(REFLECTION_V1, {"ServerReflectionInfo": handler})


class UnknownMethods(grpc.GenericRpcHandler):  # type: ignore[misc]  # grpc ships no type hints
    """Added last, so it sees only the methods no other handler took: answers UNIMPLEMENTED with
    google.rpc.Status and ErrorInfo (domain from the path's API area), whatever the call's streaming kind,
    before reading the request."""

    def __init__(self, error_domain_base: str) -> None:
        self.base = error_domain_base

    def service(self, handler_call_details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler:
        method = handler_call_details.method
        path = method.decode("utf-8", "replace") if isinstance(method, bytes) else str(method)
        parts = path.lstrip("/").split(".")
        area = parts[2] if len(parts) > 3 and parts[2] in schema.areas() else "api"
        quoted = path if len(path) <= _MAX_QUOTED else path[:_MAX_QUOTED] + "..."
        error = errors.ApiError(errors.UNIMPLEMENTED, f"Unimplemented: {quoted} is not a method of this server")
        status = rpc_status.to_status(status_proto(error, f"{area}.{self.base}"))

        async def answer(request_iterator: Any, context: grpc.aio.ServicerContext) -> None:
            await context.abort_with_status(status)

        return grpc.stream_stream_rpc_method_handler(answer)


async def start(rt: Runtime, services: dict[str, list[MethodInfo]], port: int, host: str = "[::]") -> Any:
    settings = rt.settings
    server = grpc.aio.server(
        options=[
            ("grpc.max_receive_message_length", MAX_MESSAGE),
            ("grpc.so_reuseport", 1),
            # Connections above this process's gRPC share of its descriptors are closed at once.
            ("grpc.max_allowed_incoming_connections", fd_budget.current(settings).grpc),
            # No call in flight for this long (a silent connection included): GOAWAY, then closed.
            ("grpc.max_connection_idle_ms", min(max(1, int(settings.idle_timeout * 1000)), _INT32_MAX)),
            ("grpc.max_connection_age_ms", MAX_CONNECTION_AGE_MS),
            ("grpc.max_connection_age_grace_ms", MAX_CONNECTION_AGE_GRACE_MS),
            ("grpc.keepalive_permit_without_calls", 1),
            ("grpc.http2.min_ping_interval_without_data_ms", MIN_PING_INTERVAL_MS),
            ("grpc.http2.max_ping_strikes", MAX_PING_STRIKES),
        ],
    )
    for service, methods in services.items():
        handlers = {m.name: _handler(rt, m) for m in methods}
        server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(service, handlers),))
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    names = [*services, health.SERVICE_NAME, reflection.SERVICE_NAME, REFLECTION_V1]
    reflection.enable_server_reflection(names, server)
    server.add_generic_rpc_handlers((_reflection_v1(reflection.aio.ReflectionServicer(names)),))
    server.add_generic_rpc_handlers((UnknownMethods(settings.error_domain_base),))
    bound = server.add_insecure_port(f"{host}:{port}")
    await server.start()
    for service in [*services, ""]:
        await health_servicer.set(service, health_pb2.HealthCheckResponse.SERVING)
    server.bound_port = bound
    return server
