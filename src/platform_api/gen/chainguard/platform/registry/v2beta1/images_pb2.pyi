from google.api import annotations_pb2 as _annotations_pb2
from platform_api.gen.platformapi import annotations_pb2 as _annotations_pb2_1
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable
from typing import ClassVar as _ClassVar, Optional as _Optional

DESCRIPTOR: _descriptor.FileDescriptor

class GetArchitecturesRequest(_message.Message):
    __slots__ = ("repo_uid", "digest")
    REPO_UID_FIELD_NUMBER: _ClassVar[int]
    DIGEST_FIELD_NUMBER: _ClassVar[int]
    repo_uid: str
    digest: str
    def __init__(self, repo_uid: _Optional[str] = ..., digest: _Optional[str] = ...) -> None: ...

class Architectures(_message.Message):
    __slots__ = ("architectures",)
    ARCHITECTURES_FIELD_NUMBER: _ClassVar[int]
    architectures: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, architectures: _Optional[_Iterable[str]] = ...) -> None: ...

class GetSizeRequest(_message.Message):
    __slots__ = ("repo_uid", "digest", "architecture")
    REPO_UID_FIELD_NUMBER: _ClassVar[int]
    DIGEST_FIELD_NUMBER: _ClassVar[int]
    ARCHITECTURE_FIELD_NUMBER: _ClassVar[int]
    repo_uid: str
    digest: str
    architecture: str
    def __init__(self, repo_uid: _Optional[str] = ..., digest: _Optional[str] = ..., architecture: _Optional[str] = ...) -> None: ...

class Size(_message.Message):
    __slots__ = ("size", "architecture")
    SIZE_FIELD_NUMBER: _ClassVar[int]
    ARCHITECTURE_FIELD_NUMBER: _ClassVar[int]
    size: int
    architecture: str
    def __init__(self, size: _Optional[int] = ..., architecture: _Optional[str] = ...) -> None: ...
