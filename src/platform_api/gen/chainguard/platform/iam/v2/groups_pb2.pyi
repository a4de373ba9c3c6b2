import datetime

from platform_api.gen.chainguard.platform.common import uidp_pb2 as _uidp_pb2
from google.api import annotations_pb2 as _annotations_pb2
from google.protobuf import empty_pb2 as _empty_pb2
from google.protobuf import field_mask_pb2 as _field_mask_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from platform_api.gen.platformapi import annotations_pb2 as _annotations_pb2_1
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Group(_message.Message):
    __slots__ = ("uid", "name", "description", "create_time", "update_time")
    UID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    UPDATE_TIME_FIELD_NUMBER: _ClassVar[int]
    uid: str
    name: str
    description: str
    create_time: _timestamp_pb2.Timestamp
    update_time: _timestamp_pb2.Timestamp
    def __init__(self, uid: _Optional[str] = ..., name: _Optional[str] = ..., description: _Optional[str] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., update_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class GetGroupRequest(_message.Message):
    __slots__ = ("uid",)
    UID_FIELD_NUMBER: _ClassVar[int]
    uid: str
    def __init__(self, uid: _Optional[str] = ...) -> None: ...

class DeleteGroupRequest(_message.Message):
    __slots__ = ("uid",)
    UID_FIELD_NUMBER: _ClassVar[int]
    uid: str
    def __init__(self, uid: _Optional[str] = ...) -> None: ...

class ListGroupsRequest(_message.Message):
    __slots__ = ("uidp", "name", "page_size", "page_token", "order_by", "skip")
    UIDP_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    ORDER_BY_FIELD_NUMBER: _ClassVar[int]
    SKIP_FIELD_NUMBER: _ClassVar[int]
    uidp: _uidp_pb2.UIDPFilter
    name: str
    page_size: int
    page_token: str
    order_by: str
    skip: int
    def __init__(self, uidp: _Optional[_Union[_uidp_pb2.UIDPFilter, _Mapping]] = ..., name: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., order_by: _Optional[str] = ..., skip: _Optional[int] = ...) -> None: ...

class ListGroupsResponse(_message.Message):
    __slots__ = ("groups", "next_page_token", "total_count", "skipped")
    GROUPS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    TOTAL_COUNT_FIELD_NUMBER: _ClassVar[int]
    SKIPPED_FIELD_NUMBER: _ClassVar[int]
    groups: _containers.RepeatedCompositeFieldContainer[Group]
    next_page_token: str
    total_count: int
    skipped: int
    def __init__(self, groups: _Optional[_Iterable[_Union[Group, _Mapping]]] = ..., next_page_token: _Optional[str] = ..., total_count: _Optional[int] = ..., skipped: _Optional[int] = ...) -> None: ...

class CreateGroupRequest(_message.Message):
    __slots__ = ("parent", "group")
    PARENT_FIELD_NUMBER: _ClassVar[int]
    GROUP_FIELD_NUMBER: _ClassVar[int]
    parent: str
    group: Group
    def __init__(self, parent: _Optional[str] = ..., group: _Optional[_Union[Group, _Mapping]] = ...) -> None: ...

class UpdateGroupRequest(_message.Message):
    __slots__ = ("group", "update_mask")
    GROUP_FIELD_NUMBER: _ClassVar[int]
    UPDATE_MASK_FIELD_NUMBER: _ClassVar[int]
    group: Group
    update_mask: _field_mask_pb2.FieldMask
    def __init__(self, group: _Optional[_Union[Group, _Mapping]] = ..., update_mask: _Optional[_Union[_field_mask_pb2.FieldMask, _Mapping]] = ...) -> None: ...

class LookupGroupRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class LookupGroupResponse(_message.Message):
    __slots__ = ("group",)
    GROUP_FIELD_NUMBER: _ClassVar[int]
    group: Group
    def __init__(self, group: _Optional[_Union[Group, _Mapping]] = ...) -> None: ...

class RequestGroupAccessRequest(_message.Message):
    __slots__ = ("group_uid",)
    GROUP_UID_FIELD_NUMBER: _ClassVar[int]
    group_uid: str
    def __init__(self, group_uid: _Optional[str] = ...) -> None: ...

class RequestGroupAccessResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class CheckEligibilityRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class CheckEligibilityResponse(_message.Message):
    __slots__ = ("eligible",)
    ELIGIBLE_FIELD_NUMBER: _ClassVar[int]
    eligible: bool
    def __init__(self, eligible: _Optional[bool] = ...) -> None: ...

class GroupDomain(_message.Message):
    __slots__ = ("domain", "state", "txt", "create_time", "verify_time")
    class State(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        STATE_UNSPECIFIED: _ClassVar[GroupDomain.State]
        STATE_PENDING: _ClassVar[GroupDomain.State]
        STATE_VERIFIED: _ClassVar[GroupDomain.State]
    STATE_UNSPECIFIED: GroupDomain.State
    STATE_PENDING: GroupDomain.State
    STATE_VERIFIED: GroupDomain.State
    DOMAIN_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    TXT_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    VERIFY_TIME_FIELD_NUMBER: _ClassVar[int]
    domain: str
    state: GroupDomain.State
    txt: str
    create_time: _timestamp_pb2.Timestamp
    verify_time: _timestamp_pb2.Timestamp
    def __init__(self, domain: _Optional[str] = ..., state: _Optional[_Union[GroupDomain.State, str]] = ..., txt: _Optional[str] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., verify_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ListGroupDomainsRequest(_message.Message):
    __slots__ = ("group_uid",)
    GROUP_UID_FIELD_NUMBER: _ClassVar[int]
    group_uid: str
    def __init__(self, group_uid: _Optional[str] = ...) -> None: ...

class ListGroupDomainsResponse(_message.Message):
    __slots__ = ("domains",)
    DOMAINS_FIELD_NUMBER: _ClassVar[int]
    domains: _containers.RepeatedCompositeFieldContainer[GroupDomain]
    def __init__(self, domains: _Optional[_Iterable[_Union[GroupDomain, _Mapping]]] = ...) -> None: ...

class AccessRequest(_message.Message):
    __slots__ = ("identity_uid", "name", "email", "request_time")
    IDENTITY_UID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    REQUEST_TIME_FIELD_NUMBER: _ClassVar[int]
    identity_uid: str
    name: str
    email: str
    request_time: _timestamp_pb2.Timestamp
    def __init__(self, identity_uid: _Optional[str] = ..., name: _Optional[str] = ..., email: _Optional[str] = ..., request_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ListAccessRequestsRequest(_message.Message):
    __slots__ = ("group_uid", "page_size", "page_token", "skip")
    GROUP_UID_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    SKIP_FIELD_NUMBER: _ClassVar[int]
    group_uid: str
    page_size: int
    page_token: str
    skip: int
    def __init__(self, group_uid: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., skip: _Optional[int] = ...) -> None: ...

class ListAccessRequestsResponse(_message.Message):
    __slots__ = ("access_requests", "next_page_token")
    ACCESS_REQUESTS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    access_requests: _containers.RepeatedCompositeFieldContainer[AccessRequest]
    next_page_token: str
    def __init__(self, access_requests: _Optional[_Iterable[_Union[AccessRequest, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...
