import datetime

from google.api import annotations_pb2 as _annotations_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from platform_api.gen.platformapi import annotations_pb2 as _annotations_pb2_1
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ExchangeRefreshTokenRequest(_message.Message):
    __slots__ = ("aud", "scope", "cap", "scopes")
    AUD_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    CAP_FIELD_NUMBER: _ClassVar[int]
    SCOPES_FIELD_NUMBER: _ClassVar[int]
    aud: _containers.RepeatedScalarFieldContainer[str]
    scope: str
    cap: _containers.RepeatedScalarFieldContainer[str]
    scopes: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, aud: _Optional[_Iterable[str]] = ..., scope: _Optional[str] = ..., cap: _Optional[_Iterable[str]] = ..., scopes: _Optional[_Iterable[str]] = ...) -> None: ...

class ExchangeRequest(_message.Message):
    __slots__ = ("aud", "scope", "identity", "cap", "identity_provider", "scopes")
    AUD_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    IDENTITY_FIELD_NUMBER: _ClassVar[int]
    CAP_FIELD_NUMBER: _ClassVar[int]
    IDENTITY_PROVIDER_FIELD_NUMBER: _ClassVar[int]
    SCOPES_FIELD_NUMBER: _ClassVar[int]
    aud: _containers.RepeatedScalarFieldContainer[str]
    scope: str
    identity: str
    cap: _containers.RepeatedScalarFieldContainer[str]
    identity_provider: str
    scopes: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, aud: _Optional[_Iterable[str]] = ..., scope: _Optional[str] = ..., identity: _Optional[str] = ..., cap: _Optional[_Iterable[str]] = ..., identity_provider: _Optional[str] = ..., scopes: _Optional[_Iterable[str]] = ...) -> None: ...

class RawToken(_message.Message):
    __slots__ = ("token", "refresh_token", "expiry")
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    REFRESH_TOKEN_FIELD_NUMBER: _ClassVar[int]
    EXPIRY_FIELD_NUMBER: _ClassVar[int]
    token: str
    refresh_token: str
    expiry: _timestamp_pb2.Timestamp
    def __init__(self, token: _Optional[str] = ..., refresh_token: _Optional[str] = ..., expiry: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class TokenPair(_message.Message):
    __slots__ = ("token", "refresh_token")
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    REFRESH_TOKEN_FIELD_NUMBER: _ClassVar[int]
    token: RawToken
    refresh_token: RawToken
    def __init__(self, token: _Optional[_Union[RawToken, _Mapping]] = ..., refresh_token: _Optional[_Union[RawToken, _Mapping]] = ...) -> None: ...
