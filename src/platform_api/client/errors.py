"""Typed errors: one exception class per gRPC status code, all subclasses of ApiError, carrying the
google.rpc.Status details the server sent (ErrorInfo, BadRequest, RetryInfo, ResourceInfo,
PreconditionFailure), read alike from an HTTP JSON body and from gRPC's `grpc-status-details-bin`."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from google.protobuf import json_format
from google.rpc import code_pb2, error_details_pb2, status_pb2

_DETAILS = {
    "ErrorInfo": error_details_pb2.ErrorInfo,
    "BadRequest": error_details_pb2.BadRequest,
    "RetryInfo": error_details_pb2.RetryInfo,
    "ResourceInfo": error_details_pb2.ResourceInfo,
    "PreconditionFailure": error_details_pb2.PreconditionFailure,
}

# The settings a caller changes when a connection fails: every connection error of the client names them, with
# the address it tried.
HTTP_SETTING = "check the server URL: PLATFORM_API_URL (platformctl --server, or `platformctl config set server`)"
GRPC_SETTING = (
    "set the gRPC address: Client(grpc='host:port'), PLATFORM_API_GRPC (platformctl --grpc, or `platformctl "
    "config set grpc`), or use HTTP/JSON: PLATFORM_API_TRANSPORT=http (platformctl --transport http)"
)


@dataclass(frozen=True)
class FieldViolation:
    field: str
    description: str


class ApiError(Exception):
    """An error answer of the API (or a transport failure mapped to UNAVAILABLE)."""

    code: int = code_pb2.UNKNOWN
    # False when the request never left this client (the connection could not be made): nothing was done.
    request_sent = True

    def __init__(self, message: str, details: list[dict[str, Any]] | None = None, *, code: int | None = None,
                 http_retry_after: float | None = None) -> None:  # fmt: skip
        super().__init__(message)
        if code is not None:
            self.code = code
        self.message = message
        self.details: list[dict[str, Any]] = details or []
        self._http_retry_after = http_retry_after

    def _detail(self, kind: str) -> dict[str, Any]:
        for d in self.details:
            if str(d.get("@type", "")).rsplit(".", 1)[-1] == kind:
                return d
        return {}

    @property
    def code_name(self) -> str:
        return str(code_pb2.Code.Name(self.code)) if self.code in code_pb2.Code.values() else str(self.code)

    @property
    def reason(self) -> str:
        return str(self._detail("ErrorInfo").get("reason", ""))

    @property
    def domain(self) -> str:
        return str(self._detail("ErrorInfo").get("domain", ""))

    @property
    def metadata(self) -> dict[str, str]:
        return dict(self._detail("ErrorInfo").get("metadata", {}))

    @property
    def field_violations(self) -> list[FieldViolation]:
        raw = self._detail("BadRequest").get("fieldViolations", [])
        return [FieldViolation(str(v.get("field", "")), str(v.get("description", ""))) for v in raw]

    @property
    def retry_delay(self) -> float | None:
        """Seconds the server asks to wait: RetryInfo, else ErrorInfo `retryAfterSeconds`, else `Retry-After`."""
        delay = self._detail("RetryInfo").get("retryDelay")
        if isinstance(delay, str) and delay.endswith("s"):
            try:
                return float(delay[:-1])
            except ValueError:
                pass
        meta = self.metadata.get("retryAfterSeconds")
        if meta is not None:
            try:
                return float(meta)
            except ValueError:
                pass
        return self._http_retry_after

    def __str__(self) -> str:
        return f"{self.code_name}: {self.message}"


class Cancelled(ApiError):
    code = code_pb2.CANCELLED


class Unknown(ApiError):
    code = code_pb2.UNKNOWN


class InvalidArgument(ApiError):
    code = code_pb2.INVALID_ARGUMENT


class DeadlineExceeded(ApiError):
    code = code_pb2.DEADLINE_EXCEEDED


class NotFound(ApiError):
    code = code_pb2.NOT_FOUND


class AlreadyExists(ApiError):
    code = code_pb2.ALREADY_EXISTS


class PermissionDenied(ApiError):
    code = code_pb2.PERMISSION_DENIED


class ResourceExhausted(ApiError):
    code = code_pb2.RESOURCE_EXHAUSTED


class FailedPrecondition(ApiError):
    code = code_pb2.FAILED_PRECONDITION


class Aborted(ApiError):
    code = code_pb2.ABORTED


class OutOfRange(ApiError):
    code = code_pb2.OUT_OF_RANGE


class Unimplemented(ApiError):
    code = code_pb2.UNIMPLEMENTED


class Internal(ApiError):
    code = code_pb2.INTERNAL


class Unavailable(ApiError):
    code = code_pb2.UNAVAILABLE


class DataLoss(ApiError):
    code = code_pb2.DATA_LOSS


class Unauthenticated(ApiError):
    code = code_pb2.UNAUTHENTICATED


_CLASSES: list[type[ApiError]] = [
    Cancelled, Unknown, InvalidArgument, DeadlineExceeded, NotFound, AlreadyExists, PermissionDenied,
    ResourceExhausted, FailedPrecondition, Aborted, OutOfRange, Unimplemented, Internal, Unavailable, DataLoss,
    Unauthenticated,
]  # fmt: skip
BY_CODE: dict[int, type[ApiError]] = {cls.code: cls for cls in _CLASSES}
# HTTP status -> code, for answers without a google.rpc.Status body (a proxy's 502, a bare 429).
_HTTP = {400: 3, 401: 16, 403: 7, 404: 5, 409: 6, 429: 8, 499: 1, 501: 12, 502: 14, 503: 14, 504: 4}


def make(code: int, message: str, details: list[dict[str, Any]] | None = None, **kw: Any) -> ApiError:
    return BY_CODE.get(code, ApiError)(message, details, code=code, **kw)


def from_http(status: int, body: bytes, retry_after: str | None = None) -> ApiError:
    """An HTTP error answer: its google.rpc.Status JSON body, or the status code alone."""
    delay: float | None = None
    if retry_after is not None:
        try:
            delay = float(retry_after)
        except ValueError:
            delay = None
    try:
        st = json.loads(body or b"{}")
    except ValueError:
        st = None
    code = st.get("code") if isinstance(st, dict) else None
    if not isinstance(code, int) or isinstance(code, bool) or code == 0:
        code = _HTTP.get(status, 2 if status < 500 else 13)
        text = body[:200].decode("utf-8", "replace").strip() or f"HTTP {status}"
        return make(code, text, http_retry_after=delay)
    assert isinstance(st, dict)
    details = [d for d in st.get("details") or [] if isinstance(d, dict)]
    return make(code, str(st.get("message", "")), details, http_retry_after=delay)


def from_status(st: status_pb2.Status) -> ApiError:
    return make(st.code, st.message, _unpack(st))


def _unpack(st: status_pb2.Status) -> list[dict[str, Any]]:
    """The details as protojson dicts with their `@type` (types this client does not know are kept as
    their type name only)."""
    out: list[dict[str, Any]] = []
    for packed in st.details:
        kind = packed.TypeName().rsplit(".", 1)[-1]
        cls = _DETAILS.get(kind)
        if cls is None:
            out.append({"@type": packed.type_url})
            continue
        msg = cls()
        packed.Unpack(msg)
        out.append({"@type": packed.type_url, **json_format.MessageToDict(msg)})
    return out
