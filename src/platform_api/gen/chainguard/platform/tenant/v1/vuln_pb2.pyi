import datetime

from platform_api.gen.chainguard.platform.common import uidp_pb2 as _uidp_pb2
from platform_api.gen.chainguard.platform.tenant.v1 import sbom_pb2 as _sbom_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class VulnReport(_message.Message):
    __slots__ = ("id", "vulnerability_db_last_build_time", "vulnerability_matches", "scanner", "report_generation", "raw_vuln_report", "last_seen")
    ID_FIELD_NUMBER: _ClassVar[int]
    VULNERABILITY_DB_LAST_BUILD_TIME_FIELD_NUMBER: _ClassVar[int]
    VULNERABILITY_MATCHES_FIELD_NUMBER: _ClassVar[int]
    SCANNER_FIELD_NUMBER: _ClassVar[int]
    REPORT_GENERATION_FIELD_NUMBER: _ClassVar[int]
    RAW_VULN_REPORT_FIELD_NUMBER: _ClassVar[int]
    LAST_SEEN_FIELD_NUMBER: _ClassVar[int]
    id: str
    vulnerability_db_last_build_time: _timestamp_pb2.Timestamp
    vulnerability_matches: _containers.RepeatedCompositeFieldContainer[VulnerabilityMatch]
    scanner: Scanner
    report_generation: _timestamp_pb2.Timestamp
    raw_vuln_report: bytes
    last_seen: _timestamp_pb2.Timestamp
    def __init__(self, id: _Optional[str] = ..., vulnerability_db_last_build_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., vulnerability_matches: _Optional[_Iterable[_Union[VulnerabilityMatch, _Mapping]]] = ..., scanner: _Optional[_Union[Scanner, _Mapping]] = ..., report_generation: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., raw_vuln_report: _Optional[bytes] = ..., last_seen: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class Scanner(_message.Message):
    __slots__ = ("name", "version")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    name: str
    version: str
    def __init__(self, name: _Optional[str] = ..., version: _Optional[str] = ...) -> None: ...

class VulnerabilityMatch(_message.Message):
    __slots__ = ("vulnerability", "pkg", "fix")
    VULNERABILITY_FIELD_NUMBER: _ClassVar[int]
    PKG_FIELD_NUMBER: _ClassVar[int]
    FIX_FIELD_NUMBER: _ClassVar[int]
    vulnerability: VulnerabilityRecord
    pkg: _sbom_pb2.Package2
    fix: Fix
    def __init__(self, vulnerability: _Optional[_Union[VulnerabilityRecord, _Mapping]] = ..., pkg: _Optional[_Union[_sbom_pb2.Package2, _Mapping]] = ..., fix: _Optional[_Union[Fix, _Mapping]] = ...) -> None: ...

class VulnerabilityRecord(_message.Message):
    __slots__ = ("id", "description", "severity", "source", "cvss", "cpe_uri", "related_urls", "advisories", "related_vulnerabilities", "display_id")
    class Severity(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        UNKNOWN: _ClassVar[VulnerabilityRecord.Severity]
        LOW: _ClassVar[VulnerabilityRecord.Severity]
        MEDIUM: _ClassVar[VulnerabilityRecord.Severity]
        HIGH: _ClassVar[VulnerabilityRecord.Severity]
        CRITICAL: _ClassVar[VulnerabilityRecord.Severity]
    UNKNOWN: VulnerabilityRecord.Severity
    LOW: VulnerabilityRecord.Severity
    MEDIUM: VulnerabilityRecord.Severity
    HIGH: VulnerabilityRecord.Severity
    CRITICAL: VulnerabilityRecord.Severity
    class Cvss(_message.Message):
        __slots__ = ("score", "version")
        SCORE_FIELD_NUMBER: _ClassVar[int]
        VERSION_FIELD_NUMBER: _ClassVar[int]
        score: str
        version: str
        def __init__(self, score: _Optional[str] = ..., version: _Optional[str] = ...) -> None: ...
    class RelatedVulnerability(_message.Message):
        __slots__ = ("id", "source")
        ID_FIELD_NUMBER: _ClassVar[int]
        SOURCE_FIELD_NUMBER: _ClassVar[int]
        id: str
        source: str
        def __init__(self, id: _Optional[str] = ..., source: _Optional[str] = ...) -> None: ...
    class AdvisoriesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    ID_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    SEVERITY_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    CVSS_FIELD_NUMBER: _ClassVar[int]
    CPE_URI_FIELD_NUMBER: _ClassVar[int]
    RELATED_URLS_FIELD_NUMBER: _ClassVar[int]
    ADVISORIES_FIELD_NUMBER: _ClassVar[int]
    RELATED_VULNERABILITIES_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    description: str
    severity: VulnerabilityRecord.Severity
    source: str
    cvss: _containers.RepeatedCompositeFieldContainer[VulnerabilityRecord.Cvss]
    cpe_uri: _containers.RepeatedScalarFieldContainer[str]
    related_urls: _containers.RepeatedScalarFieldContainer[str]
    advisories: _containers.ScalarMap[str, str]
    related_vulnerabilities: _containers.RepeatedCompositeFieldContainer[VulnerabilityRecord.RelatedVulnerability]
    display_id: str
    def __init__(self, id: _Optional[str] = ..., description: _Optional[str] = ..., severity: _Optional[_Union[VulnerabilityRecord.Severity, str]] = ..., source: _Optional[str] = ..., cvss: _Optional[_Iterable[_Union[VulnerabilityRecord.Cvss, _Mapping]]] = ..., cpe_uri: _Optional[_Iterable[str]] = ..., related_urls: _Optional[_Iterable[str]] = ..., advisories: _Optional[_Mapping[str, str]] = ..., related_vulnerabilities: _Optional[_Iterable[_Union[VulnerabilityRecord.RelatedVulnerability, _Mapping]]] = ..., display_id: _Optional[str] = ...) -> None: ...

class Fix(_message.Message):
    __slots__ = ("versions", "state")
    class State(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        UNKNOWN: _ClassVar[Fix.State]
        FIXED: _ClassVar[Fix.State]
        NOT_FIXED: _ClassVar[Fix.State]
        WONT_FIX: _ClassVar[Fix.State]
    UNKNOWN: Fix.State
    FIXED: Fix.State
    NOT_FIXED: Fix.State
    WONT_FIX: Fix.State
    VERSIONS_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    versions: _containers.RepeatedScalarFieldContainer[str]
    state: Fix.State
    def __init__(self, versions: _Optional[_Iterable[str]] = ..., state: _Optional[_Union[Fix.State, str]] = ...) -> None: ...

class VulnReportList(_message.Message):
    __slots__ = ("items",)
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[VulnReport]
    def __init__(self, items: _Optional[_Iterable[_Union[VulnReport, _Mapping]]] = ...) -> None: ...

class VulnReportFilter(_message.Message):
    __slots__ = ("id", "uidp", "active_since", "include_raw_vuln_report")
    ID_FIELD_NUMBER: _ClassVar[int]
    UIDP_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_SINCE_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_RAW_VULN_REPORT_FIELD_NUMBER: _ClassVar[int]
    id: str
    uidp: _uidp_pb2.UIDPFilter
    active_since: _timestamp_pb2.Timestamp
    include_raw_vuln_report: bool
    def __init__(self, id: _Optional[str] = ..., uidp: _Optional[_Union[_uidp_pb2.UIDPFilter, _Mapping]] = ..., active_since: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., include_raw_vuln_report: _Optional[bool] = ...) -> None: ...
