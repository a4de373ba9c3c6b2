import datetime

from platform_api.gen.chainguard.platform.common import uidp_pb2 as _uidp_pb2
from google.api import annotations_pb2 as _annotations_pb2
from google.protobuf import empty_pb2 as _empty_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from platform_api.gen.platformapi import annotations_pb2 as _annotations_pb2_1
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ExternalGroupRoleMapping(_message.Message):
    __slots__ = ("id", "identity_provider_uidp", "external_group_id", "role_uidp", "scope", "created_at")
    ID_FIELD_NUMBER: _ClassVar[int]
    IDENTITY_PROVIDER_UIDP_FIELD_NUMBER: _ClassVar[int]
    EXTERNAL_GROUP_ID_FIELD_NUMBER: _ClassVar[int]
    ROLE_UIDP_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    id: str
    identity_provider_uidp: str
    external_group_id: str
    role_uidp: str
    scope: str
    created_at: _timestamp_pb2.Timestamp
    def __init__(self, id: _Optional[str] = ..., identity_provider_uidp: _Optional[str] = ..., external_group_id: _Optional[str] = ..., role_uidp: _Optional[str] = ..., scope: _Optional[str] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ExternalGroupRoleMappingList(_message.Message):
    __slots__ = ("items",)
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[ExternalGroupRoleMapping]
    def __init__(self, items: _Optional[_Iterable[_Union[ExternalGroupRoleMapping, _Mapping]]] = ...) -> None: ...

class ExternalGroupRoleMappingFilter(_message.Message):
    __slots__ = ("uidp", "identity_provider_uidp")
    UIDP_FIELD_NUMBER: _ClassVar[int]
    IDENTITY_PROVIDER_UIDP_FIELD_NUMBER: _ClassVar[int]
    uidp: _uidp_pb2.UIDPFilter
    identity_provider_uidp: str
    def __init__(self, uidp: _Optional[_Union[_uidp_pb2.UIDPFilter, _Mapping]] = ..., identity_provider_uidp: _Optional[str] = ...) -> None: ...

class CreateExternalGroupRoleMappingRequest(_message.Message):
    __slots__ = ("parent_id", "mapping")
    PARENT_ID_FIELD_NUMBER: _ClassVar[int]
    MAPPING_FIELD_NUMBER: _ClassVar[int]
    parent_id: str
    mapping: ExternalGroupRoleMapping
    def __init__(self, parent_id: _Optional[str] = ..., mapping: _Optional[_Union[ExternalGroupRoleMapping, _Mapping]] = ...) -> None: ...

class GetExternalGroupRoleMappingRequest(_message.Message):
    __slots__ = ("uid",)
    UID_FIELD_NUMBER: _ClassVar[int]
    uid: str
    def __init__(self, uid: _Optional[str] = ...) -> None: ...

class DeleteExternalGroupRoleMappingRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class BatchDeleteExternalGroupRoleMappingsRequest(_message.Message):
    __slots__ = ("parent_id", "ids")
    PARENT_ID_FIELD_NUMBER: _ClassVar[int]
    IDS_FIELD_NUMBER: _ClassVar[int]
    parent_id: str
    ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, parent_id: _Optional[str] = ..., ids: _Optional[_Iterable[str]] = ...) -> None: ...

class BatchDeleteExternalGroupRoleMappingsResponse(_message.Message):
    __slots__ = ("parent_id", "items")
    PARENT_ID_FIELD_NUMBER: _ClassVar[int]
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    parent_id: str
    items: _containers.RepeatedCompositeFieldContainer[ExternalGroupRoleMapping]
    def __init__(self, parent_id: _Optional[str] = ..., items: _Optional[_Iterable[_Union[ExternalGroupRoleMapping, _Mapping]]] = ...) -> None: ...
