import datetime

from platform_api.gen.chainguard.platform.common import uidp_pb2 as _uidp_pb2
from platform_api.gen.chainguard.platform.iam.v1 import group_pb2 as _group_pb2
from platform_api.gen.chainguard.platform.iam.v1 import role_pb2 as _role_pb2
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

class RoleBinding(_message.Message):
    __slots__ = ("id", "identity", "group", "role")
    ID_FIELD_NUMBER: _ClassVar[int]
    IDENTITY_FIELD_NUMBER: _ClassVar[int]
    GROUP_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    id: str
    identity: str
    group: str
    role: str
    def __init__(self, id: _Optional[str] = ..., identity: _Optional[str] = ..., group: _Optional[str] = ..., role: _Optional[str] = ...) -> None: ...

class RoleBindingList(_message.Message):
    __slots__ = ("items",)
    class Binding(_message.Message):
        __slots__ = ("id", "group", "identity", "role", "email", "claim_match_issuer", "claim_match_subject", "created_at", "email_unverified")
        ID_FIELD_NUMBER: _ClassVar[int]
        GROUP_FIELD_NUMBER: _ClassVar[int]
        IDENTITY_FIELD_NUMBER: _ClassVar[int]
        ROLE_FIELD_NUMBER: _ClassVar[int]
        EMAIL_FIELD_NUMBER: _ClassVar[int]
        CLAIM_MATCH_ISSUER_FIELD_NUMBER: _ClassVar[int]
        CLAIM_MATCH_SUBJECT_FIELD_NUMBER: _ClassVar[int]
        CREATED_AT_FIELD_NUMBER: _ClassVar[int]
        EMAIL_UNVERIFIED_FIELD_NUMBER: _ClassVar[int]
        id: str
        group: _group_pb2.Group
        identity: str
        role: _role_pb2.Role
        email: str
        claim_match_issuer: str
        claim_match_subject: str
        created_at: _timestamp_pb2.Timestamp
        email_unverified: str
        def __init__(self, id: _Optional[str] = ..., group: _Optional[_Union[_group_pb2.Group, _Mapping]] = ..., identity: _Optional[str] = ..., role: _Optional[_Union[_role_pb2.Role, _Mapping]] = ..., email: _Optional[str] = ..., claim_match_issuer: _Optional[str] = ..., claim_match_subject: _Optional[str] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., email_unverified: _Optional[str] = ...) -> None: ...
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[RoleBindingList.Binding]
    def __init__(self, items: _Optional[_Iterable[_Union[RoleBindingList.Binding, _Mapping]]] = ...) -> None: ...

class RoleBindingFilter(_message.Message):
    __slots__ = ("id", "uidp")
    ID_FIELD_NUMBER: _ClassVar[int]
    UIDP_FIELD_NUMBER: _ClassVar[int]
    id: str
    uidp: _uidp_pb2.UIDPFilter
    def __init__(self, id: _Optional[str] = ..., uidp: _Optional[_Union[_uidp_pb2.UIDPFilter, _Mapping]] = ...) -> None: ...

class CreateRoleBindingRequest(_message.Message):
    __slots__ = ("parent", "role_binding")
    PARENT_FIELD_NUMBER: _ClassVar[int]
    ROLE_BINDING_FIELD_NUMBER: _ClassVar[int]
    parent: str
    role_binding: RoleBinding
    def __init__(self, parent: _Optional[str] = ..., role_binding: _Optional[_Union[RoleBinding, _Mapping]] = ...) -> None: ...

class CreateRoleBindingBatchRequest(_message.Message):
    __slots__ = ("parent", "role_bindings")
    PARENT_FIELD_NUMBER: _ClassVar[int]
    ROLE_BINDINGS_FIELD_NUMBER: _ClassVar[int]
    parent: str
    role_bindings: _containers.RepeatedCompositeFieldContainer[RoleBinding]
    def __init__(self, parent: _Optional[str] = ..., role_bindings: _Optional[_Iterable[_Union[RoleBinding, _Mapping]]] = ...) -> None: ...

class RoleBindingBatch(_message.Message):
    __slots__ = ("role_bindings",)
    ROLE_BINDINGS_FIELD_NUMBER: _ClassVar[int]
    role_bindings: _containers.RepeatedCompositeFieldContainer[RoleBinding]
    def __init__(self, role_bindings: _Optional[_Iterable[_Union[RoleBinding, _Mapping]]] = ...) -> None: ...

class DeleteRoleBindingRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...
