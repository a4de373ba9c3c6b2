import datetime

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

class Ecosystem(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ECOSYSTEM_UNSPECIFIED: _ClassVar[Ecosystem]
    ECOSYSTEM_JAVA: _ClassVar[Ecosystem]
    ECOSYSTEM_PYTHON: _ClassVar[Ecosystem]
ECOSYSTEM_UNSPECIFIED: Ecosystem
ECOSYSTEM_JAVA: Ecosystem
ECOSYSTEM_PYTHON: Ecosystem

class Artifact(_message.Message):
    __slots__ = ("uid", "name", "description", "ecosystem", "latest_version", "version_count", "create_time", "update_time")
    UID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    ECOSYSTEM_FIELD_NUMBER: _ClassVar[int]
    LATEST_VERSION_FIELD_NUMBER: _ClassVar[int]
    VERSION_COUNT_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    UPDATE_TIME_FIELD_NUMBER: _ClassVar[int]
    uid: str
    name: str
    description: str
    ecosystem: Ecosystem
    latest_version: str
    version_count: int
    create_time: _timestamp_pb2.Timestamp
    update_time: _timestamp_pb2.Timestamp
    def __init__(self, uid: _Optional[str] = ..., name: _Optional[str] = ..., description: _Optional[str] = ..., ecosystem: _Optional[_Union[Ecosystem, str]] = ..., latest_version: _Optional[str] = ..., version_count: _Optional[int] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., update_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ArtifactVersion(_message.Message):
    __slots__ = ("uid", "name", "version", "description", "create_time", "update_time", "size_bytes")
    UID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    UPDATE_TIME_FIELD_NUMBER: _ClassVar[int]
    SIZE_BYTES_FIELD_NUMBER: _ClassVar[int]
    uid: str
    name: str
    version: str
    description: str
    create_time: _timestamp_pb2.Timestamp
    update_time: _timestamp_pb2.Timestamp
    size_bytes: int
    def __init__(self, uid: _Optional[str] = ..., name: _Optional[str] = ..., version: _Optional[str] = ..., description: _Optional[str] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., update_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., size_bytes: _Optional[int] = ...) -> None: ...

class ListArtifactsRequest(_message.Message):
    __slots__ = ("ecosystems", "query", "cuda_version", "remediated", "page_size", "page_token", "skip", "order_by")
    ECOSYSTEMS_FIELD_NUMBER: _ClassVar[int]
    QUERY_FIELD_NUMBER: _ClassVar[int]
    CUDA_VERSION_FIELD_NUMBER: _ClassVar[int]
    REMEDIATED_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    SKIP_FIELD_NUMBER: _ClassVar[int]
    ORDER_BY_FIELD_NUMBER: _ClassVar[int]
    ecosystems: _containers.RepeatedScalarFieldContainer[Ecosystem]
    query: str
    cuda_version: str
    remediated: bool
    page_size: int
    page_token: str
    skip: int
    order_by: str
    def __init__(self, ecosystems: _Optional[_Iterable[_Union[Ecosystem, str]]] = ..., query: _Optional[str] = ..., cuda_version: _Optional[str] = ..., remediated: _Optional[bool] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., skip: _Optional[int] = ..., order_by: _Optional[str] = ...) -> None: ...

class ListArtifactsResponse(_message.Message):
    __slots__ = ("artifacts", "next_page_token", "total_count", "skipped")
    ARTIFACTS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    TOTAL_COUNT_FIELD_NUMBER: _ClassVar[int]
    SKIPPED_FIELD_NUMBER: _ClassVar[int]
    artifacts: _containers.RepeatedCompositeFieldContainer[Artifact]
    next_page_token: str
    total_count: int
    skipped: int
    def __init__(self, artifacts: _Optional[_Iterable[_Union[Artifact, _Mapping]]] = ..., next_page_token: _Optional[str] = ..., total_count: _Optional[int] = ..., skipped: _Optional[int] = ...) -> None: ...

class ListArtifactVersionsRequest(_message.Message):
    __slots__ = ("artifact_id", "page_size", "page_token", "skip", "order_by")
    ARTIFACT_ID_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    SKIP_FIELD_NUMBER: _ClassVar[int]
    ORDER_BY_FIELD_NUMBER: _ClassVar[int]
    artifact_id: str
    page_size: int
    page_token: str
    skip: int
    order_by: str
    def __init__(self, artifact_id: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., skip: _Optional[int] = ..., order_by: _Optional[str] = ...) -> None: ...

class ListArtifactVersionsResponse(_message.Message):
    __slots__ = ("artifact_versions", "next_page_token", "total_count", "skipped")
    ARTIFACT_VERSIONS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    TOTAL_COUNT_FIELD_NUMBER: _ClassVar[int]
    SKIPPED_FIELD_NUMBER: _ClassVar[int]
    artifact_versions: _containers.RepeatedCompositeFieldContainer[ArtifactVersion]
    next_page_token: str
    total_count: int
    skipped: int
    def __init__(self, artifact_versions: _Optional[_Iterable[_Union[ArtifactVersion, _Mapping]]] = ..., next_page_token: _Optional[str] = ..., total_count: _Optional[int] = ..., skipped: _Optional[int] = ...) -> None: ...

class GetArtifactCountRequest(_message.Message):
    __slots__ = ("ecosystems",)
    ECOSYSTEMS_FIELD_NUMBER: _ClassVar[int]
    ecosystems: _containers.RepeatedScalarFieldContainer[Ecosystem]
    def __init__(self, ecosystems: _Optional[_Iterable[_Union[Ecosystem, str]]] = ...) -> None: ...

class GetArtifactCountResponse(_message.Message):
    __slots__ = ("counts",)
    class EcosystemCount(_message.Message):
        __slots__ = ("ecosystem", "total_count")
        ECOSYSTEM_FIELD_NUMBER: _ClassVar[int]
        TOTAL_COUNT_FIELD_NUMBER: _ClassVar[int]
        ecosystem: Ecosystem
        total_count: int
        def __init__(self, ecosystem: _Optional[_Union[Ecosystem, str]] = ..., total_count: _Optional[int] = ...) -> None: ...
    COUNTS_FIELD_NUMBER: _ClassVar[int]
    counts: _containers.RepeatedCompositeFieldContainer[GetArtifactCountResponse.EcosystemCount]
    def __init__(self, counts: _Optional[_Iterable[_Union[GetArtifactCountResponse.EcosystemCount, _Mapping]]] = ...) -> None: ...
