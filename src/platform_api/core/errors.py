"""Structured errors: google.rpc.Status with typed details, shared by both transports.

Domain code raises ApiError through the constructors below; the transports render it (HTTP status
from the gRPC code by HTTP_STATUS below, JSON body; or a gRPC status with binary details). ErrorInfo is
added at the edge because its domain depends on the API area of the RPC that failed.
"""

from __future__ import annotations

from typing import Any

from google.rpc import code_pb2

# gRPC status codes: the numbers and names of google.rpc.Code, re-exported for short use.
OK: int = code_pb2.OK
CANCELLED: int = code_pb2.CANCELLED
UNKNOWN: int = code_pb2.UNKNOWN
INVALID_ARGUMENT: int = code_pb2.INVALID_ARGUMENT
DEADLINE_EXCEEDED: int = code_pb2.DEADLINE_EXCEEDED
NOT_FOUND: int = code_pb2.NOT_FOUND
ALREADY_EXISTS: int = code_pb2.ALREADY_EXISTS
PERMISSION_DENIED: int = code_pb2.PERMISSION_DENIED
RESOURCE_EXHAUSTED: int = code_pb2.RESOURCE_EXHAUSTED
FAILED_PRECONDITION: int = code_pb2.FAILED_PRECONDITION
ABORTED: int = code_pb2.ABORTED
OUT_OF_RANGE: int = code_pb2.OUT_OF_RANGE
UNIMPLEMENTED: int = code_pb2.UNIMPLEMENTED
INTERNAL: int = code_pb2.INTERNAL
UNAVAILABLE: int = code_pb2.UNAVAILABLE
DATA_LOSS: int = code_pb2.DATA_LOSS
UNAUTHENTICATED: int = code_pb2.UNAUTHENTICATED

CODE_NAMES: dict[int, str] = {number: name for name, number in code_pb2.Code.items()}

# Ours: grpc-gateway v2 HTTPStatusFromCode (FAILED_PRECONDITION is 400, not 412).
HTTP_STATUS = {
    OK: 200,
    CANCELLED: 499,
    UNKNOWN: 500,
    INVALID_ARGUMENT: 400,
    DEADLINE_EXCEEDED: 504,
    NOT_FOUND: 404,
    ALREADY_EXISTS: 409,
    PERMISSION_DENIED: 403,
    RESOURCE_EXHAUSTED: 429,
    FAILED_PRECONDITION: 400,
    ABORTED: 409,
    OUT_OF_RANGE: 400,
    UNIMPLEMENTED: 501,
    INTERNAL: 500,
    UNAVAILABLE: 503,
    DATA_LOSS: 500,
    UNAUTHENTICATED: 401,
}

TYPE_PREFIX = "type.googleapis.com/google.rpc."


class ApiError(Exception):
    """An RPC failure: code, message and details (JSON form, each with '@type')."""

    def __init__(self, code: int, message: str, details: list[dict[str, Any]] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details or []
        # Set only where the HTTP status must differ from the table (oversized body: 413).
        self.http_status: int | None = None
        # ErrorInfo reason when more specific than the code's name (e.g. RATE_LIMITED), and its metadata.
        self.info_reason = ""
        self.info_metadata: dict[str, str] = {}
        # HTTP headers the transport adds to the error answer (e.g. Retry-After).
        self.headers: dict[str, str] = {}

    @property
    def reason(self) -> str:
        return self.info_reason or CODE_NAMES.get(self.code, "UNKNOWN")

    def body(self, domain: str) -> dict[str, Any]:
        info: dict[str, Any] = {"@type": TYPE_PREFIX + "ErrorInfo", "reason": self.reason, "domain": domain}
        if self.info_metadata:
            info["metadata"] = self.info_metadata
        return {"code": self.code, "message": self.message, "details": [info, *self.details]}

    def status(self) -> int:
        return self.http_status or HTTP_STATUS.get(self.code, 500)


def invalid_argument(field: str, description: str) -> ApiError:
    return invalid_fields([(field, description)])


def invalid_fields(violations: list[tuple[str, str]]) -> ApiError:
    text = "; ".join(f"{f}: {d}" for f, d in violations)
    detail = {
        "@type": TYPE_PREFIX + "BadRequest",
        "fieldViolations": [{"field": f, "description": d} for f, d in violations],
    }
    return ApiError(INVALID_ARGUMENT, f"Invalid argument: {text}", [detail])


def failed_precondition(kind: str, description: str, subject: str = "") -> ApiError:
    violation = {"type": kind, "description": description}
    if subject:
        violation["subject"] = subject
    detail = {"@type": TYPE_PREFIX + "PreconditionFailure", "violations": [violation]}
    return ApiError(FAILED_PRECONDITION, f"Precondition failed: {description}", [detail])


def not_found(resource_type: str, name: str) -> ApiError:
    detail = {
        "@type": TYPE_PREFIX + "ResourceInfo",
        "resourceType": resource_type,
        "resourceName": name,
        "description": f"{resource_type} not found",
    }
    return ApiError(NOT_FOUND, f"Not found: {resource_type} {name}", [detail])


def already_exists(resource_type: str, name: str, description: str) -> ApiError:
    detail = {
        "@type": TYPE_PREFIX + "ResourceInfo",
        "resourceType": resource_type,
        "resourceName": name,
        "description": description,
    }
    return ApiError(ALREADY_EXISTS, f"Already exists: {description}", [detail])


def permission_denied(message: str = "permission denied") -> ApiError:
    return ApiError(PERMISSION_DENIED, f"Permission denied: {message}")


def unauthenticated(message: str = "missing or invalid credentials") -> ApiError:
    return ApiError(UNAUTHENTICATED, f"Unauthenticated: {message}")


def unimplemented(what: str) -> ApiError:
    return ApiError(UNIMPLEMENTED, f"Unimplemented: {what} is not implemented yet")


def duplicate_authorization() -> ApiError:
    # Two credentials are ambiguous (which one a proxy or a server picks differs), so neither is taken.
    return invalid_argument("authorization", "send at most one authorization header or metadata entry")


def answer_too_large(limit: int, what: str, hint: str) -> ApiError:
    """RESOURCE_EXHAUSTED for an answer over its byte budget (`limit` `what`). Asking again cannot succeed, so
    HTTP 413 (as for request bodies over their limit) rather than the 429 of a rate limit."""
    e = ApiError(RESOURCE_EXHAUSTED, f"Resource exhausted: the answer would carry more than {limit} {what}; {hint}")
    e.http_status = 413
    e.info_reason = "ANSWER_TOO_LARGE"
    e.info_metadata = {"limitBytes": str(limit)}
    return e


def too_many_items(message: str, limit: int, matched: int | None = None) -> ApiError:
    """RESOURCE_EXHAUSTED `TOO_MANY_ITEMS` (HTTP 413): an answer that is never cut short would hold more than
    `limit` items (`matched`, when counted)."""
    e = ApiError(RESOURCE_EXHAUSTED, f"Resource exhausted: {message}")
    e.http_status = 413
    e.info_reason = "TOO_MANY_ITEMS"
    e.info_metadata = {"limit": str(limit)} | ({} if matched is None else {"matched": str(matched)})
    return e


def rate_limited(retry_after: int) -> ApiError:
    """Too many requests: 429 RESOURCE_EXHAUSTED, ErrorInfo reason RATE_LIMITED, `Retry-After` in seconds."""
    e = ApiError(RESOURCE_EXHAUSTED, f"Resource exhausted: too many requests, retry after {retry_after} s")
    e.info_reason = "RATE_LIMITED"
    e.info_metadata = {"retryAfterSeconds": str(retry_after)}
    e.headers = {"retry-after": str(retry_after)}
    return e


def unavailable(message: str, retry_after: int = 1, reason: str = "UNAVAILABLE") -> ApiError:
    """503 UNAVAILABLE, `Retry-After` in seconds: by default nothing was done and the same request may be sent
    again; a `reason` of the store's says what became of a write (`service.storage.refused`)."""
    e = ApiError(UNAVAILABLE, f"Service unavailable: {message}")
    e.info_reason = reason
    e.info_metadata = {"retryAfterSeconds": str(retry_after)}
    e.headers = {"retry-after": str(retry_after)}
    return e


def internal() -> ApiError:
    # Never leak the cause to the caller; it is logged with the request id.
    return ApiError(INTERNAL, "Internal error")
