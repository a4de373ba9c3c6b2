"""gRPC client helpers: the call timeout, and the google.rpc.Status of a failed call with its details."""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from google.protobuf.timestamp_pb2 import Timestamp
from google.rpc import error_details_pb2, status_pb2

TIMEOUT = 10


def stamp(text: str) -> Timestamp:
    """A JSON time as a Timestamp: compare instants, not texts (protobuf writes 0, 3, 6 or 9 fractional
    digits, we always write 3, so a time on a whole second reads `...51Z` one way and `...51.000Z` the other)."""
    ts = Timestamp()
    ts.FromJsonString(text)
    return ts


def rpc_error(
    call: Any, request: Any, metadata: Any = None, timeout: float = TIMEOUT
) -> tuple[grpc.RpcError, status_pb2.Status]:
    """Invoke (with `metadata`, e.g. a bearer of its own) and expect a failure; returns the error and its
    decoded google.rpc.Status (grpc-status-details-bin)."""
    with pytest.raises(grpc.RpcError) as info:
        call(request, metadata=metadata, timeout=timeout)
    err = info.value
    raw = dict(err.trailing_metadata() or ()).get("grpc-status-details-bin")
    assert raw is not None, (err.code(), err.details())
    st = status_pb2.Status.FromString(raw)
    assert st.code == err.code().value[0] and st.message == err.details()
    return err, st


def unpack(st: status_pb2.Status, kind: type[Any]) -> Any:
    found = [d for d in st.details if d.Is(kind.DESCRIPTOR)]
    assert len(found) == 1, st
    msg = kind()
    found[0].Unpack(msg)
    return msg


def error_info(st: status_pb2.Status) -> error_details_pb2.ErrorInfo:
    assert st.details[0].Is(error_details_pb2.ErrorInfo.DESCRIPTOR), st
    info: error_details_pb2.ErrorInfo = unpack(st, error_details_pb2.ErrorInfo)
    return info
