from platform_api.gen.chainguard.platform.common import uidp_pb2 as _uidp_pb2
from google.api import annotations_pb2 as _annotations_pb2
from google.protobuf import empty_pb2 as _empty_pb2
from platform_api.gen.platformapi import annotations_pb2 as _annotations_pb2_1
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class CreateSubscriptionRequest(_message.Message):
    __slots__ = ("parent_id", "subscription")
    PARENT_ID_FIELD_NUMBER: _ClassVar[int]
    SUBSCRIPTION_FIELD_NUMBER: _ClassVar[int]
    parent_id: str
    subscription: Subscription
    def __init__(self, parent_id: _Optional[str] = ..., subscription: _Optional[_Union[Subscription, _Mapping]] = ...) -> None: ...

class Subscription(_message.Message):
    __slots__ = ("id", "sink")
    ID_FIELD_NUMBER: _ClassVar[int]
    SINK_FIELD_NUMBER: _ClassVar[int]
    id: str
    sink: str
    def __init__(self, id: _Optional[str] = ..., sink: _Optional[str] = ...) -> None: ...

class SubscriptionList(_message.Message):
    __slots__ = ("items",)
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[Subscription]
    def __init__(self, items: _Optional[_Iterable[_Union[Subscription, _Mapping]]] = ...) -> None: ...

class SubscriptionFilter(_message.Message):
    __slots__ = ("id", "uidp")
    ID_FIELD_NUMBER: _ClassVar[int]
    UIDP_FIELD_NUMBER: _ClassVar[int]
    id: str
    uidp: _uidp_pb2.UIDPFilter
    def __init__(self, id: _Optional[str] = ..., uidp: _Optional[_Union[_uidp_pb2.UIDPFilter, _Mapping]] = ...) -> None: ...

class DeleteSubscriptionRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...
