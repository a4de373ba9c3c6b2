from google.api import annotations_pb2 as _annotations_pb2
from platform_api.gen.platformapi import annotations_pb2 as _annotations_pb2_1
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Optional as _Optional

DESCRIPTOR: _descriptor.FileDescriptor

class RegistrationRequest(_message.Message):
    __slots__ = ("code", "identity_id")
    CODE_FIELD_NUMBER: _ClassVar[int]
    IDENTITY_ID_FIELD_NUMBER: _ClassVar[int]
    code: str
    identity_id: str
    def __init__(self, code: _Optional[str] = ..., identity_id: _Optional[str] = ...) -> None: ...

class Session(_message.Message):
    __slots__ = ("identity", "group")
    IDENTITY_FIELD_NUMBER: _ClassVar[int]
    GROUP_FIELD_NUMBER: _ClassVar[int]
    identity: str
    group: str
    def __init__(self, identity: _Optional[str] = ..., group: _Optional[str] = ...) -> None: ...
