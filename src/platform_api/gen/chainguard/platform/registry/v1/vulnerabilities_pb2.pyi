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

class RepoTagReference(_message.Message):
    __slots__ = ("repo", "tag")
    REPO_FIELD_NUMBER: _ClassVar[int]
    TAG_FIELD_NUMBER: _ClassVar[int]
    repo: str
    tag: str
    def __init__(self, repo: _Optional[str] = ..., tag: _Optional[str] = ...) -> None: ...

class VulnCountReportFilter(_message.Message):
    __slots__ = ("repo", "tag", "to", "references")
    REPO_FIELD_NUMBER: _ClassVar[int]
    TAG_FIELD_NUMBER: _ClassVar[int]
    FROM_FIELD_NUMBER: _ClassVar[int]
    TO_FIELD_NUMBER: _ClassVar[int]
    REFERENCES_FIELD_NUMBER: _ClassVar[int]
    repo: str
    tag: str
    to: _timestamp_pb2.Timestamp
    references: _containers.RepeatedCompositeFieldContainer[RepoTagReference]
    def __init__(self, repo: _Optional[str] = ..., tag: _Optional[str] = ..., to: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., references: _Optional[_Iterable[_Union[RepoTagReference, _Mapping]]] = ..., **kwargs) -> None: ...

class VulnCountReportList(_message.Message):
    __slots__ = ("items",)
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[VulnCountReport]
    def __init__(self, items: _Optional[_Iterable[_Union[VulnCountReport, _Mapping]]] = ...) -> None: ...

class VulnCountReport(_message.Message):
    __slots__ = ("repo", "tag", "date", "vuln_counts", "size_bytes", "cve_ids", "low_cve_ids", "med_cve_ids", "high_cve_ids", "crit_cve_ids", "negligible_cve_ids", "unknown_cve_ids")
    REPO_FIELD_NUMBER: _ClassVar[int]
    TAG_FIELD_NUMBER: _ClassVar[int]
    DATE_FIELD_NUMBER: _ClassVar[int]
    VULN_COUNTS_FIELD_NUMBER: _ClassVar[int]
    SIZE_BYTES_FIELD_NUMBER: _ClassVar[int]
    CVE_IDS_FIELD_NUMBER: _ClassVar[int]
    LOW_CVE_IDS_FIELD_NUMBER: _ClassVar[int]
    MED_CVE_IDS_FIELD_NUMBER: _ClassVar[int]
    HIGH_CVE_IDS_FIELD_NUMBER: _ClassVar[int]
    CRIT_CVE_IDS_FIELD_NUMBER: _ClassVar[int]
    NEGLIGIBLE_CVE_IDS_FIELD_NUMBER: _ClassVar[int]
    UNKNOWN_CVE_IDS_FIELD_NUMBER: _ClassVar[int]
    repo: str
    tag: str
    date: _timestamp_pb2.Timestamp
    vuln_counts: _containers.RepeatedCompositeFieldContainer[VulnCount]
    size_bytes: int
    cve_ids: _containers.RepeatedScalarFieldContainer[str]
    low_cve_ids: _containers.RepeatedScalarFieldContainer[str]
    med_cve_ids: _containers.RepeatedScalarFieldContainer[str]
    high_cve_ids: _containers.RepeatedScalarFieldContainer[str]
    crit_cve_ids: _containers.RepeatedScalarFieldContainer[str]
    negligible_cve_ids: _containers.RepeatedScalarFieldContainer[str]
    unknown_cve_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, repo: _Optional[str] = ..., tag: _Optional[str] = ..., date: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., vuln_counts: _Optional[_Iterable[_Union[VulnCount, _Mapping]]] = ..., size_bytes: _Optional[int] = ..., cve_ids: _Optional[_Iterable[str]] = ..., low_cve_ids: _Optional[_Iterable[str]] = ..., med_cve_ids: _Optional[_Iterable[str]] = ..., high_cve_ids: _Optional[_Iterable[str]] = ..., crit_cve_ids: _Optional[_Iterable[str]] = ..., negligible_cve_ids: _Optional[_Iterable[str]] = ..., unknown_cve_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class VulnCount(_message.Message):
    __slots__ = ("severity", "count")
    SEVERITY_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    severity: Vulnerability.Severity
    count: int
    def __init__(self, severity: _Optional[_Union[Vulnerability.Severity, str]] = ..., count: _Optional[int] = ...) -> None: ...

class GetRawVulnReportRequest(_message.Message):
    __slots__ = ("digest", "scanner", "created_at")
    DIGEST_FIELD_NUMBER: _ClassVar[int]
    SCANNER_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    digest: str
    scanner: Scanner.Name
    created_at: _timestamp_pb2.Timestamp
    def __init__(self, digest: _Optional[str] = ..., scanner: _Optional[_Union[Scanner.Name, str]] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class RawVulnReport(_message.Message):
    __slots__ = ("digest", "scanner", "created_at", "raw_report", "raw_report_url")
    DIGEST_FIELD_NUMBER: _ClassVar[int]
    SCANNER_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    RAW_REPORT_FIELD_NUMBER: _ClassVar[int]
    RAW_REPORT_URL_FIELD_NUMBER: _ClassVar[int]
    digest: str
    scanner: Scanner
    created_at: _timestamp_pb2.Timestamp
    raw_report: str
    raw_report_url: str
    def __init__(self, digest: _Optional[str] = ..., scanner: _Optional[_Union[Scanner, _Mapping]] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., raw_report: _Optional[str] = ..., raw_report_url: _Optional[str] = ...) -> None: ...

class VulnReport(_message.Message):
    __slots__ = ("digest", "scanner", "created_at", "vulnerabilities")
    DIGEST_FIELD_NUMBER: _ClassVar[int]
    SCANNER_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    VULNERABILITIES_FIELD_NUMBER: _ClassVar[int]
    digest: str
    scanner: Scanner
    created_at: _timestamp_pb2.Timestamp
    vulnerabilities: _containers.RepeatedCompositeFieldContainer[Vulnerability]
    def __init__(self, digest: _Optional[str] = ..., scanner: _Optional[_Union[Scanner, _Mapping]] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., vulnerabilities: _Optional[_Iterable[_Union[Vulnerability, _Mapping]]] = ...) -> None: ...

class Scanner(_message.Message):
    __slots__ = ("name", "version", "db_build_time")
    class Name(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        UNKNOWN: _ClassVar[Scanner.Name]
        GRYPE: _ClassVar[Scanner.Name]
        TRIVY: _ClassVar[Scanner.Name]
    UNKNOWN: Scanner.Name
    GRYPE: Scanner.Name
    TRIVY: Scanner.Name
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    DB_BUILD_TIME_FIELD_NUMBER: _ClassVar[int]
    name: Scanner.Name
    version: str
    db_build_time: _timestamp_pb2.Timestamp
    def __init__(self, name: _Optional[_Union[Scanner.Name, str]] = ..., version: _Optional[str] = ..., db_build_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class VulnReportFilter(_message.Message):
    __slots__ = ("repo_id", "digest", "tag", "scanner", "created_since")
    REPO_ID_FIELD_NUMBER: _ClassVar[int]
    DIGEST_FIELD_NUMBER: _ClassVar[int]
    TAG_FIELD_NUMBER: _ClassVar[int]
    SCANNER_FIELD_NUMBER: _ClassVar[int]
    CREATED_SINCE_FIELD_NUMBER: _ClassVar[int]
    repo_id: str
    digest: str
    tag: str
    scanner: Scanner
    created_since: _timestamp_pb2.Timestamp
    def __init__(self, repo_id: _Optional[str] = ..., digest: _Optional[str] = ..., tag: _Optional[str] = ..., scanner: _Optional[_Union[Scanner, _Mapping]] = ..., created_since: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class VulnReportList(_message.Message):
    __slots__ = ("items",)
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[VulnReport]
    def __init__(self, items: _Optional[_Iterable[_Union[VulnReport, _Mapping]]] = ...) -> None: ...

class Vulnerability(_message.Message):
    __slots__ = ("id", "aliases", "purls", "description", "details", "severity", "cvss", "fix", "related_urls", "locations")
    class Severity(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        UNKNOWN: _ClassVar[Vulnerability.Severity]
        LOW: _ClassVar[Vulnerability.Severity]
        MEDIUM: _ClassVar[Vulnerability.Severity]
        HIGH: _ClassVar[Vulnerability.Severity]
        CRITICAL: _ClassVar[Vulnerability.Severity]
        NEGLIGIBLE: _ClassVar[Vulnerability.Severity]
    UNKNOWN: Vulnerability.Severity
    LOW: Vulnerability.Severity
    MEDIUM: Vulnerability.Severity
    HIGH: Vulnerability.Severity
    CRITICAL: Vulnerability.Severity
    NEGLIGIBLE: Vulnerability.Severity
    class CVSS(_message.Message):
        __slots__ = ("score", "version")
        SCORE_FIELD_NUMBER: _ClassVar[int]
        VERSION_FIELD_NUMBER: _ClassVar[int]
        score: str
        version: str
        def __init__(self, score: _Optional[str] = ..., version: _Optional[str] = ...) -> None: ...
    class Fix(_message.Message):
        __slots__ = ("versions", "state")
        class State(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
            __slots__ = ()
            UNKNOWN: _ClassVar[Vulnerability.Fix.State]
            FIXED: _ClassVar[Vulnerability.Fix.State]
            NOT_FIXED: _ClassVar[Vulnerability.Fix.State]
            WONT_FIX: _ClassVar[Vulnerability.Fix.State]
        UNKNOWN: Vulnerability.Fix.State
        FIXED: Vulnerability.Fix.State
        NOT_FIXED: Vulnerability.Fix.State
        WONT_FIX: Vulnerability.Fix.State
        VERSIONS_FIELD_NUMBER: _ClassVar[int]
        STATE_FIELD_NUMBER: _ClassVar[int]
        versions: _containers.RepeatedScalarFieldContainer[str]
        state: Vulnerability.Fix.State
        def __init__(self, versions: _Optional[_Iterable[str]] = ..., state: _Optional[_Union[Vulnerability.Fix.State, str]] = ...) -> None: ...
    ID_FIELD_NUMBER: _ClassVar[int]
    ALIASES_FIELD_NUMBER: _ClassVar[int]
    PURLS_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    DETAILS_FIELD_NUMBER: _ClassVar[int]
    SEVERITY_FIELD_NUMBER: _ClassVar[int]
    CVSS_FIELD_NUMBER: _ClassVar[int]
    FIX_FIELD_NUMBER: _ClassVar[int]
    RELATED_URLS_FIELD_NUMBER: _ClassVar[int]
    LOCATIONS_FIELD_NUMBER: _ClassVar[int]
    id: str
    aliases: _containers.RepeatedScalarFieldContainer[str]
    purls: _containers.RepeatedScalarFieldContainer[str]
    description: str
    details: str
    severity: Vulnerability.Severity
    cvss: _containers.RepeatedCompositeFieldContainer[Vulnerability.CVSS]
    fix: Vulnerability.Fix
    related_urls: _containers.RepeatedScalarFieldContainer[str]
    locations: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, id: _Optional[str] = ..., aliases: _Optional[_Iterable[str]] = ..., purls: _Optional[_Iterable[str]] = ..., description: _Optional[str] = ..., details: _Optional[str] = ..., severity: _Optional[_Union[Vulnerability.Severity, str]] = ..., cvss: _Optional[_Iterable[_Union[Vulnerability.CVSS, _Mapping]]] = ..., fix: _Optional[_Union[Vulnerability.Fix, _Mapping]] = ..., related_urls: _Optional[_Iterable[str]] = ..., locations: _Optional[_Iterable[str]] = ...) -> None: ...
