import datetime

from platform_api.gen.chainguard.platform.iam.v1 import role_pb2 as _role_pb2
from google.api import annotations_pb2 as _annotations_pb2
from google.protobuf import duration_pb2 as _duration_pb2
from google.protobuf import empty_pb2 as _empty_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from platform_api.gen.platformapi import annotations_pb2 as _annotations_pb2_1
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class RegistrationRequest(_message.Message):
    __slots__ = ("human", "cluster")
    class Human(_message.Message):
        __slots__ = ("code",)
        CODE_FIELD_NUMBER: _ClassVar[int]
        code: str
        def __init__(self, code: _Optional[str] = ...) -> None: ...
    class Cluster(_message.Message):
        __slots__ = ("code", "cluster_id")
        CODE_FIELD_NUMBER: _ClassVar[int]
        CLUSTER_ID_FIELD_NUMBER: _ClassVar[int]
        code: str
        cluster_id: str
        def __init__(self, code: _Optional[str] = ..., cluster_id: _Optional[str] = ...) -> None: ...
    HUMAN_FIELD_NUMBER: _ClassVar[int]
    CLUSTER_FIELD_NUMBER: _ClassVar[int]
    human: RegistrationRequest.Human
    cluster: RegistrationRequest.Cluster
    def __init__(self, human: _Optional[_Union[RegistrationRequest.Human, _Mapping]] = ..., cluster: _Optional[_Union[RegistrationRequest.Cluster, _Mapping]] = ...) -> None: ...

class GroupInvite(_message.Message):
    __slots__ = ("id", "expiration", "key_id", "role", "code")
    ID_FIELD_NUMBER: _ClassVar[int]
    EXPIRATION_FIELD_NUMBER: _ClassVar[int]
    KEY_ID_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    id: str
    expiration: _timestamp_pb2.Timestamp
    key_id: str
    role: _role_pb2.Role
    code: str
    def __init__(self, id: _Optional[str] = ..., expiration: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., key_id: _Optional[str] = ..., role: _Optional[_Union[_role_pb2.Role, _Mapping]] = ..., code: _Optional[str] = ...) -> None: ...

class StoredGroupInvite(_message.Message):
    __slots__ = ("id", "expiration", "key_id", "role", "email", "created_at", "single_use")
    ID_FIELD_NUMBER: _ClassVar[int]
    EXPIRATION_FIELD_NUMBER: _ClassVar[int]
    KEY_ID_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    SINGLE_USE_FIELD_NUMBER: _ClassVar[int]
    id: str
    expiration: _timestamp_pb2.Timestamp
    key_id: str
    role: _role_pb2.Role
    email: str
    created_at: _timestamp_pb2.Timestamp
    single_use: bool
    def __init__(self, id: _Optional[str] = ..., expiration: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., key_id: _Optional[str] = ..., role: _Optional[_Union[_role_pb2.Role, _Mapping]] = ..., email: _Optional[str] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., single_use: _Optional[bool] = ...) -> None: ...

class GroupInviteList(_message.Message):
    __slots__ = ("items",)
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[StoredGroupInvite]
    def __init__(self, items: _Optional[_Iterable[_Union[StoredGroupInvite, _Mapping]]] = ...) -> None: ...

class GroupInviteRequest(_message.Message):
    __slots__ = ("group", "ttl", "role", "email", "single_use")
    GROUP_FIELD_NUMBER: _ClassVar[int]
    TTL_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    SINGLE_USE_FIELD_NUMBER: _ClassVar[int]
    group: str
    ttl: _duration_pb2.Duration
    role: str
    email: str
    single_use: bool
    def __init__(self, group: _Optional[str] = ..., ttl: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., role: _Optional[str] = ..., email: _Optional[str] = ..., single_use: _Optional[bool] = ...) -> None: ...

class DeleteGroupInviteRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class GroupInviteFilter(_message.Message):
    __slots__ = ("group", "id", "key_id")
    GROUP_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    KEY_ID_FIELD_NUMBER: _ClassVar[int]
    group: str
    id: str
    key_id: str
    def __init__(self, group: _Optional[str] = ..., id: _Optional[str] = ..., key_id: _Optional[str] = ...) -> None: ...
