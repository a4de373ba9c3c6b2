from google.api import annotations_pb2 as _annotations_pb2
from google.protobuf import empty_pb2 as _empty_pb2
from platform_api.gen.platformapi import annotations_pb2 as _annotations_pb2_1
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Ecosystem(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    UNKNOWN: _ClassVar[Ecosystem]
    JAVA: _ClassVar[Ecosystem]
    PYTHON: _ClassVar[Ecosystem]
    JAVASCRIPT: _ClassVar[Ecosystem]
    JAVA_ATHENA: _ClassVar[Ecosystem]
    PYTHON_ATHENA: _ClassVar[Ecosystem]
    JAVASCRIPT_ATHENA: _ClassVar[Ecosystem]
    DOTNET: _ClassVar[Ecosystem]
    DOTNET_ATHENA: _ClassVar[Ecosystem]
    GO: _ClassVar[Ecosystem]
    GO_ATHENA: _ClassVar[Ecosystem]

class Policy(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    POLICY_UNKNOWN: _ClassVar[Policy]
    POLICY_CHAINGUARD: _ClassVar[Policy]
    POLICY_CHAINGUARD_AND_UPSTREAM: _ClassVar[Policy]

class Source(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SOURCE_UNKNOWN: _ClassVar[Source]
    SOURCE_TRIAL: _ClassVar[Source]
    SOURCE_SFDC: _ClassVar[Source]
UNKNOWN: Ecosystem
JAVA: Ecosystem
PYTHON: Ecosystem
JAVASCRIPT: Ecosystem
JAVA_ATHENA: Ecosystem
PYTHON_ATHENA: Ecosystem
JAVASCRIPT_ATHENA: Ecosystem
DOTNET: Ecosystem
DOTNET_ATHENA: Ecosystem
GO: Ecosystem
GO_ATHENA: Ecosystem
POLICY_UNKNOWN: Policy
POLICY_CHAINGUARD: Policy
POLICY_CHAINGUARD_AND_UPSTREAM: Policy
SOURCE_UNKNOWN: Source
SOURCE_TRIAL: Source
SOURCE_SFDC: Source

class Entitlement(_message.Message):
    __slots__ = ("id", "ecosystem", "policy", "source", "cooldown_days")
    ID_FIELD_NUMBER: _ClassVar[int]
    ECOSYSTEM_FIELD_NUMBER: _ClassVar[int]
    POLICY_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    COOLDOWN_DAYS_FIELD_NUMBER: _ClassVar[int]
    id: str
    ecosystem: Ecosystem
    policy: Policy
    source: Source
    cooldown_days: int
    def __init__(self, id: _Optional[str] = ..., ecosystem: _Optional[_Union[Ecosystem, str]] = ..., policy: _Optional[_Union[Policy, str]] = ..., source: _Optional[_Union[Source, str]] = ..., cooldown_days: _Optional[int] = ...) -> None: ...

class EntitlementList(_message.Message):
    __slots__ = ("items",)
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[Entitlement]
    def __init__(self, items: _Optional[_Iterable[_Union[Entitlement, _Mapping]]] = ...) -> None: ...

class CreateEntitlementRequest(_message.Message):
    __slots__ = ("parent_id", "ecosystem", "policy", "source", "cooldown_days")
    PARENT_ID_FIELD_NUMBER: _ClassVar[int]
    ECOSYSTEM_FIELD_NUMBER: _ClassVar[int]
    POLICY_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    COOLDOWN_DAYS_FIELD_NUMBER: _ClassVar[int]
    parent_id: str
    ecosystem: Ecosystem
    policy: Policy
    source: Source
    cooldown_days: int
    def __init__(self, parent_id: _Optional[str] = ..., ecosystem: _Optional[_Union[Ecosystem, str]] = ..., policy: _Optional[_Union[Policy, str]] = ..., source: _Optional[_Union[Source, str]] = ..., cooldown_days: _Optional[int] = ...) -> None: ...

class EntitlementFilter(_message.Message):
    __slots__ = ("parent_id", "ecosystems")
    PARENT_ID_FIELD_NUMBER: _ClassVar[int]
    ECOSYSTEMS_FIELD_NUMBER: _ClassVar[int]
    parent_id: str
    ecosystems: _containers.RepeatedScalarFieldContainer[Ecosystem]
    def __init__(self, parent_id: _Optional[str] = ..., ecosystems: _Optional[_Iterable[_Union[Ecosystem, str]]] = ...) -> None: ...

class DeleteEntitlementRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...
