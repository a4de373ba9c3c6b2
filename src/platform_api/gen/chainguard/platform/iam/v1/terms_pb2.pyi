import datetime

from google.api import annotations_pb2 as _annotations_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from platform_api.gen.platformapi import annotations_pb2 as _annotations_pb2_1
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class AcceptTermsRequest(_message.Message):
    __slots__ = ("group", "document_ids")
    GROUP_FIELD_NUMBER: _ClassVar[int]
    DOCUMENT_IDS_FIELD_NUMBER: _ClassVar[int]
    group: str
    document_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, group: _Optional[str] = ..., document_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class AcceptTermsResponse(_message.Message):
    __slots__ = ("group", "document_ids")
    GROUP_FIELD_NUMBER: _ClassVar[int]
    DOCUMENT_IDS_FIELD_NUMBER: _ClassVar[int]
    group: str
    document_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, group: _Optional[str] = ..., document_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class TermsFilter(_message.Message):
    __slots__ = ("group",)
    GROUP_FIELD_NUMBER: _ClassVar[int]
    group: str
    def __init__(self, group: _Optional[str] = ...) -> None: ...

class TermsDocumentStatus(_message.Message):
    __slots__ = ("doc_id", "accepted_by", "accepted_at")
    DOC_ID_FIELD_NUMBER: _ClassVar[int]
    ACCEPTED_BY_FIELD_NUMBER: _ClassVar[int]
    ACCEPTED_AT_FIELD_NUMBER: _ClassVar[int]
    doc_id: str
    accepted_by: str
    accepted_at: _timestamp_pb2.Timestamp
    def __init__(self, doc_id: _Optional[str] = ..., accepted_by: _Optional[str] = ..., accepted_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class TermsList(_message.Message):
    __slots__ = ("items",)
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[TermsDocumentStatus]
    def __init__(self, items: _Optional[_Iterable[_Union[TermsDocumentStatus, _Mapping]]] = ...) -> None: ...

class MissingDocument(_message.Message):
    __slots__ = ("id", "label", "url")
    ID_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    id: str
    label: str
    url: str
    def __init__(self, id: _Optional[str] = ..., label: _Optional[str] = ..., url: _Optional[str] = ...) -> None: ...

class TermsNotAcceptedDetail(_message.Message):
    __slots__ = ("missing",)
    MISSING_FIELD_NUMBER: _ClassVar[int]
    missing: _containers.RepeatedCompositeFieldContainer[MissingDocument]
    def __init__(self, missing: _Optional[_Iterable[_Union[MissingDocument, _Mapping]]] = ...) -> None: ...
