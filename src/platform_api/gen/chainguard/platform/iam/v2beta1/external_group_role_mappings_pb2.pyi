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
    __slots__ = ("uid", "identity_provider_uid", "external_group_id", "role_uid", "scope", "create_time", "update_time")
    UID_FIELD_NUMBER: _ClassVar[int]
    IDENTITY_PROVIDER_UID_FIELD_NUMBER: _ClassVar[int]
    EXTERNAL_GROUP_ID_FIELD_NUMBER: _ClassVar[int]
    ROLE_UID_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    UPDATE_TIME_FIELD_NUMBER: _ClassVar[int]
    uid: str
    identity_provider_uid: str
    external_group_id: str
    role_uid: str
    scope: str
    create_time: _timestamp_pb2.Timestamp
    update_time: _timestamp_pb2.Timestamp
    def __init__(self, uid: _Optional[str] = ..., identity_provider_uid: _Optional[str] = ..., external_group_id: _Optional[str] = ..., role_uid: _Optional[str] = ..., scope: _Optional[str] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., update_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class CreateExternalGroupRoleMappingRequest(_message.Message):
    __slots__ = ("parent", "external_group_role_mapping")
    PARENT_FIELD_NUMBER: _ClassVar[int]
    EXTERNAL_GROUP_ROLE_MAPPING_FIELD_NUMBER: _ClassVar[int]
    parent: str
    external_group_role_mapping: ExternalGroupRoleMapping
    def __init__(self, parent: _Optional[str] = ..., external_group_role_mapping: _Optional[_Union[ExternalGroupRoleMapping, _Mapping]] = ...) -> None: ...

class GetExternalGroupRoleMappingRequest(_message.Message):
    __slots__ = ("uid",)
    UID_FIELD_NUMBER: _ClassVar[int]
    uid: str
    def __init__(self, uid: _Optional[str] = ...) -> None: ...

class DeleteExternalGroupRoleMappingRequest(_message.Message):
    __slots__ = ("uid",)
    UID_FIELD_NUMBER: _ClassVar[int]
    uid: str
    def __init__(self, uid: _Optional[str] = ...) -> None: ...

class BatchDeleteExternalGroupRoleMappingsRequest(_message.Message):
    __slots__ = ("parent", "names")
    PARENT_FIELD_NUMBER: _ClassVar[int]
    NAMES_FIELD_NUMBER: _ClassVar[int]
    parent: str
    names: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, parent: _Optional[str] = ..., names: _Optional[_Iterable[str]] = ...) -> None: ...

class BatchDeleteExternalGroupRoleMappingsResponse(_message.Message):
    __slots__ = ("parent", "external_group_role_mappings")
    PARENT_FIELD_NUMBER: _ClassVar[int]
    EXTERNAL_GROUP_ROLE_MAPPINGS_FIELD_NUMBER: _ClassVar[int]
    parent: str
    external_group_role_mappings: _containers.RepeatedCompositeFieldContainer[ExternalGroupRoleMapping]
    def __init__(self, parent: _Optional[str] = ..., external_group_role_mappings: _Optional[_Iterable[_Union[ExternalGroupRoleMapping, _Mapping]]] = ...) -> None: ...

class ListExternalGroupRoleMappingsRequest(_message.Message):
    __slots__ = ("uidp", "identity_provider_uid", "page_size", "page_token", "order_by", "skip")
    UIDP_FIELD_NUMBER: _ClassVar[int]
    IDENTITY_PROVIDER_UID_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    ORDER_BY_FIELD_NUMBER: _ClassVar[int]
    SKIP_FIELD_NUMBER: _ClassVar[int]
    uidp: _uidp_pb2.UIDPFilter
    identity_provider_uid: str
    page_size: int
    page_token: str
    order_by: str
    skip: int
    def __init__(self, uidp: _Optional[_Union[_uidp_pb2.UIDPFilter, _Mapping]] = ..., identity_provider_uid: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., order_by: _Optional[str] = ..., skip: _Optional[int] = ...) -> None: ...

class ListExternalGroupRoleMappingsResponse(_message.Message):
    __slots__ = ("external_group_role_mappings", "next_page_token", "total_count", "skipped")
    EXTERNAL_GROUP_ROLE_MAPPINGS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    TOTAL_COUNT_FIELD_NUMBER: _ClassVar[int]
    SKIPPED_FIELD_NUMBER: _ClassVar[int]
    external_group_role_mappings: _containers.RepeatedCompositeFieldContainer[ExternalGroupRoleMapping]
    next_page_token: str
    total_count: int
    skipped: int
    def __init__(self, external_group_role_mappings: _Optional[_Iterable[_Union[ExternalGroupRoleMapping, _Mapping]]] = ..., next_page_token: _Optional[str] = ..., total_count: _Optional[int] = ..., skipped: _Optional[int] = ...) -> None: ...
