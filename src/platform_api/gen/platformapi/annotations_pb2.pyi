from google.protobuf import descriptor_pb2 as _descriptor_pb2
from platform_api.gen.chainguard.capabilities import capabilities_pb2 as _capabilities_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor
IAM_FIELD_NUMBER: _ClassVar[int]
iam: _descriptor.FieldDescriptor
EVENTS_FIELD_NUMBER: _ClassVar[int]
events: _descriptor.FieldDescriptor
IAM_SCOPE_FIELD_NUMBER: _ClassVar[int]
iam_scope: _descriptor.FieldDescriptor
MAX_ITEMS_FIELD_NUMBER: _ClassVar[int]
max_items: _descriptor.FieldDescriptor

class IAM(_message.Message):
    __slots__ = ("disabled", "enabled")
    class Rules(_message.Message):
        __slots__ = ("capabilities", "unscoped")
        CAPABILITIES_FIELD_NUMBER: _ClassVar[int]
        UNSCOPED_FIELD_NUMBER: _ClassVar[int]
        capabilities: _containers.RepeatedScalarFieldContainer[_capabilities_pb2.Capability]
        unscoped: bool
        def __init__(self, capabilities: _Optional[_Iterable[_Union[_capabilities_pb2.Capability, str]]] = ..., unscoped: _Optional[bool] = ...) -> None: ...
    DISABLED_FIELD_NUMBER: _ClassVar[int]
    ENABLED_FIELD_NUMBER: _ClassVar[int]
    disabled: bool
    enabled: IAM.Rules
    def __init__(self, disabled: _Optional[bool] = ..., enabled: _Optional[_Union[IAM.Rules, _Mapping]] = ...) -> None: ...

class Events(_message.Message):
    __slots__ = ("type", "subject_field")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    SUBJECT_FIELD_FIELD_NUMBER: _ClassVar[int]
    type: str
    subject_field: str
    def __init__(self, type: _Optional[str] = ..., subject_field: _Optional[str] = ...) -> None: ...
