import datetime

from platform_api.gen.chainguard.platform.common import uidp_pb2 as _uidp_pb2
from google.api import annotations_pb2 as _annotations_pb2
from google.protobuf import empty_pb2 as _empty_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from platform_api.gen.platformapi import annotations_pb2 as _annotations_pb2_1
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ReviewStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    UNKNOWN: _ClassVar[ReviewStatus]
    PENDING: _ClassVar[ReviewStatus]
    APPROVED: _ClassVar[ReviewStatus]
    REQUEST_CHANGES: _ClassVar[ReviewStatus]
    REJECTED: _ClassVar[ReviewStatus]

class OrderBy(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ORDER_BY_UNSPECIFIED: _ClassVar[OrderBy]
    ID_ASC: _ClassVar[OrderBy]
    ID_DESC: _ClassVar[OrderBy]
    CREATED_AT_ASC: _ClassVar[OrderBy]
    CREATED_AT_DESC: _ClassVar[OrderBy]
    ALIASES_ASC: _ClassVar[OrderBy]
    ALIASES_DESC: _ClassVar[OrderBy]
    UPDATED_AT_ASC: _ClassVar[OrderBy]
    UPDATED_AT_DESC: _ClassVar[OrderBy]
    DELETED_AT_ASC: _ClassVar[OrderBy]
    DELETED_AT_DESC: _ClassVar[OrderBy]

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
    EVENT_TYPE_FILTER_COMPONENT_LOCATION_CHANGED: _ClassVar[EventTypeFilter]
UNKNOWN: ReviewStatus
PENDING: ReviewStatus
APPROVED: ReviewStatus
REQUEST_CHANGES: ReviewStatus
REJECTED: ReviewStatus
ORDER_BY_UNSPECIFIED: OrderBy
ID_ASC: OrderBy
ID_DESC: OrderBy
CREATED_AT_ASC: OrderBy
CREATED_AT_DESC: OrderBy
ALIASES_ASC: OrderBy
ALIASES_DESC: OrderBy
UPDATED_AT_ASC: OrderBy
UPDATED_AT_DESC: OrderBy
DELETED_AT_ASC: OrderBy
DELETED_AT_DESC: OrderBy
EVENT_TYPE_FILTER_UNSPECIFIED: EventTypeFilter
EVENT_TYPE_FILTER_DETECTION: EventTypeFilter
EVENT_TYPE_FILTER_TRUE_POSITIVE_DETERMINATION: EventTypeFilter
EVENT_TYPE_FILTER_FIXED: EventTypeFilter
EVENT_TYPE_FILTER_FALSE_POSITIVE_DETERMINATION: EventTypeFilter
EVENT_TYPE_FILTER_ANALYSIS_NOT_PLANNED: EventTypeFilter
EVENT_TYPE_FILTER_FIX_NOT_PLANNED: EventTypeFilter
EVENT_TYPE_FILTER_PENDING_UPSTREAM_FIX: EventTypeFilter
EVENT_TYPE_FILTER_PATCHED: EventTypeFilter
EVENT_TYPE_FILTER_COMPONENT_LOCATION_CHANGED: EventTypeFilter

class Advisory(_message.Message):
    __slots__ = ("id", "artifact_type", "artifact_name", "artifact_architecture", "component_name", "component_location", "component_type", "created_at", "updated_at", "deleted_at", "aliases", "events", "advisory_id", "author", "legacyAdvisoryID")
    ID_FIELD_NUMBER: _ClassVar[int]
    ARTIFACT_TYPE_FIELD_NUMBER: _ClassVar[int]
    ARTIFACT_NAME_FIELD_NUMBER: _ClassVar[int]
    ARTIFACT_ARCHITECTURE_FIELD_NUMBER: _ClassVar[int]
    COMPONENT_NAME_FIELD_NUMBER: _ClassVar[int]
    COMPONENT_LOCATION_FIELD_NUMBER: _ClassVar[int]
    COMPONENT_TYPE_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    DELETED_AT_FIELD_NUMBER: _ClassVar[int]
    ALIASES_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    ADVISORY_ID_FIELD_NUMBER: _ClassVar[int]
    AUTHOR_FIELD_NUMBER: _ClassVar[int]
    LEGACYADVISORYID_FIELD_NUMBER: _ClassVar[int]
    id: str
    artifact_type: str
    artifact_name: str
    artifact_architecture: str
    component_name: str
    component_location: str
    component_type: str
    created_at: _timestamp_pb2.Timestamp
    updated_at: _timestamp_pb2.Timestamp
    deleted_at: _timestamp_pb2.Timestamp
    aliases: _containers.RepeatedScalarFieldContainer[str]
    events: _containers.RepeatedCompositeFieldContainer[AdvisoryEvent]
    advisory_id: str
    author: str
    legacyAdvisoryID: str
    def __init__(self, id: _Optional[str] = ..., artifact_type: _Optional[str] = ..., artifact_name: _Optional[str] = ..., artifact_architecture: _Optional[str] = ..., component_name: _Optional[str] = ..., component_location: _Optional[str] = ..., component_type: _Optional[str] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., updated_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., deleted_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., aliases: _Optional[_Iterable[str]] = ..., events: _Optional[_Iterable[_Union[AdvisoryEvent, _Mapping]]] = ..., advisory_id: _Optional[str] = ..., author: _Optional[str] = ..., legacyAdvisoryID: _Optional[str] = ...) -> None: ...

class AdvisoryEvent(_message.Message):
    __slots__ = ("id", "timestamp", "detection", "fixed", "false_positive_determination", "analysis_not_planned", "fix_not_planned", "pending_upstream_fix", "true_positive_determination", "patched", "component_location_changed", "findings", "author", "reviewer", "status", "issue")
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
            UNSPECIFIED: _ClassVar[AdvisoryEvent.FalsePositiveDetermination.Type]
            VULNERABILITY_RECORD_ANALYSIS_CONTESTED: _ClassVar[AdvisoryEvent.FalsePositiveDetermination.Type]
            COMPONENT_VULNERABILITY_MISMATCH: _ClassVar[AdvisoryEvent.FalsePositiveDetermination.Type]
            VULNERABLE_CODE_VERSION_NOT_USED: _ClassVar[AdvisoryEvent.FalsePositiveDetermination.Type]
            VULNERABLE_CODE_NOT_INCLUDED_IN_PACKAGE: _ClassVar[AdvisoryEvent.FalsePositiveDetermination.Type]
            VULNERABLE_CODE_NOT_IN_EXECUTION_PATH: _ClassVar[AdvisoryEvent.FalsePositiveDetermination.Type]
            VULNERABLE_CODE_CANNOT_BE_CONTROLLED_BY_ADVERSARY: _ClassVar[AdvisoryEvent.FalsePositiveDetermination.Type]
            INLINE_MITIGATIONS_EXIST: _ClassVar[AdvisoryEvent.FalsePositiveDetermination.Type]
        UNSPECIFIED: AdvisoryEvent.FalsePositiveDetermination.Type
        VULNERABILITY_RECORD_ANALYSIS_CONTESTED: AdvisoryEvent.FalsePositiveDetermination.Type
        COMPONENT_VULNERABILITY_MISMATCH: AdvisoryEvent.FalsePositiveDetermination.Type
        VULNERABLE_CODE_VERSION_NOT_USED: AdvisoryEvent.FalsePositiveDetermination.Type
        VULNERABLE_CODE_NOT_INCLUDED_IN_PACKAGE: AdvisoryEvent.FalsePositiveDetermination.Type
        VULNERABLE_CODE_NOT_IN_EXECUTION_PATH: AdvisoryEvent.FalsePositiveDetermination.Type
        VULNERABLE_CODE_CANNOT_BE_CONTROLLED_BY_ADVERSARY: AdvisoryEvent.FalsePositiveDetermination.Type
        INLINE_MITIGATIONS_EXIST: AdvisoryEvent.FalsePositiveDetermination.Type
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
    class ComponentLocationChanged(_message.Message):
        __slots__ = ("previous_location", "new_location", "note")
        PREVIOUS_LOCATION_FIELD_NUMBER: _ClassVar[int]
        NEW_LOCATION_FIELD_NUMBER: _ClassVar[int]
        NOTE_FIELD_NUMBER: _ClassVar[int]
        previous_location: str
        new_location: str
        note: str
        def __init__(self, previous_location: _Optional[str] = ..., new_location: _Optional[str] = ..., note: _Optional[str] = ...) -> None: ...
    ID_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    DETECTION_FIELD_NUMBER: _ClassVar[int]
    FIXED_FIELD_NUMBER: _ClassVar[int]
    FALSE_POSITIVE_DETERMINATION_FIELD_NUMBER: _ClassVar[int]
    ANALYSIS_NOT_PLANNED_FIELD_NUMBER: _ClassVar[int]
    FIX_NOT_PLANNED_FIELD_NUMBER: _ClassVar[int]
    PENDING_UPSTREAM_FIX_FIELD_NUMBER: _ClassVar[int]
    TRUE_POSITIVE_DETERMINATION_FIELD_NUMBER: _ClassVar[int]
    PATCHED_FIELD_NUMBER: _ClassVar[int]
    COMPONENT_LOCATION_CHANGED_FIELD_NUMBER: _ClassVar[int]
    FINDINGS_FIELD_NUMBER: _ClassVar[int]
    AUTHOR_FIELD_NUMBER: _ClassVar[int]
    REVIEWER_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    ISSUE_FIELD_NUMBER: _ClassVar[int]
    id: str
    timestamp: _timestamp_pb2.Timestamp
    detection: AdvisoryEvent.Detection
    fixed: AdvisoryEvent.Fixed
    false_positive_determination: AdvisoryEvent.FalsePositiveDetermination
    analysis_not_planned: AdvisoryEvent.AnalysisNotPlanned
    fix_not_planned: AdvisoryEvent.FixNotPlanned
    pending_upstream_fix: AdvisoryEvent.PendingUpstreamFix
    true_positive_determination: AdvisoryEvent.TruePositiveDetermination
    patched: AdvisoryEvent.Patched
    component_location_changed: AdvisoryEvent.ComponentLocationChanged
    findings: bytes
    author: str
    reviewer: str
    status: ReviewStatus
    issue: str
    def __init__(self, id: _Optional[str] = ..., timestamp: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., detection: _Optional[_Union[AdvisoryEvent.Detection, _Mapping]] = ..., fixed: _Optional[_Union[AdvisoryEvent.Fixed, _Mapping]] = ..., false_positive_determination: _Optional[_Union[AdvisoryEvent.FalsePositiveDetermination, _Mapping]] = ..., analysis_not_planned: _Optional[_Union[AdvisoryEvent.AnalysisNotPlanned, _Mapping]] = ..., fix_not_planned: _Optional[_Union[AdvisoryEvent.FixNotPlanned, _Mapping]] = ..., pending_upstream_fix: _Optional[_Union[AdvisoryEvent.PendingUpstreamFix, _Mapping]] = ..., true_positive_determination: _Optional[_Union[AdvisoryEvent.TruePositiveDetermination, _Mapping]] = ..., patched: _Optional[_Union[AdvisoryEvent.Patched, _Mapping]] = ..., component_location_changed: _Optional[_Union[AdvisoryEvent.ComponentLocationChanged, _Mapping]] = ..., findings: _Optional[bytes] = ..., author: _Optional[str] = ..., reviewer: _Optional[str] = ..., status: _Optional[_Union[ReviewStatus, str]] = ..., issue: _Optional[str] = ...) -> None: ...

class AdvisoryFilter(_message.Message):
    __slots__ = ("advisory_ids", "legacy_advisory_ids", "id", "uidp", "artifact_type", "artifact_name", "component_name", "component_type", "component_location", "aliases", "artifact_architecture", "page_token", "page_size", "event_statuses", "event_author", "event_reviewer", "event_types", "order_by", "exclude_event_author", "latest_event_type", "origin")
    ADVISORY_IDS_FIELD_NUMBER: _ClassVar[int]
    LEGACY_ADVISORY_IDS_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    UIDP_FIELD_NUMBER: _ClassVar[int]
    ARTIFACT_TYPE_FIELD_NUMBER: _ClassVar[int]
    ARTIFACT_NAME_FIELD_NUMBER: _ClassVar[int]
    COMPONENT_NAME_FIELD_NUMBER: _ClassVar[int]
    COMPONENT_TYPE_FIELD_NUMBER: _ClassVar[int]
    COMPONENT_LOCATION_FIELD_NUMBER: _ClassVar[int]
    ALIASES_FIELD_NUMBER: _ClassVar[int]
    ARTIFACT_ARCHITECTURE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    EVENT_STATUSES_FIELD_NUMBER: _ClassVar[int]
    EVENT_AUTHOR_FIELD_NUMBER: _ClassVar[int]
    EVENT_REVIEWER_FIELD_NUMBER: _ClassVar[int]
    EVENT_TYPES_FIELD_NUMBER: _ClassVar[int]
    ORDER_BY_FIELD_NUMBER: _ClassVar[int]
    EXCLUDE_EVENT_AUTHOR_FIELD_NUMBER: _ClassVar[int]
    LATEST_EVENT_TYPE_FIELD_NUMBER: _ClassVar[int]
    ORIGIN_FIELD_NUMBER: _ClassVar[int]
    advisory_ids: _containers.RepeatedScalarFieldContainer[str]
    legacy_advisory_ids: _containers.RepeatedScalarFieldContainer[str]
    id: str
    uidp: _uidp_pb2.UIDPFilter
    artifact_type: _containers.RepeatedScalarFieldContainer[str]
    artifact_name: _containers.RepeatedScalarFieldContainer[str]
    component_name: _containers.RepeatedScalarFieldContainer[str]
    component_type: _containers.RepeatedScalarFieldContainer[str]
    component_location: _containers.RepeatedScalarFieldContainer[str]
    aliases: _containers.RepeatedScalarFieldContainer[str]
    artifact_architecture: _containers.RepeatedScalarFieldContainer[str]
    page_token: str
    page_size: int
    event_statuses: _containers.RepeatedScalarFieldContainer[ReviewStatus]
    event_author: _containers.RepeatedScalarFieldContainer[str]
    event_reviewer: _containers.RepeatedScalarFieldContainer[str]
    event_types: _containers.RepeatedScalarFieldContainer[EventTypeFilter]
    order_by: OrderBy
    exclude_event_author: _containers.RepeatedScalarFieldContainer[str]
    latest_event_type: EventTypeFilter
    origin: str
    def __init__(self, advisory_ids: _Optional[_Iterable[str]] = ..., legacy_advisory_ids: _Optional[_Iterable[str]] = ..., id: _Optional[str] = ..., uidp: _Optional[_Union[_uidp_pb2.UIDPFilter, _Mapping]] = ..., artifact_type: _Optional[_Iterable[str]] = ..., artifact_name: _Optional[_Iterable[str]] = ..., component_name: _Optional[_Iterable[str]] = ..., component_type: _Optional[_Iterable[str]] = ..., component_location: _Optional[_Iterable[str]] = ..., aliases: _Optional[_Iterable[str]] = ..., artifact_architecture: _Optional[_Iterable[str]] = ..., page_token: _Optional[str] = ..., page_size: _Optional[int] = ..., event_statuses: _Optional[_Iterable[_Union[ReviewStatus, str]]] = ..., event_author: _Optional[_Iterable[str]] = ..., event_reviewer: _Optional[_Iterable[str]] = ..., event_types: _Optional[_Iterable[_Union[EventTypeFilter, str]]] = ..., order_by: _Optional[_Union[OrderBy, str]] = ..., exclude_event_author: _Optional[_Iterable[str]] = ..., latest_event_type: _Optional[_Union[EventTypeFilter, str]] = ..., origin: _Optional[str] = ...) -> None: ...

class AdvisoriesList(_message.Message):
    __slots__ = ("id", "items", "next_page_token", "total_count")
    ID_FIELD_NUMBER: _ClassVar[int]
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    TOTAL_COUNT_FIELD_NUMBER: _ClassVar[int]
    id: str
    items: _containers.RepeatedCompositeFieldContainer[Advisory]
    next_page_token: str
    total_count: int
    def __init__(self, id: _Optional[str] = ..., items: _Optional[_Iterable[_Union[Advisory, _Mapping]]] = ..., next_page_token: _Optional[str] = ..., total_count: _Optional[int] = ...) -> None: ...

class DeleteAdvisoryRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class CreateAdvisoryRequest(_message.Message):
    __slots__ = ("parent_id", "advisory")
    PARENT_ID_FIELD_NUMBER: _ClassVar[int]
    ADVISORY_FIELD_NUMBER: _ClassVar[int]
    parent_id: str
    advisory: Advisory
    def __init__(self, parent_id: _Optional[str] = ..., advisory: _Optional[_Union[Advisory, _Mapping]] = ...) -> None: ...

class CreateAdvisoryEventRequest(_message.Message):
    __slots__ = ("parent_id", "advisory_event")
    PARENT_ID_FIELD_NUMBER: _ClassVar[int]
    ADVISORY_EVENT_FIELD_NUMBER: _ClassVar[int]
    parent_id: str
    advisory_event: AdvisoryEvent
    def __init__(self, parent_id: _Optional[str] = ..., advisory_event: _Optional[_Union[AdvisoryEvent, _Mapping]] = ...) -> None: ...

class AdvisoryEventFilter(_message.Message):
    __slots__ = ("parent_id",)
    PARENT_ID_FIELD_NUMBER: _ClassVar[int]
    parent_id: str
    def __init__(self, parent_id: _Optional[str] = ...) -> None: ...

class AdvisoryEventList(_message.Message):
    __slots__ = ("parent_id", "items")
    PARENT_ID_FIELD_NUMBER: _ClassVar[int]
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    parent_id: str
    items: _containers.RepeatedCompositeFieldContainer[AdvisoryEvent]
    def __init__(self, parent_id: _Optional[str] = ..., items: _Optional[_Iterable[_Union[AdvisoryEvent, _Mapping]]] = ...) -> None: ...
