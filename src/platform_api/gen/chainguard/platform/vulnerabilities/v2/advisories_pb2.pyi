import datetime

from platform_api.gen.chainguard.platform.common import uidp_pb2 as _uidp_pb2
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

class ReviewState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    REVIEW_STATE_UNSPECIFIED: _ClassVar[ReviewState]
    REVIEW_STATE_PENDING: _ClassVar[ReviewState]
    REVIEW_STATE_APPROVED: _ClassVar[ReviewState]
    REVIEW_STATE_REQUEST_CHANGES: _ClassVar[ReviewState]
    REVIEW_STATE_REJECTED: _ClassVar[ReviewState]

class EventTypeFilter(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    EVENT_TYPE_FILTER_UNSPECIFIED: _ClassVar[EventTypeFilter]
    EVENT_TYPE_FILTER_DETECTION: _ClassVar[EventTypeFilter]
    EVENT_TYPE_FILTER_TRUE_POSITIVE_DETERMINATION: _ClassVar[EventTypeFilter]
    EVENT_TYPE_FILTER_FIXED: _ClassVar[EventTypeFilter]
    EVENT_TYPE_FILTER_FALSE_POSITIVE_DETERMINATION: _ClassVar[EventTypeFilter]
    EVENT_TYPE_FILTER_ANALYSIS_NOT_PLANNED: _ClassVar[EventTypeFilter]
    EVENT_TYPE_FILTER_FIX_NOT_PLANNED: _ClassVar[EventTypeFilter]
    EVENT_TYPE_FILTER_PENDING_UPSTREAM_FIX: _ClassVar[EventTypeFilter]
    EVENT_TYPE_FILTER_PATCHED: _ClassVar[EventTypeFilter]
REVIEW_STATE_UNSPECIFIED: ReviewState
REVIEW_STATE_PENDING: ReviewState
REVIEW_STATE_APPROVED: ReviewState
REVIEW_STATE_REQUEST_CHANGES: ReviewState
REVIEW_STATE_REJECTED: ReviewState
EVENT_TYPE_FILTER_UNSPECIFIED: EventTypeFilter
EVENT_TYPE_FILTER_DETECTION: EventTypeFilter
EVENT_TYPE_FILTER_TRUE_POSITIVE_DETERMINATION: EventTypeFilter
EVENT_TYPE_FILTER_FIXED: EventTypeFilter
EVENT_TYPE_FILTER_FALSE_POSITIVE_DETERMINATION: EventTypeFilter
EVENT_TYPE_FILTER_ANALYSIS_NOT_PLANNED: EventTypeFilter
EVENT_TYPE_FILTER_FIX_NOT_PLANNED: EventTypeFilter
EVENT_TYPE_FILTER_PENDING_UPSTREAM_FIX: EventTypeFilter
EVENT_TYPE_FILTER_PATCHED: EventTypeFilter

class Advisory(_message.Message):
    __slots__ = ("uid", "advisory_id", "create_time", "update_time", "delete_time", "author", "artifact_name", "artifact_type", "artifact_architecture", "component_name", "component_location", "component_type", "aliases", "events", "legacy_advisory_id", "severities")
    UID_FIELD_NUMBER: _ClassVar[int]
    ADVISORY_ID_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    UPDATE_TIME_FIELD_NUMBER: _ClassVar[int]
    DELETE_TIME_FIELD_NUMBER: _ClassVar[int]
    AUTHOR_FIELD_NUMBER: _ClassVar[int]
    ARTIFACT_NAME_FIELD_NUMBER: _ClassVar[int]
    ARTIFACT_TYPE_FIELD_NUMBER: _ClassVar[int]
    ARTIFACT_ARCHITECTURE_FIELD_NUMBER: _ClassVar[int]
    COMPONENT_NAME_FIELD_NUMBER: _ClassVar[int]
    COMPONENT_LOCATION_FIELD_NUMBER: _ClassVar[int]
    COMPONENT_TYPE_FIELD_NUMBER: _ClassVar[int]
    ALIASES_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    LEGACY_ADVISORY_ID_FIELD_NUMBER: _ClassVar[int]
    SEVERITIES_FIELD_NUMBER: _ClassVar[int]
    uid: str
    advisory_id: str
    create_time: _timestamp_pb2.Timestamp
    update_time: _timestamp_pb2.Timestamp
    delete_time: _timestamp_pb2.Timestamp
    author: str
    artifact_name: str
    artifact_type: str
    artifact_architecture: str
    component_name: str
    component_location: str
    component_type: str
    aliases: _containers.RepeatedScalarFieldContainer[str]
    events: _containers.RepeatedCompositeFieldContainer[AdvisoryEvent]
    legacy_advisory_id: str
    severities: _containers.RepeatedCompositeFieldContainer[Severity]
    def __init__(self, uid: _Optional[str] = ..., advisory_id: _Optional[str] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., update_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., delete_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., author: _Optional[str] = ..., artifact_name: _Optional[str] = ..., artifact_type: _Optional[str] = ..., artifact_architecture: _Optional[str] = ..., component_name: _Optional[str] = ..., component_location: _Optional[str] = ..., component_type: _Optional[str] = ..., aliases: _Optional[_Iterable[str]] = ..., events: _Optional[_Iterable[_Union[AdvisoryEvent, _Mapping]]] = ..., legacy_advisory_id: _Optional[str] = ..., severities: _Optional[_Iterable[_Union[Severity, _Mapping]]] = ...) -> None: ...

class Severity(_message.Message):
    __slots__ = ("type", "score")
    class Type(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        TYPE_UNSPECIFIED: _ClassVar[Severity.Type]
        TYPE_CVSS_V2: _ClassVar[Severity.Type]
        TYPE_CVSS_V3: _ClassVar[Severity.Type]
        TYPE_CVSS_V4: _ClassVar[Severity.Type]
    TYPE_UNSPECIFIED: Severity.Type
    TYPE_CVSS_V2: Severity.Type
    TYPE_CVSS_V3: Severity.Type
    TYPE_CVSS_V4: Severity.Type
    TYPE_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    type: Severity.Type
    score: str
    def __init__(self, type: _Optional[_Union[Severity.Type, str]] = ..., score: _Optional[str] = ...) -> None: ...

class AdvisoryEvent(_message.Message):
    __slots__ = ("uid", "create_time", "findings", "author", "reviewer", "review_state", "issue", "detection", "fixed", "false_positive_determination", "analysis_not_planned", "fix_not_planned", "pending_upstream_fix", "true_positive_determination", "patched")
    class Detection(_message.Message):
        __slots__ = ("nvdapi", "manual", "scanv1")
        class NVDAPI(_message.Message):
            __slots__ = ("cpe_searched", "cpe_found")
            CPE_SEARCHED_FIELD_NUMBER: _ClassVar[int]
            CPE_FOUND_FIELD_NUMBER: _ClassVar[int]
            cpe_searched: str
            cpe_found: str
            def __init__(self, cpe_searched: _Optional[str] = ..., cpe_found: _Optional[str] = ...) -> None: ...
        class Manual(_message.Message):
            __slots__ = ()
            def __init__(self) -> None: ...
        class ScanV1(_message.Message):
            __slots__ = ("scanner", "subpackage", "component_id", "component", "component_version", "component_type", "component_location", "artifact_version", "scanner_version", "grype_db_built", "grype_db_checksum")
            SCANNER_FIELD_NUMBER: _ClassVar[int]
            SUBPACKAGE_FIELD_NUMBER: _ClassVar[int]
            COMPONENT_ID_FIELD_NUMBER: _ClassVar[int]
            COMPONENT_FIELD_NUMBER: _ClassVar[int]
            COMPONENT_VERSION_FIELD_NUMBER: _ClassVar[int]
            COMPONENT_TYPE_FIELD_NUMBER: _ClassVar[int]
            COMPONENT_LOCATION_FIELD_NUMBER: _ClassVar[int]
            ARTIFACT_VERSION_FIELD_NUMBER: _ClassVar[int]
            SCANNER_VERSION_FIELD_NUMBER: _ClassVar[int]
            GRYPE_DB_BUILT_FIELD_NUMBER: _ClassVar[int]
            GRYPE_DB_CHECKSUM_FIELD_NUMBER: _ClassVar[int]
            scanner: str
            subpackage: str
            component_id: str
            component: str
            component_version: str
            component_type: str
            component_location: str
            artifact_version: str
            scanner_version: str
            grype_db_built: str
            grype_db_checksum: str
            def __init__(self, scanner: _Optional[str] = ..., subpackage: _Optional[str] = ..., component_id: _Optional[str] = ..., component: _Optional[str] = ..., component_version: _Optional[str] = ..., component_type: _Optional[str] = ..., component_location: _Optional[str] = ..., artifact_version: _Optional[str] = ..., scanner_version: _Optional[str] = ..., grype_db_built: _Optional[str] = ..., grype_db_checksum: _Optional[str] = ...) -> None: ...
        NVDAPI_FIELD_NUMBER: _ClassVar[int]
        MANUAL_FIELD_NUMBER: _ClassVar[int]
        SCANV1_FIELD_NUMBER: _ClassVar[int]
        nvdapi: AdvisoryEvent.Detection.NVDAPI
        manual: AdvisoryEvent.Detection.Manual
        scanv1: AdvisoryEvent.Detection.ScanV1
        def __init__(self, nvdapi: _Optional[_Union[AdvisoryEvent.Detection.NVDAPI, _Mapping]] = ..., manual: _Optional[_Union[AdvisoryEvent.Detection.Manual, _Mapping]] = ..., scanv1: _Optional[_Union[AdvisoryEvent.Detection.ScanV1, _Mapping]] = ...) -> None: ...
    class Fixed(_message.Message):
        __slots__ = ("fixed_version", "note", "scanner_version", "grype_db_built", "grype_db_checksum")
        FIXED_VERSION_FIELD_NUMBER: _ClassVar[int]
        NOTE_FIELD_NUMBER: _ClassVar[int]
        SCANNER_VERSION_FIELD_NUMBER: _ClassVar[int]
        GRYPE_DB_BUILT_FIELD_NUMBER: _ClassVar[int]
        GRYPE_DB_CHECKSUM_FIELD_NUMBER: _ClassVar[int]
        fixed_version: str
        note: str
        scanner_version: str
        grype_db_built: str
        grype_db_checksum: str
        def __init__(self, fixed_version: _Optional[str] = ..., note: _Optional[str] = ..., scanner_version: _Optional[str] = ..., grype_db_built: _Optional[str] = ..., grype_db_checksum: _Optional[str] = ...) -> None: ...
    class TruePositiveDetermination(_message.Message):
        __slots__ = ("note",)
        NOTE_FIELD_NUMBER: _ClassVar[int]
        note: str
        def __init__(self, note: _Optional[str] = ...) -> None: ...
    class FalsePositiveDetermination(_message.Message):
        __slots__ = ("type", "note")
        class Type(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
            __slots__ = ()
            TYPE_UNSPECIFIED: _ClassVar[AdvisoryEvent.FalsePositiveDetermination.Type]
            TYPE_VULNERABILITY_RECORD_ANALYSIS_CONTESTED: _ClassVar[AdvisoryEvent.FalsePositiveDetermination.Type]
            TYPE_COMPONENT_VULNERABILITY_MISMATCH: _ClassVar[AdvisoryEvent.FalsePositiveDetermination.Type]
            TYPE_VULNERABLE_CODE_VERSION_NOT_USED: _ClassVar[AdvisoryEvent.FalsePositiveDetermination.Type]
            TYPE_VULNERABLE_CODE_NOT_INCLUDED_IN_PACKAGE: _ClassVar[AdvisoryEvent.FalsePositiveDetermination.Type]
            TYPE_VULNERABLE_CODE_NOT_IN_EXECUTION_PATH: _ClassVar[AdvisoryEvent.FalsePositiveDetermination.Type]
            TYPE_VULNERABLE_CODE_CANNOT_BE_CONTROLLED_BY_ADVERSARY: _ClassVar[AdvisoryEvent.FalsePositiveDetermination.Type]
            TYPE_INLINE_MITIGATIONS_EXIST: _ClassVar[AdvisoryEvent.FalsePositiveDetermination.Type]
        TYPE_UNSPECIFIED: AdvisoryEvent.FalsePositiveDetermination.Type
        TYPE_VULNERABILITY_RECORD_ANALYSIS_CONTESTED: AdvisoryEvent.FalsePositiveDetermination.Type
        TYPE_COMPONENT_VULNERABILITY_MISMATCH: AdvisoryEvent.FalsePositiveDetermination.Type
        TYPE_VULNERABLE_CODE_VERSION_NOT_USED: AdvisoryEvent.FalsePositiveDetermination.Type
        TYPE_VULNERABLE_CODE_NOT_INCLUDED_IN_PACKAGE: AdvisoryEvent.FalsePositiveDetermination.Type
        TYPE_VULNERABLE_CODE_NOT_IN_EXECUTION_PATH: AdvisoryEvent.FalsePositiveDetermination.Type
        TYPE_VULNERABLE_CODE_CANNOT_BE_CONTROLLED_BY_ADVERSARY: AdvisoryEvent.FalsePositiveDetermination.Type
        TYPE_INLINE_MITIGATIONS_EXIST: AdvisoryEvent.FalsePositiveDetermination.Type
        TYPE_FIELD_NUMBER: _ClassVar[int]
        NOTE_FIELD_NUMBER: _ClassVar[int]
        type: AdvisoryEvent.FalsePositiveDetermination.Type
        note: str
        def __init__(self, type: _Optional[_Union[AdvisoryEvent.FalsePositiveDetermination.Type, str]] = ..., note: _Optional[str] = ...) -> None: ...
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
    class Patched(_message.Message):
        __slots__ = ("patched_versions", "note")
        PATCHED_VERSIONS_FIELD_NUMBER: _ClassVar[int]
        NOTE_FIELD_NUMBER: _ClassVar[int]
        patched_versions: _containers.RepeatedScalarFieldContainer[str]
        note: str
        def __init__(self, patched_versions: _Optional[_Iterable[str]] = ..., note: _Optional[str] = ...) -> None: ...
    UID_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    FINDINGS_FIELD_NUMBER: _ClassVar[int]
    AUTHOR_FIELD_NUMBER: _ClassVar[int]
    REVIEWER_FIELD_NUMBER: _ClassVar[int]
    REVIEW_STATE_FIELD_NUMBER: _ClassVar[int]
    ISSUE_FIELD_NUMBER: _ClassVar[int]
    DETECTION_FIELD_NUMBER: _ClassVar[int]
    FIXED_FIELD_NUMBER: _ClassVar[int]
    FALSE_POSITIVE_DETERMINATION_FIELD_NUMBER: _ClassVar[int]
    ANALYSIS_NOT_PLANNED_FIELD_NUMBER: _ClassVar[int]
    FIX_NOT_PLANNED_FIELD_NUMBER: _ClassVar[int]
    PENDING_UPSTREAM_FIX_FIELD_NUMBER: _ClassVar[int]
    TRUE_POSITIVE_DETERMINATION_FIELD_NUMBER: _ClassVar[int]
    PATCHED_FIELD_NUMBER: _ClassVar[int]
    uid: str
    create_time: _timestamp_pb2.Timestamp
    findings: bytes
    author: str
    reviewer: str
    review_state: ReviewState
    issue: str
    detection: AdvisoryEvent.Detection
    fixed: AdvisoryEvent.Fixed
    false_positive_determination: AdvisoryEvent.FalsePositiveDetermination
    analysis_not_planned: AdvisoryEvent.AnalysisNotPlanned
    fix_not_planned: AdvisoryEvent.FixNotPlanned
    pending_upstream_fix: AdvisoryEvent.PendingUpstreamFix
    true_positive_determination: AdvisoryEvent.TruePositiveDetermination
    patched: AdvisoryEvent.Patched
    def __init__(self, uid: _Optional[str] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., findings: _Optional[bytes] = ..., author: _Optional[str] = ..., reviewer: _Optional[str] = ..., review_state: _Optional[_Union[ReviewState, str]] = ..., issue: _Optional[str] = ..., detection: _Optional[_Union[AdvisoryEvent.Detection, _Mapping]] = ..., fixed: _Optional[_Union[AdvisoryEvent.Fixed, _Mapping]] = ..., false_positive_determination: _Optional[_Union[AdvisoryEvent.FalsePositiveDetermination, _Mapping]] = ..., analysis_not_planned: _Optional[_Union[AdvisoryEvent.AnalysisNotPlanned, _Mapping]] = ..., fix_not_planned: _Optional[_Union[AdvisoryEvent.FixNotPlanned, _Mapping]] = ..., pending_upstream_fix: _Optional[_Union[AdvisoryEvent.PendingUpstreamFix, _Mapping]] = ..., true_positive_determination: _Optional[_Union[AdvisoryEvent.TruePositiveDetermination, _Mapping]] = ..., patched: _Optional[_Union[AdvisoryEvent.Patched, _Mapping]] = ...) -> None: ...

class GetAdvisoryRequest(_message.Message):
    __slots__ = ("uid",)
    UID_FIELD_NUMBER: _ClassVar[int]
    uid: str
    def __init__(self, uid: _Optional[str] = ...) -> None: ...

class ListAdvisoriesRequest(_message.Message):
    __slots__ = ("uidp", "advisory_ids", "legacy_advisory_ids", "artifact_names", "artifact_types", "artifact_architectures", "component_names", "component_types", "component_locations", "aliases", "origin", "event_review_states", "event_authors", "exclude_event_authors", "event_reviewers", "event_types", "latest_event_type", "page_size", "page_token", "order_by", "skip", "query")
    UIDP_FIELD_NUMBER: _ClassVar[int]
    ADVISORY_IDS_FIELD_NUMBER: _ClassVar[int]
    LEGACY_ADVISORY_IDS_FIELD_NUMBER: _ClassVar[int]
    ARTIFACT_NAMES_FIELD_NUMBER: _ClassVar[int]
    ARTIFACT_TYPES_FIELD_NUMBER: _ClassVar[int]
    ARTIFACT_ARCHITECTURES_FIELD_NUMBER: _ClassVar[int]
    COMPONENT_NAMES_FIELD_NUMBER: _ClassVar[int]
    COMPONENT_TYPES_FIELD_NUMBER: _ClassVar[int]
    COMPONENT_LOCATIONS_FIELD_NUMBER: _ClassVar[int]
    ALIASES_FIELD_NUMBER: _ClassVar[int]
    ORIGIN_FIELD_NUMBER: _ClassVar[int]
    EVENT_REVIEW_STATES_FIELD_NUMBER: _ClassVar[int]
    EVENT_AUTHORS_FIELD_NUMBER: _ClassVar[int]
    EXCLUDE_EVENT_AUTHORS_FIELD_NUMBER: _ClassVar[int]
    EVENT_REVIEWERS_FIELD_NUMBER: _ClassVar[int]
    EVENT_TYPES_FIELD_NUMBER: _ClassVar[int]
    LATEST_EVENT_TYPE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    ORDER_BY_FIELD_NUMBER: _ClassVar[int]
    SKIP_FIELD_NUMBER: _ClassVar[int]
    QUERY_FIELD_NUMBER: _ClassVar[int]
    uidp: _uidp_pb2.UIDPFilter
    advisory_ids: _containers.RepeatedScalarFieldContainer[str]
    legacy_advisory_ids: _containers.RepeatedScalarFieldContainer[str]
    artifact_names: _containers.RepeatedScalarFieldContainer[str]
    artifact_types: _containers.RepeatedScalarFieldContainer[str]
    artifact_architectures: _containers.RepeatedScalarFieldContainer[str]
    component_names: _containers.RepeatedScalarFieldContainer[str]
    component_types: _containers.RepeatedScalarFieldContainer[str]
    component_locations: _containers.RepeatedScalarFieldContainer[str]
    aliases: _containers.RepeatedScalarFieldContainer[str]
    origin: str
    event_review_states: _containers.RepeatedScalarFieldContainer[ReviewState]
    event_authors: _containers.RepeatedScalarFieldContainer[str]
    exclude_event_authors: _containers.RepeatedScalarFieldContainer[str]
    event_reviewers: _containers.RepeatedScalarFieldContainer[str]
    event_types: _containers.RepeatedScalarFieldContainer[EventTypeFilter]
    latest_event_type: EventTypeFilter
    page_size: int
    page_token: str
    order_by: str
    skip: int
    query: str
    def __init__(self, uidp: _Optional[_Union[_uidp_pb2.UIDPFilter, _Mapping]] = ..., advisory_ids: _Optional[_Iterable[str]] = ..., legacy_advisory_ids: _Optional[_Iterable[str]] = ..., artifact_names: _Optional[_Iterable[str]] = ..., artifact_types: _Optional[_Iterable[str]] = ..., artifact_architectures: _Optional[_Iterable[str]] = ..., component_names: _Optional[_Iterable[str]] = ..., component_types: _Optional[_Iterable[str]] = ..., component_locations: _Optional[_Iterable[str]] = ..., aliases: _Optional[_Iterable[str]] = ..., origin: _Optional[str] = ..., event_review_states: _Optional[_Iterable[_Union[ReviewState, str]]] = ..., event_authors: _Optional[_Iterable[str]] = ..., exclude_event_authors: _Optional[_Iterable[str]] = ..., event_reviewers: _Optional[_Iterable[str]] = ..., event_types: _Optional[_Iterable[_Union[EventTypeFilter, str]]] = ..., latest_event_type: _Optional[_Union[EventTypeFilter, str]] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., order_by: _Optional[str] = ..., skip: _Optional[int] = ..., query: _Optional[str] = ...) -> None: ...

class ListAdvisoriesResponse(_message.Message):
    __slots__ = ("advisories", "next_page_token", "total_count", "skipped")
    ADVISORIES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    TOTAL_COUNT_FIELD_NUMBER: _ClassVar[int]
    SKIPPED_FIELD_NUMBER: _ClassVar[int]
    advisories: _containers.RepeatedCompositeFieldContainer[Advisory]
    next_page_token: str
    total_count: int
    skipped: int
    def __init__(self, advisories: _Optional[_Iterable[_Union[Advisory, _Mapping]]] = ..., next_page_token: _Optional[str] = ..., total_count: _Optional[int] = ..., skipped: _Optional[int] = ...) -> None: ...
