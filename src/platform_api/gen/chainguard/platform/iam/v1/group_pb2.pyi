from platform_api.gen.chainguard.platform.common import uidp_pb2 as _uidp_pb2
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

class OrgStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ORG_STATUS_UNSPECIFIED: _ClassVar[OrgStatus]
    ORG_STATUS_INITIALIZING: _ClassVar[OrgStatus]
    ORG_STATUS_READY: _ClassVar[OrgStatus]
    ORG_STATUS_SUSPENDED: _ClassVar[OrgStatus]

class OrgKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ORG_KIND_UNSPECIFIED: _ClassVar[OrgKind]
    ORG_KIND_STARTER: _ClassVar[OrgKind]
    ORG_KIND_CUSTOMER: _ClassVar[OrgKind]
    ORG_KIND_DEV: _ClassVar[OrgKind]
    ORG_KIND_INFRA: _ClassVar[OrgKind]
    ORG_KIND_AWS_MARKETPLACE: _ClassVar[OrgKind]
ORG_STATUS_UNSPECIFIED: OrgStatus
ORG_STATUS_INITIALIZING: OrgStatus
ORG_STATUS_READY: OrgStatus
ORG_STATUS_SUSPENDED: OrgStatus
ORG_KIND_UNSPECIFIED: OrgKind
ORG_KIND_STARTER: OrgKind
ORG_KIND_CUSTOMER: OrgKind
ORG_KIND_DEV: OrgKind
ORG_KIND_INFRA: OrgKind
ORG_KIND_AWS_MARKETPLACE: OrgKind

class Group(_message.Message):
    __slots__ = ("id", "name", "description", "resource_limits", "verified", "kind", "status")
    class ResourceLimitsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    RESOURCE_LIMITS_FIELD_NUMBER: _ClassVar[int]
    VERIFIED_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    id: str
    name: str
    description: str
    resource_limits: _containers.ScalarMap[str, int]
    verified: bool
    kind: OrgKind
    status: OrgStatus
    def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ..., description: _Optional[str] = ..., resource_limits: _Optional[_Mapping[str, int]] = ..., verified: _Optional[bool] = ..., kind: _Optional[_Union[OrgKind, str]] = ..., status: _Optional[_Union[OrgStatus, str]] = ...) -> None: ...

class GroupList(_message.Message):
    __slots__ = ("items",)
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[Group]
    def __init__(self, items: _Optional[_Iterable[_Union[Group, _Mapping]]] = ...) -> None: ...

class GroupFilter(_message.Message):
    __slots__ = ("id", "uidp", "name")
    ID_FIELD_NUMBER: _ClassVar[int]
    UIDP_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    id: str
    uidp: _uidp_pb2.UIDPFilter
    name: str
    def __init__(self, id: _Optional[str] = ..., uidp: _Optional[_Union[_uidp_pb2.UIDPFilter, _Mapping]] = ..., name: _Optional[str] = ...) -> None: ...

class CreateGroupRequest(_message.Message):
    __slots__ = ("parent", "group")
    PARENT_FIELD_NUMBER: _ClassVar[int]
    GROUP_FIELD_NUMBER: _ClassVar[int]
    parent: str
    group: Group
    def __init__(self, parent: _Optional[str] = ..., group: _Optional[_Union[Group, _Mapping]] = ...) -> None: ...

class DeleteGroupRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class LookupGroupRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class LookupGroupResponse(_message.Message):
    __slots__ = ("group",)
    GROUP_FIELD_NUMBER: _ClassVar[int]
    group: Group
    def __init__(self, group: _Optional[_Union[Group, _Mapping]] = ...) -> None: ...

class RequestGroupAccessRequest(_message.Message):
    __slots__ = ("group_id",)
    GROUP_ID_FIELD_NUMBER: _ClassVar[int]
    group_id: str
    def __init__(self, group_id: _Optional[str] = ...) -> None: ...

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
