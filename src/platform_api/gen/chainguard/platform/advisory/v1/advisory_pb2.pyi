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

class ResolvedVulnsReportFilter(_message.Message):
    __slots__ = ("image_refs", "to")
    class ImageRef(_message.Message):
        __slots__ = ("repo", "tags")
        REPO_FIELD_NUMBER: _ClassVar[int]
        TAGS_FIELD_NUMBER: _ClassVar[int]
        repo: str
        tags: _containers.RepeatedScalarFieldContainer[str]
        def __init__(self, repo: _Optional[str] = ..., tags: _Optional[_Iterable[str]] = ...) -> None: ...
    IMAGE_REFS_FIELD_NUMBER: _ClassVar[int]
    FROM_FIELD_NUMBER: _ClassVar[int]
    TO_FIELD_NUMBER: _ClassVar[int]
    image_refs: _containers.RepeatedCompositeFieldContainer[ResolvedVulnsReportFilter.ImageRef]
    to: _timestamp_pb2.Timestamp
    def __init__(self, image_refs: _Optional[_Iterable[_Union[ResolvedVulnsReportFilter.ImageRef, _Mapping]]] = ..., to: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., **kwargs) -> None: ...

class ResolvedVulnsReportList(_message.Message):
    __slots__ = ("items",)
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[ResolvedVulnsReport]
    def __init__(self, items: _Optional[_Iterable[_Union[ResolvedVulnsReport, _Mapping]]] = ...) -> None: ...

class ResolvedVulnsReport(_message.Message):
    __slots__ = ("date", "resolved_vulns")
    DATE_FIELD_NUMBER: _ClassVar[int]
    RESOLVED_VULNS_FIELD_NUMBER: _ClassVar[int]
    date: _timestamp_pb2.Timestamp
    resolved_vulns: _containers.RepeatedCompositeFieldContainer[ResolvedVuln]
    def __init__(self, date: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., resolved_vulns: _Optional[_Iterable[_Union[ResolvedVuln, _Mapping]]] = ...) -> None: ...

class ResolvedVuln(_message.Message):
    __slots__ = ("id", "aliases", "cvss_severities")
    ID_FIELD_NUMBER: _ClassVar[int]
    ALIASES_FIELD_NUMBER: _ClassVar[int]
    CVSS_SEVERITIES_FIELD_NUMBER: _ClassVar[int]
    id: str
    aliases: _containers.RepeatedScalarFieldContainer[str]
    cvss_severities: _containers.RepeatedCompositeFieldContainer[Severity]
    def __init__(self, id: _Optional[str] = ..., aliases: _Optional[_Iterable[str]] = ..., cvss_severities: _Optional[_Iterable[_Union[Severity, _Mapping]]] = ...) -> None: ...

class VulnerabilityMetadata(_message.Message):
    __slots__ = ("id", "summary", "details", "references", "severity")
    ID_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    DETAILS_FIELD_NUMBER: _ClassVar[int]
    REFERENCES_FIELD_NUMBER: _ClassVar[int]
    SEVERITY_FIELD_NUMBER: _ClassVar[int]
    id: str
    summary: str
    details: str
    references: _containers.RepeatedCompositeFieldContainer[Reference]
    severity: _containers.RepeatedCompositeFieldContainer[Severity]
    def __init__(self, id: _Optional[str] = ..., summary: _Optional[str] = ..., details: _Optional[str] = ..., references: _Optional[_Iterable[_Union[Reference, _Mapping]]] = ..., severity: _Optional[_Iterable[_Union[Severity, _Mapping]]] = ...) -> None: ...

class Reference(_message.Message):
    __slots__ = ("type", "url")
    class Type(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        UNSPECIFIED: _ClassVar[Reference.Type]
        ADVISORY: _ClassVar[Reference.Type]
        ARTICLE: _ClassVar[Reference.Type]
        DETECTION: _ClassVar[Reference.Type]
        DISCUSSION: _ClassVar[Reference.Type]
        REPORT: _ClassVar[Reference.Type]
        FIX: _ClassVar[Reference.Type]
        INTRODUCED: _ClassVar[Reference.Type]
        PACKAGE: _ClassVar[Reference.Type]
        EVIDENCE: _ClassVar[Reference.Type]
        WEB: _ClassVar[Reference.Type]
    UNSPECIFIED: Reference.Type
    ADVISORY: Reference.Type
    ARTICLE: Reference.Type
    DETECTION: Reference.Type
    DISCUSSION: Reference.Type
    REPORT: Reference.Type
    FIX: Reference.Type
    INTRODUCED: Reference.Type
    PACKAGE: Reference.Type
    EVIDENCE: Reference.Type
    WEB: Reference.Type
    TYPE_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    type: Reference.Type
    url: str
    def __init__(self, type: _Optional[_Union[Reference.Type, str]] = ..., url: _Optional[str] = ...) -> None: ...

class Severity(_message.Message):
    __slots__ = ("type", "score")
    class Type(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        UNSPECIFIED: _ClassVar[Severity.Type]
        CVSS_V2: _ClassVar[Severity.Type]
        CVSS_V3: _ClassVar[Severity.Type]
        CVSS_V4: _ClassVar[Severity.Type]
        UBUNTU: _ClassVar[Severity.Type]
    UNSPECIFIED: Severity.Type
    CVSS_V2: Severity.Type
    CVSS_V3: Severity.Type
    CVSS_V4: Severity.Type
    UBUNTU: Severity.Type
    TYPE_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    type: Severity.Type
    score: str
    def __init__(self, type: _Optional[_Union[Severity.Type, str]] = ..., score: _Optional[str] = ...) -> None: ...

class Advisory(_message.Message):
    __slots__ = ("id", "events", "aliases", "package_namespace")
    ID_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    ALIASES_FIELD_NUMBER: _ClassVar[int]
    PACKAGE_NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    id: str
    events: _containers.RepeatedCompositeFieldContainer[Event]
    aliases: _containers.RepeatedScalarFieldContainer[str]
    package_namespace: str
    def __init__(self, id: _Optional[str] = ..., events: _Optional[_Iterable[_Union[Event, _Mapping]]] = ..., aliases: _Optional[_Iterable[str]] = ..., package_namespace: _Optional[str] = ...) -> None: ...

class Document(_message.Message):
    __slots__ = ("id", "advisories")
    ID_FIELD_NUMBER: _ClassVar[int]
    ADVISORIES_FIELD_NUMBER: _ClassVar[int]
    id: str
    advisories: _containers.RepeatedCompositeFieldContainer[Advisory]
    def __init__(self, id: _Optional[str] = ..., advisories: _Optional[_Iterable[_Union[Advisory, _Mapping]]] = ...) -> None: ...

class Event(_message.Message):
    __slots__ = ("timestamp", "true_positive_determination", "false_positive_determination", "fixed", "detection", "analysis_not_planned", "fix_not_planned", "pending_upstream_fix")
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    TRUE_POSITIVE_DETERMINATION_FIELD_NUMBER: _ClassVar[int]
    FALSE_POSITIVE_DETERMINATION_FIELD_NUMBER: _ClassVar[int]
    FIXED_FIELD_NUMBER: _ClassVar[int]
    DETECTION_FIELD_NUMBER: _ClassVar[int]
    ANALYSIS_NOT_PLANNED_FIELD_NUMBER: _ClassVar[int]
    FIX_NOT_PLANNED_FIELD_NUMBER: _ClassVar[int]
    PENDING_UPSTREAM_FIX_FIELD_NUMBER: _ClassVar[int]
    timestamp: _timestamp_pb2.Timestamp
    true_positive_determination: TruePositiveDetermination
    false_positive_determination: FalsePositiveDetermination
    fixed: Fixed
    detection: Detection
    analysis_not_planned: AnalysisNotPlanned
    fix_not_planned: FixNotPlanned
    pending_upstream_fix: PendingUpstreamFix
    def __init__(self, timestamp: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., true_positive_determination: _Optional[_Union[TruePositiveDetermination, _Mapping]] = ..., false_positive_determination: _Optional[_Union[FalsePositiveDetermination, _Mapping]] = ..., fixed: _Optional[_Union[Fixed, _Mapping]] = ..., detection: _Optional[_Union[Detection, _Mapping]] = ..., analysis_not_planned: _Optional[_Union[AnalysisNotPlanned, _Mapping]] = ..., fix_not_planned: _Optional[_Union[FixNotPlanned, _Mapping]] = ..., pending_upstream_fix: _Optional[_Union[PendingUpstreamFix, _Mapping]] = ...) -> None: ...

class TruePositiveDetermination(_message.Message):
    __slots__ = ("note",)
    NOTE_FIELD_NUMBER: _ClassVar[int]
    note: str
    def __init__(self, note: _Optional[str] = ...) -> None: ...

class FalsePositiveDetermination(_message.Message):
    __slots__ = ("type", "note")
    class Type(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        FPT_TYPE_UNSPECIFIED: _ClassVar[FalsePositiveDetermination.Type]
        FPT_TYPE_VULNERABILITY_RECORD_ANALYSIS_CONTESTED: _ClassVar[FalsePositiveDetermination.Type]
        FPT_TYPE_COMPONENT_VULNERABILITY_MISMATCH: _ClassVar[FalsePositiveDetermination.Type]
        FPT_TYPE_VULNERABLE_CODE_VERSION_NOT_USED: _ClassVar[FalsePositiveDetermination.Type]
        FPT_TYPE_VULNERABLE_CODE_NOT_INCLUDED_IN_PACKAGE: _ClassVar[FalsePositiveDetermination.Type]
        FPT_TYPE_VULNERABLE_CODE_NOT_IN_EXECUTION_PATH: _ClassVar[FalsePositiveDetermination.Type]
        FPT_TYPE_VULNERABLE_CODE_CANNOT_BE_CONTROLLED_BY_ADVERSARY: _ClassVar[FalsePositiveDetermination.Type]
        FPT_TYPE_INLINE_MITIGATIONS_EXIST: _ClassVar[FalsePositiveDetermination.Type]
    FPT_TYPE_UNSPECIFIED: FalsePositiveDetermination.Type
    FPT_TYPE_VULNERABILITY_RECORD_ANALYSIS_CONTESTED: FalsePositiveDetermination.Type
    FPT_TYPE_COMPONENT_VULNERABILITY_MISMATCH: FalsePositiveDetermination.Type
    FPT_TYPE_VULNERABLE_CODE_VERSION_NOT_USED: FalsePositiveDetermination.Type
    FPT_TYPE_VULNERABLE_CODE_NOT_INCLUDED_IN_PACKAGE: FalsePositiveDetermination.Type
    FPT_TYPE_VULNERABLE_CODE_NOT_IN_EXECUTION_PATH: FalsePositiveDetermination.Type
    FPT_TYPE_VULNERABLE_CODE_CANNOT_BE_CONTROLLED_BY_ADVERSARY: FalsePositiveDetermination.Type
    FPT_TYPE_INLINE_MITIGATIONS_EXIST: FalsePositiveDetermination.Type
    TYPE_FIELD_NUMBER: _ClassVar[int]
    NOTE_FIELD_NUMBER: _ClassVar[int]
    type: FalsePositiveDetermination.Type
    note: str
    def __init__(self, type: _Optional[_Union[FalsePositiveDetermination.Type, str]] = ..., note: _Optional[str] = ...) -> None: ...

class Fixed(_message.Message):
    __slots__ = ("fixed_version", "scanner_version", "grype_db_built", "grype_db_checksum")
    FIXED_VERSION_FIELD_NUMBER: _ClassVar[int]
    SCANNER_VERSION_FIELD_NUMBER: _ClassVar[int]
    GRYPE_DB_BUILT_FIELD_NUMBER: _ClassVar[int]
    GRYPE_DB_CHECKSUM_FIELD_NUMBER: _ClassVar[int]
    fixed_version: str
    scanner_version: str
    grype_db_built: str
    grype_db_checksum: str
    def __init__(self, fixed_version: _Optional[str] = ..., scanner_version: _Optional[str] = ..., grype_db_built: _Optional[str] = ..., grype_db_checksum: _Optional[str] = ...) -> None: ...

class Detection(_message.Message):
    __slots__ = ("nvdapi", "manual", "scanv1")
    class DetectionTypeNVDAPI(_message.Message):
        __slots__ = ("cpe_searched", "cpe_found")
        CPE_SEARCHED_FIELD_NUMBER: _ClassVar[int]
        CPE_FOUND_FIELD_NUMBER: _ClassVar[int]
        cpe_searched: str
        cpe_found: str
        def __init__(self, cpe_searched: _Optional[str] = ..., cpe_found: _Optional[str] = ...) -> None: ...
    class DetectionTypeManual(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class DetectionTypeScanV1(_message.Message):
        __slots__ = ("scanner", "subpackage_name", "component_id", "component_name", "component_version", "component_type", "component_location", "artifact_version", "scanner_version", "grype_db_built", "grype_db_checksum")
        SCANNER_FIELD_NUMBER: _ClassVar[int]
        SUBPACKAGE_NAME_FIELD_NUMBER: _ClassVar[int]
        COMPONENT_ID_FIELD_NUMBER: _ClassVar[int]
        COMPONENT_NAME_FIELD_NUMBER: _ClassVar[int]
        COMPONENT_VERSION_FIELD_NUMBER: _ClassVar[int]
        COMPONENT_TYPE_FIELD_NUMBER: _ClassVar[int]
        COMPONENT_LOCATION_FIELD_NUMBER: _ClassVar[int]
        ARTIFACT_VERSION_FIELD_NUMBER: _ClassVar[int]
        SCANNER_VERSION_FIELD_NUMBER: _ClassVar[int]
        GRYPE_DB_BUILT_FIELD_NUMBER: _ClassVar[int]
        GRYPE_DB_CHECKSUM_FIELD_NUMBER: _ClassVar[int]
        scanner: str
        subpackage_name: str
        component_id: str
        component_name: str
        component_version: str
        component_type: str
        component_location: str
        artifact_version: str
        scanner_version: str
        grype_db_built: str
        grype_db_checksum: str
        def __init__(self, scanner: _Optional[str] = ..., subpackage_name: _Optional[str] = ..., component_id: _Optional[str] = ..., component_name: _Optional[str] = ..., component_version: _Optional[str] = ..., component_type: _Optional[str] = ..., component_location: _Optional[str] = ..., artifact_version: _Optional[str] = ..., scanner_version: _Optional[str] = ..., grype_db_built: _Optional[str] = ..., grype_db_checksum: _Optional[str] = ...) -> None: ...
    NVDAPI_FIELD_NUMBER: _ClassVar[int]
    MANUAL_FIELD_NUMBER: _ClassVar[int]
    SCANV1_FIELD_NUMBER: _ClassVar[int]
    nvdapi: Detection.DetectionTypeNVDAPI
    manual: Detection.DetectionTypeManual
    scanv1: Detection.DetectionTypeScanV1
    def __init__(self, nvdapi: _Optional[_Union[Detection.DetectionTypeNVDAPI, _Mapping]] = ..., manual: _Optional[_Union[Detection.DetectionTypeManual, _Mapping]] = ..., scanv1: _Optional[_Union[Detection.DetectionTypeScanV1, _Mapping]] = ...) -> None: ...

class AnalysisNotPlanned(_message.Message):
    __slots__ = ("note",)
    NOTE_FIELD_NUMBER: _ClassVar[int]
    note: str
    def __init__(self, note: _Optional[str] = ...) -> None: ...

class FixNotPlanned(_message.Message):
    __slots__ = ("note",)
    NOTE_FIELD_NUMBER: _ClassVar[int]
    note: str
    def __init__(self, note: _Optional[str] = ...) -> None: ...

class PendingUpstreamFix(_message.Message):
    __slots__ = ("note",)
    NOTE_FIELD_NUMBER: _ClassVar[int]
    note: str
    def __init__(self, note: _Optional[str] = ...) -> None: ...

class DocumentFilter(_message.Message):
    __slots__ = ("id", "cves")
    ID_FIELD_NUMBER: _ClassVar[int]
    CVES_FIELD_NUMBER: _ClassVar[int]
    id: str
    cves: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, id: _Optional[str] = ..., cves: _Optional[_Iterable[str]] = ...) -> None: ...

class DocumentList(_message.Message):
    __slots__ = ("items",)
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[Document]
    def __init__(self, items: _Optional[_Iterable[_Union[Document, _Mapping]]] = ...) -> None: ...

class VulnerabilityMetadataFilter(_message.Message):
    __slots__ = ("id", "ids", "page_size", "page_token", "order_by", "skip")
    ID_FIELD_NUMBER: _ClassVar[int]
    IDS_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    ORDER_BY_FIELD_NUMBER: _ClassVar[int]
    SKIP_FIELD_NUMBER: _ClassVar[int]
    id: str
    ids: _containers.RepeatedScalarFieldContainer[str]
    page_size: int
    page_token: str
    order_by: str
    skip: int
    def __init__(self, id: _Optional[str] = ..., ids: _Optional[_Iterable[str]] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., order_by: _Optional[str] = ..., skip: _Optional[int] = ...) -> None: ...

class VulnerabilityMetadataList(_message.Message):
    __slots__ = ("items", "next_page_token", "total_count", "skipped")
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    TOTAL_COUNT_FIELD_NUMBER: _ClassVar[int]
    SKIPPED_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[VulnerabilityMetadata]
    next_page_token: str
    total_count: int
    skipped: int
    def __init__(self, items: _Optional[_Iterable[_Union[VulnerabilityMetadata, _Mapping]]] = ..., next_page_token: _Optional[str] = ..., total_count: _Optional[int] = ..., skipped: _Optional[int] = ...) -> None: ...
