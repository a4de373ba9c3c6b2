import datetime

from platform_api.gen.chainguard.platform.libraries.v1 import entitlements_pb2 as _entitlements_pb2
from google.api import annotations_pb2 as _annotations_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from platform_api.gen.platformapi import annotations_pb2 as _annotations_pb2_1
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class SourceType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SOURCE_TYPE_UNSPECIFIED: _ClassVar[SourceType]
    SOURCE_TYPE_INTERNAL: _ClassVar[SourceType]
    SOURCE_TYPE_INTERNAL_REMEDIATED: _ClassVar[SourceType]
    SOURCE_TYPE_UPSTREAM_REGISTRY: _ClassVar[SourceType]
SOURCE_TYPE_UNSPECIFIED: SourceType
SOURCE_TYPE_INTERNAL: SourceType
SOURCE_TYPE_INTERNAL_REMEDIATED: SourceType
SOURCE_TYPE_UPSTREAM_REGISTRY: SourceType

class Artifact(_message.Message):
    __slots__ = ("id", "name", "description", "ecosystem", "latest_version", "version_count", "created_at", "updated_at")
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    ECOSYSTEM_FIELD_NUMBER: _ClassVar[int]
    LATEST_VERSION_FIELD_NUMBER: _ClassVar[int]
    VERSION_COUNT_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    id: str
    name: str
    description: str
    ecosystem: _entitlements_pb2.Ecosystem
    latest_version: str
    version_count: int
    created_at: _timestamp_pb2.Timestamp
    updated_at: _timestamp_pb2.Timestamp
    def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ..., description: _Optional[str] = ..., ecosystem: _Optional[_Union[_entitlements_pb2.Ecosystem, str]] = ..., latest_version: _Optional[str] = ..., version_count: _Optional[int] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., updated_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ArtifactList(_message.Message):
    __slots__ = ("items", "next_page_token", "total_artifacts", "skipped")
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    TOTAL_ARTIFACTS_FIELD_NUMBER: _ClassVar[int]
    SKIPPED_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[Artifact]
    next_page_token: str
    total_artifacts: int
    skipped: int
    def __init__(self, items: _Optional[_Iterable[_Union[Artifact, _Mapping]]] = ..., next_page_token: _Optional[str] = ..., total_artifacts: _Optional[int] = ..., skipped: _Optional[int] = ...) -> None: ...

class ArtifactFilter(_message.Message):
    __slots__ = ("ecosystems", "query", "cuda_version", "remediated", "include_upstream", "page_size", "page_token", "skip")
    ECOSYSTEMS_FIELD_NUMBER: _ClassVar[int]
    QUERY_FIELD_NUMBER: _ClassVar[int]
    CUDA_VERSION_FIELD_NUMBER: _ClassVar[int]
    REMEDIATED_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_UPSTREAM_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    SKIP_FIELD_NUMBER: _ClassVar[int]
    ecosystems: _containers.RepeatedScalarFieldContainer[_entitlements_pb2.Ecosystem]
    query: str
    cuda_version: str
    remediated: bool
    include_upstream: bool
    page_size: int
    page_token: str
    skip: int
    def __init__(self, ecosystems: _Optional[_Iterable[_Union[_entitlements_pb2.Ecosystem, str]]] = ..., query: _Optional[str] = ..., cuda_version: _Optional[str] = ..., remediated: _Optional[bool] = ..., include_upstream: _Optional[bool] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., skip: _Optional[int] = ...) -> None: ...

class ArtifactVersionFilter(_message.Message):
    __slots__ = ("id", "include_upstream")
    ID_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_UPSTREAM_FIELD_NUMBER: _ClassVar[int]
    id: str
    include_upstream: bool
    def __init__(self, id: _Optional[str] = ..., include_upstream: _Optional[bool] = ...) -> None: ...

class ArtifactVersionList(_message.Message):
    __slots__ = ("items",)
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[ArtifactVersion]
    def __init__(self, items: _Optional[_Iterable[_Union[ArtifactVersion, _Mapping]]] = ...) -> None: ...

class ArtifactVersion(_message.Message):
    __slots__ = ("id", "name", "version", "description", "created_at", "updated_at", "size_bytes", "source_type", "malware_scanned", "malware_malicious", "upstream_published_date")
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    SIZE_BYTES_FIELD_NUMBER: _ClassVar[int]
    SOURCE_TYPE_FIELD_NUMBER: _ClassVar[int]
    MALWARE_SCANNED_FIELD_NUMBER: _ClassVar[int]
    MALWARE_MALICIOUS_FIELD_NUMBER: _ClassVar[int]
    UPSTREAM_PUBLISHED_DATE_FIELD_NUMBER: _ClassVar[int]
    id: str
    name: str
    version: str
    description: str
    created_at: _timestamp_pb2.Timestamp
    updated_at: _timestamp_pb2.Timestamp
    size_bytes: int
    source_type: SourceType
    malware_scanned: bool
    malware_malicious: bool
    upstream_published_date: _timestamp_pb2.Timestamp
    def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ..., version: _Optional[str] = ..., description: _Optional[str] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., updated_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., size_bytes: _Optional[int] = ..., source_type: _Optional[_Union[SourceType, str]] = ..., malware_scanned: _Optional[bool] = ..., malware_malicious: _Optional[bool] = ..., upstream_published_date: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class GetArtifactCountRequest(_message.Message):
    __slots__ = ("ecosystems",)
    ECOSYSTEMS_FIELD_NUMBER: _ClassVar[int]
    ecosystems: _containers.RepeatedScalarFieldContainer[_entitlements_pb2.Ecosystem]
    def __init__(self, ecosystems: _Optional[_Iterable[_Union[_entitlements_pb2.Ecosystem, str]]] = ...) -> None: ...

class GetArtifactCountResponse(_message.Message):
    __slots__ = ("counts",)
    class Count(_message.Message):
        __slots__ = ("ecosystem", "total_artifacts")
        ECOSYSTEM_FIELD_NUMBER: _ClassVar[int]
        TOTAL_ARTIFACTS_FIELD_NUMBER: _ClassVar[int]
        ecosystem: _entitlements_pb2.Ecosystem
        total_artifacts: int
        def __init__(self, ecosystem: _Optional[_Union[_entitlements_pb2.Ecosystem, str]] = ..., total_artifacts: _Optional[int] = ...) -> None: ...
    COUNTS_FIELD_NUMBER: _ClassVar[int]
    counts: _containers.RepeatedCompositeFieldContainer[GetArtifactCountResponse.Count]
    def __init__(self, counts: _Optional[_Iterable[_Union[GetArtifactCountResponse.Count, _Mapping]]] = ...) -> None: ...
