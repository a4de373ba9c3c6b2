import datetime

from platform_api.gen.chainguard.capabilities import capabilities_pb2 as _capabilities_pb2
from platform_api.gen.chainguard.platform.common import uidp_pb2 as _uidp_pb2
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

class GroupInvite(_message.Message):
    __slots__ = ("uid", "role_uid", "role", "email", "ttl", "expiration_time", "single_use", "code", "key_id", "create_time", "update_time")
    UID_FIELD_NUMBER: _ClassVar[int]
    ROLE_UID_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    TTL_FIELD_NUMBER: _ClassVar[int]
    EXPIRATION_TIME_FIELD_NUMBER: _ClassVar[int]
    SINGLE_USE_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    KEY_ID_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    UPDATE_TIME_FIELD_NUMBER: _ClassVar[int]
    uid: str
    role_uid: str
    role: GroupInviteRole
    email: str
    ttl: _duration_pb2.Duration
    expiration_time: _timestamp_pb2.Timestamp
    single_use: bool
    code: str
    key_id: str
    create_time: _timestamp_pb2.Timestamp
    update_time: _timestamp_pb2.Timestamp
    def __init__(self, uid: _Optional[str] = ..., role_uid: _Optional[str] = ..., role: _Optional[_Union[GroupInviteRole, _Mapping]] = ..., email: _Optional[str] = ..., ttl: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., expiration_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., single_use: _Optional[bool] = ..., code: _Optional[str] = ..., key_id: _Optional[str] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., update_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class GroupInviteRole(_message.Message):
    __slots__ = ("uid", "name", "description", "capabilities")
    UID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    CAPABILITIES_FIELD_NUMBER: _ClassVar[int]
    uid: str
    name: str
    description: str
    capabilities: _containers.RepeatedScalarFieldContainer[_capabilities_pb2.Capability]
    def __init__(self, uid: _Optional[str] = ..., name: _Optional[str] = ..., description: _Optional[str] = ..., capabilities: _Optional[_Iterable[_Union[_capabilities_pb2.Capability, str]]] = ...) -> None: ...

class CreateGroupInviteRequest(_message.Message):
    __slots__ = ("parent", "group_invite")
    PARENT_FIELD_NUMBER: _ClassVar[int]
    GROUP_INVITE_FIELD_NUMBER: _ClassVar[int]
    parent: str
    group_invite: GroupInvite
    def __init__(self, parent: _Optional[str] = ..., group_invite: _Optional[_Union[GroupInvite, _Mapping]] = ...) -> None: ...

class GetGroupInviteRequest(_message.Message):
    __slots__ = ("uid",)
    UID_FIELD_NUMBER: _ClassVar[int]
    uid: str
    def __init__(self, uid: _Optional[str] = ...) -> None: ...

class DeleteGroupInviteRequest(_message.Message):
    __slots__ = ("uid",)
    UID_FIELD_NUMBER: _ClassVar[int]
    uid: str
    def __init__(self, uid: _Optional[str] = ...) -> None: ...

class ListGroupInvitesRequest(_message.Message):
    __slots__ = ("uidp", "key_id", "page_size", "page_token", "order_by", "skip")
    UIDP_FIELD_NUMBER: _ClassVar[int]
    KEY_ID_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    ORDER_BY_FIELD_NUMBER: _ClassVar[int]
    SKIP_FIELD_NUMBER: _ClassVar[int]
    uidp: _uidp_pb2.UIDPFilter
    key_id: str
    page_size: int
    page_token: str
    order_by: str
    skip: int
    def __init__(self, uidp: _Optional[_Union[_uidp_pb2.UIDPFilter, _Mapping]] = ..., key_id: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., order_by: _Optional[str] = ..., skip: _Optional[int] = ...) -> None: ...

class ListGroupInvitesResponse(_message.Message):
    __slots__ = ("group_invites", "next_page_token", "total_count", "skipped")
    GROUP_INVITES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    TOTAL_COUNT_FIELD_NUMBER: _ClassVar[int]
    SKIPPED_FIELD_NUMBER: _ClassVar[int]
    group_invites: _containers.RepeatedCompositeFieldContainer[GroupInvite]
    next_page_token: str
    total_count: int
    skipped: int
    def __init__(self, group_invites: _Optional[_Iterable[_Union[GroupInvite, _Mapping]]] = ..., next_page_token: _Optional[str] = ..., total_count: _Optional[int] = ..., skipped: _Optional[int] = ...) -> None: ...
