import datetime

from platform_api.gen.chainguard.platform.common import uidp_pb2 as _uidp_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Sbom2(_message.Message):
    __slots__ = ("id", "raw_sbom", "graph", "last_seen", "tool", "format", "generated_at", "authors", "source", "name", "description", "digest")
    class Source(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        UNKNOWN: _ClassVar[Sbom2.Source]
        INGESTED: _ClassVar[Sbom2.Source]
        GENERATED: _ClassVar[Sbom2.Source]
    UNKNOWN: Sbom2.Source
    INGESTED: Sbom2.Source
    GENERATED: Sbom2.Source
    ID_FIELD_NUMBER: _ClassVar[int]
    RAW_SBOM_FIELD_NUMBER: _ClassVar[int]
    GRAPH_FIELD_NUMBER: _ClassVar[int]
    LAST_SEEN_FIELD_NUMBER: _ClassVar[int]
    TOOL_FIELD_NUMBER: _ClassVar[int]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    GENERATED_AT_FIELD_NUMBER: _ClassVar[int]
    AUTHORS_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    DIGEST_FIELD_NUMBER: _ClassVar[int]
    id: str
    raw_sbom: bytes
    graph: ComponentGraph
    last_seen: _timestamp_pb2.Timestamp
    tool: str
    format: str
    generated_at: _timestamp_pb2.Timestamp
    authors: str
    source: Sbom2.Source
    name: str
    description: str
    digest: str
    def __init__(self, id: _Optional[str] = ..., raw_sbom: _Optional[bytes] = ..., graph: _Optional[_Union[ComponentGraph, _Mapping]] = ..., last_seen: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., tool: _Optional[str] = ..., format: _Optional[str] = ..., generated_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., authors: _Optional[str] = ..., source: _Optional[_Union[Sbom2.Source, str]] = ..., name: _Optional[str] = ..., description: _Optional[str] = ..., digest: _Optional[str] = ...) -> None: ...

class ComponentGraph(_message.Message):
    __slots__ = ("nodes", "edges")
    class Node(_message.Message):
        __slots__ = ("package", "file")
        PACKAGE_FIELD_NUMBER: _ClassVar[int]
        FILE_FIELD_NUMBER: _ClassVar[int]
        package: Package2
        file: File2
        def __init__(self, package: _Optional[_Union[Package2, _Mapping]] = ..., file: _Optional[_Union[File2, _Mapping]] = ...) -> None: ...
    class Edge(_message.Message):
        __slots__ = ("subject_id", "predicate_id", "type")
        class Type(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
            __slots__ = ()
            UNKNOWN: _ClassVar[ComponentGraph.Edge.Type]
            DESCRIBES: _ClassVar[ComponentGraph.Edge.Type]
            CONTAINS: _ClassVar[ComponentGraph.Edge.Type]
            DEPENDS_ON: _ClassVar[ComponentGraph.Edge.Type]
            GENERATED_FROM: _ClassVar[ComponentGraph.Edge.Type]
        UNKNOWN: ComponentGraph.Edge.Type
        DESCRIBES: ComponentGraph.Edge.Type
        CONTAINS: ComponentGraph.Edge.Type
        DEPENDS_ON: ComponentGraph.Edge.Type
        GENERATED_FROM: ComponentGraph.Edge.Type
        SUBJECT_ID_FIELD_NUMBER: _ClassVar[int]
        PREDICATE_ID_FIELD_NUMBER: _ClassVar[int]
        TYPE_FIELD_NUMBER: _ClassVar[int]
        subject_id: str
        predicate_id: str
        type: ComponentGraph.Edge.Type
        def __init__(self, subject_id: _Optional[str] = ..., predicate_id: _Optional[str] = ..., type: _Optional[_Union[ComponentGraph.Edge.Type, str]] = ...) -> None: ...
    NODES_FIELD_NUMBER: _ClassVar[int]
    EDGES_FIELD_NUMBER: _ClassVar[int]
    nodes: _containers.RepeatedCompositeFieldContainer[ComponentGraph.Node]
    edges: _containers.RepeatedCompositeFieldContainer[ComponentGraph.Edge]
    def __init__(self, nodes: _Optional[_Iterable[_Union[ComponentGraph.Node, _Mapping]]] = ..., edges: _Optional[_Iterable[_Union[ComponentGraph.Edge, _Mapping]]] = ...) -> None: ...

class Package2(_message.Message):
    __slots__ = ("id", "name", "version", "license", "description", "purl")
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    LICENSE_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    PURL_FIELD_NUMBER: _ClassVar[int]
    id: str
    name: str
    version: str
    license: str
    description: str
    purl: str
    def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ..., version: _Optional[str] = ..., license: _Optional[str] = ..., description: _Optional[str] = ..., purl: _Optional[str] = ...) -> None: ...

class File2(_message.Message):
    __slots__ = ("id", "name", "types")
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    TYPES_FIELD_NUMBER: _ClassVar[int]
    id: str
    name: str
    types: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ..., types: _Optional[_Iterable[str]] = ...) -> None: ...

class Sbom2List(_message.Message):
    __slots__ = ("items",)
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[Sbom2]
    def __init__(self, items: _Optional[_Iterable[_Union[Sbom2, _Mapping]]] = ...) -> None: ...

class Sbom2Filter(_message.Message):
    __slots__ = ("id", "uidp", "active_since", "include_raw_sbom")
    ID_FIELD_NUMBER: _ClassVar[int]
    UIDP_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_SINCE_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_RAW_SBOM_FIELD_NUMBER: _ClassVar[int]
    id: str
    uidp: _uidp_pb2.UIDPFilter
    active_since: _timestamp_pb2.Timestamp
    include_raw_sbom: bool
    def __init__(self, id: _Optional[str] = ..., uidp: _Optional[_Union[_uidp_pb2.UIDPFilter, _Mapping]] = ..., active_since: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., include_raw_sbom: _Optional[bool] = ...) -> None: ...
