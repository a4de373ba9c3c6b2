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

class TermsAcceptance(_message.Message):
    __slots__ = ("doc_id", "accepted_by", "org_uid", "create_time", "update_time")
    DOC_ID_FIELD_NUMBER: _ClassVar[int]
    ACCEPTED_BY_FIELD_NUMBER: _ClassVar[int]
    ORG_UID_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    UPDATE_TIME_FIELD_NUMBER: _ClassVar[int]
    doc_id: str
    accepted_by: str
    org_uid: str
    create_time: _timestamp_pb2.Timestamp
    update_time: _timestamp_pb2.Timestamp
    def __init__(self, doc_id: _Optional[str] = ..., accepted_by: _Optional[str] = ..., org_uid: _Optional[str] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., update_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ListTermsAcceptancesRequest(_message.Message):
    __slots__ = ("group", "page_size", "page_token", "order_by", "skip")
    GROUP_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    ORDER_BY_FIELD_NUMBER: _ClassVar[int]
    SKIP_FIELD_NUMBER: _ClassVar[int]
    group: str
    page_size: int
    page_token: str
    order_by: str
    skip: int
    def __init__(self, group: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., order_by: _Optional[str] = ..., skip: _Optional[int] = ...) -> None: ...

class ListTermsAcceptancesResponse(_message.Message):
    __slots__ = ("terms_acceptances", "next_page_token", "total_count", "skipped")
    TERMS_ACCEPTANCES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    TOTAL_COUNT_FIELD_NUMBER: _ClassVar[int]
    SKIPPED_FIELD_NUMBER: _ClassVar[int]
    terms_acceptances: _containers.RepeatedCompositeFieldContainer[TermsAcceptance]
    next_page_token: str
    total_count: int
    skipped: int
    def __init__(self, terms_acceptances: _Optional[_Iterable[_Union[TermsAcceptance, _Mapping]]] = ..., next_page_token: _Optional[str] = ..., total_count: _Optional[int] = ..., skipped: _Optional[int] = ...) -> None: ...

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
