from platform_api.gen.platformapi import annotations_pb2 as _annotations_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable
from typing import ClassVar as _ClassVar, Optional as _Optional

DESCRIPTOR: _descriptor.FileDescriptor

class UIDPFilter(_message.Message):
    __slots__ = ("ancestors_of", "descendants_of", "children_of", "in_root", "ids")
    ANCESTORS_OF_FIELD_NUMBER: _ClassVar[int]
    DESCENDANTS_OF_FIELD_NUMBER: _ClassVar[int]
    CHILDREN_OF_FIELD_NUMBER: _ClassVar[int]
    IN_ROOT_FIELD_NUMBER: _ClassVar[int]
    IDS_FIELD_NUMBER: _ClassVar[int]
    ancestors_of: str
    descendants_of: str
    children_of: str
    in_root: bool
    ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, ancestors_of: _Optional[str] = ..., descendants_of: _Optional[str] = ..., children_of: _Optional[str] = ..., in_root: _Optional[bool] = ..., ids: _Optional[_Iterable[str]] = ...) -> None: ...
