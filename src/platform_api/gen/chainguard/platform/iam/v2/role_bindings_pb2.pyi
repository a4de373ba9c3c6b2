import datetime

from platform_api.gen.chainguard.platform.common import uidp_pb2 as _uidp_pb2
from google.api import annotations_pb2 as _annotations_pb2
from google.protobuf import empty_pb2 as _empty_pb2
from google.protobuf import field_mask_pb2 as _field_mask_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from platform_api.gen.platformapi import annotations_pb2 as _annotations_pb2_1
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class RoleBinding(_message.Message):
    __slots__ = ("uid", "identity", "group", "role", "create_time", "identity_uid", "role_uid", "update_time")
    UID_FIELD_NUMBER: _ClassVar[int]
    IDENTITY_FIELD_NUMBER: _ClassVar[int]
    GROUP_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    IDENTITY_UID_FIELD_NUMBER: _ClassVar[int]
    ROLE_UID_FIELD_NUMBER: _ClassVar[int]
    UPDATE_TIME_FIELD_NUMBER: _ClassVar[int]
    uid: str
    identity: RoleBindingIdentity
    group: RoleBindingGroup
    role: RoleBindingRole
    create_time: _timestamp_pb2.Timestamp
    identity_uid: str
    role_uid: str
    update_time: _timestamp_pb2.Timestamp
    def __init__(self, uid: _Optional[str] = ..., identity: _Optional[_Union[RoleBindingIdentity, _Mapping]] = ..., group: _Optional[_Union[RoleBindingGroup, _Mapping]] = ..., role: _Optional[_Union[RoleBindingRole, _Mapping]] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., identity_uid: _Optional[str] = ..., role_uid: _Optional[str] = ..., update_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class RoleBindingIdentity(_message.Message):
    __slots__ = ("uid", "name", "description", "subject", "issuer", "email")
    UID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    SUBJECT_FIELD_NUMBER: _ClassVar[int]
    ISSUER_FIELD_NUMBER: _ClassVar[int]
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    uid: str
    name: str
    description: str
    subject: str
    issuer: str
    email: str
    def __init__(self, uid: _Optional[str] = ..., name: _Optional[str] = ..., description: _Optional[str] = ..., subject: _Optional[str] = ..., issuer: _Optional[str] = ..., email: _Optional[str] = ...) -> None: ...

class RoleBindingGroup(_message.Message):
    __slots__ = ("uid", "name", "description")
    UID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    uid: str
    name: str
    description: str
    def __init__(self, uid: _Optional[str] = ..., name: _Optional[str] = ..., description: _Optional[str] = ...) -> None: ...

class RoleBindingRole(_message.Message):
    __slots__ = ("uid", "name", "description")
    UID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    uid: str
    name: str
    description: str
    def __init__(self, uid: _Optional[str] = ..., name: _Optional[str] = ..., description: _Optional[str] = ...) -> None: ...

class CreateRoleBindingRequest(_message.Message):
    __slots__ = ("parent", "role_binding")
    PARENT_FIELD_NUMBER: _ClassVar[int]
    ROLE_BINDING_FIELD_NUMBER: _ClassVar[int]
    parent: str
    role_binding: RoleBinding
    def __init__(self, parent: _Optional[str] = ..., role_binding: _Optional[_Union[RoleBinding, _Mapping]] = ...) -> None: ...

class DeleteRoleBindingRequest(_message.Message):
    __slots__ = ("uid",)
    UID_FIELD_NUMBER: _ClassVar[int]
    uid: str
    def __init__(self, uid: _Optional[str] = ...) -> None: ...

class GetRoleBindingRequest(_message.Message):
    __slots__ = ("uid",)
    UID_FIELD_NUMBER: _ClassVar[int]
    uid: str
    def __init__(self, uid: _Optional[str] = ...) -> None: ...

class ListRoleBindingsRequest(_message.Message):
    __slots__ = ("uidp", "identity", "group", "role", "page_size", "page_token", "order_by", "skip")
    UIDP_FIELD_NUMBER: _ClassVar[int]
    IDENTITY_FIELD_NUMBER: _ClassVar[int]
    GROUP_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    ORDER_BY_FIELD_NUMBER: _ClassVar[int]
    SKIP_FIELD_NUMBER: _ClassVar[int]
    uidp: _uidp_pb2.UIDPFilter
    identity: str
    group: str
    role: str
    page_size: int
    page_token: str
    order_by: str
    skip: int
    def __init__(self, uidp: _Optional[_Union[_uidp_pb2.UIDPFilter, _Mapping]] = ..., identity: _Optional[str] = ..., group: _Optional[str] = ..., role: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., order_by: _Optional[str] = ..., skip: _Optional[int] = ...) -> None: ...

class ListRoleBindingsResponse(_message.Message):
    __slots__ = ("role_bindings", "next_page_token", "total_count", "skipped")
    ROLE_BINDINGS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    TOTAL_COUNT_FIELD_NUMBER: _ClassVar[int]
    SKIPPED_FIELD_NUMBER: _ClassVar[int]
    role_bindings: _containers.RepeatedCompositeFieldContainer[RoleBinding]
    next_page_token: str
    total_count: int
    skipped: int
    def __init__(self, role_bindings: _Optional[_Iterable[_Union[RoleBinding, _Mapping]]] = ..., next_page_token: _Optional[str] = ..., total_count: _Optional[int] = ..., skipped: _Optional[int] = ...) -> None: ...

class UpdateRoleBindingRequest(_message.Message):
    __slots__ = ("role_binding", "update_mask")
    ROLE_BINDING_FIELD_NUMBER: _ClassVar[int]
    UPDATE_MASK_FIELD_NUMBER: _ClassVar[int]
    role_binding: RoleBinding
    update_mask: _field_mask_pb2.FieldMask
    def __init__(self, role_binding: _Optional[_Union[RoleBinding, _Mapping]] = ..., update_mask: _Optional[_Union[_field_mask_pb2.FieldMask, _Mapping]] = ...) -> None: ...

class BatchCreateRoleBindingsRequest(_message.Message):
    __slots__ = ("parent", "requests", "role_uid")
    PARENT_FIELD_NUMBER: _ClassVar[int]
    REQUESTS_FIELD_NUMBER: _ClassVar[int]
    ROLE_UID_FIELD_NUMBER: _ClassVar[int]
    parent: str
    requests: _containers.RepeatedCompositeFieldContainer[CreateRoleBindingRequest]
    role_uid: str
    def __init__(self, parent: _Optional[str] = ..., requests: _Optional[_Iterable[_Union[CreateRoleBindingRequest, _Mapping]]] = ..., role_uid: _Optional[str] = ...) -> None: ...

class BatchCreateRoleBindingsResponse(_message.Message):
    __slots__ = ("role_bindings",)
    ROLE_BINDINGS_FIELD_NUMBER: _ClassVar[int]
    role_bindings: _containers.RepeatedCompositeFieldContainer[RoleBinding]
    def __init__(self, role_bindings: _Optional[_Iterable[_Union[RoleBinding, _Mapping]]] = ...) -> None: ...
