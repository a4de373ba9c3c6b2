import datetime

from platform_api.gen.chainguard.platform.common import uidp_pb2 as _uidp_pb2
from platform_api.gen.chainguard.platform.tenant import vulnreport_pb2 as _vulnreport_pb2
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

class VulnReportRequest(_message.Message):
    __slots__ = ("repo_id", "digest")
    REPO_ID_FIELD_NUMBER: _ClassVar[int]
    DIGEST_FIELD_NUMBER: _ClassVar[int]
    repo_id: str
    digest: str
    def __init__(self, repo_id: _Optional[str] = ..., digest: _Optional[str] = ...) -> None: ...

class EolTagFilter(_message.Message):
    __slots__ = ("uidp", "name", "page_token", "page_size", "exclude_dates", "exclude_epochs")
    UIDP_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    EXCLUDE_DATES_FIELD_NUMBER: _ClassVar[int]
    EXCLUDE_EPOCHS_FIELD_NUMBER: _ClassVar[int]
    uidp: _uidp_pb2.UIDPFilter
    name: str
    page_token: str
    page_size: int
    exclude_dates: bool
    exclude_epochs: bool
    def __init__(self, uidp: _Optional[_Union[_uidp_pb2.UIDPFilter, _Mapping]] = ..., name: _Optional[str] = ..., page_token: _Optional[str] = ..., page_size: _Optional[int] = ..., exclude_dates: _Optional[bool] = ..., exclude_epochs: _Optional[bool] = ...) -> None: ...

class EolTagList(_message.Message):
    __slots__ = ("items", "next_page_token")
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[EolTag]
    next_page_token: str
    def __init__(self, items: _Optional[_Iterable[_Union[EolTag, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class EolTag(_message.Message):
    __slots__ = ("id", "name", "main_package_name", "tag_status", "main_package_version", "grace_status", "grace_period_expiry_date")
    class TagStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        TAG_ACTIVE: _ClassVar[EolTag.TagStatus]
        TAG_IN_GRACE: _ClassVar[EolTag.TagStatus]
        TAG_INACTIVE: _ClassVar[EolTag.TagStatus]
    TAG_ACTIVE: EolTag.TagStatus
    TAG_IN_GRACE: EolTag.TagStatus
    TAG_INACTIVE: EolTag.TagStatus
    class GraceStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        GRACE_NOT_ELIGIBLE: _ClassVar[EolTag.GraceStatus]
        GRACE_ELIGIBLE: _ClassVar[EolTag.GraceStatus]
        GRACE_ACTIVE: _ClassVar[EolTag.GraceStatus]
        GRACE_BROKEN: _ClassVar[EolTag.GraceStatus]
        GRACE_EXPIRED: _ClassVar[EolTag.GraceStatus]
    GRACE_NOT_ELIGIBLE: EolTag.GraceStatus
    GRACE_ELIGIBLE: EolTag.GraceStatus
    GRACE_ACTIVE: EolTag.GraceStatus
    GRACE_BROKEN: EolTag.GraceStatus
    GRACE_EXPIRED: EolTag.GraceStatus
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    MAIN_PACKAGE_NAME_FIELD_NUMBER: _ClassVar[int]
    TAG_STATUS_FIELD_NUMBER: _ClassVar[int]
    MAIN_PACKAGE_VERSION_FIELD_NUMBER: _ClassVar[int]
    GRACE_STATUS_FIELD_NUMBER: _ClassVar[int]
    GRACE_PERIOD_EXPIRY_DATE_FIELD_NUMBER: _ClassVar[int]
    id: str
    name: str
    main_package_name: str
    tag_status: EolTag.TagStatus
    main_package_version: PackageVersion
    grace_status: EolTag.GraceStatus
    grace_period_expiry_date: _timestamp_pb2.Timestamp
    def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ..., main_package_name: _Optional[str] = ..., tag_status: _Optional[_Union[EolTag.TagStatus, str]] = ..., main_package_version: _Optional[_Union[PackageVersion, _Mapping]] = ..., grace_status: _Optional[_Union[EolTag.GraceStatus, str]] = ..., grace_period_expiry_date: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class PackageVersion(_message.Message):
    __slots__ = ("eol_date", "exists", "fips", "legacy_lts", "lts", "release_date", "version", "eol_broken", "latest_version", "version_source")
    EOL_DATE_FIELD_NUMBER: _ClassVar[int]
    EXISTS_FIELD_NUMBER: _ClassVar[int]
    FIPS_FIELD_NUMBER: _ClassVar[int]
    LEGACY_LTS_FIELD_NUMBER: _ClassVar[int]
    LTS_FIELD_NUMBER: _ClassVar[int]
    RELEASE_DATE_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    EOL_BROKEN_FIELD_NUMBER: _ClassVar[int]
    LATEST_VERSION_FIELD_NUMBER: _ClassVar[int]
    VERSION_SOURCE_FIELD_NUMBER: _ClassVar[int]
    eol_date: str
    exists: bool
    fips: bool
    legacy_lts: str
    lts: bool
    release_date: str
    version: str
    eol_broken: bool
    latest_version: str
    version_source: VersionSource
    def __init__(self, eol_date: _Optional[str] = ..., exists: _Optional[bool] = ..., fips: _Optional[bool] = ..., legacy_lts: _Optional[str] = ..., lts: _Optional[bool] = ..., release_date: _Optional[str] = ..., version: _Optional[str] = ..., eol_broken: _Optional[bool] = ..., latest_version: _Optional[str] = ..., version_source: _Optional[_Union[VersionSource, _Mapping]] = ...) -> None: ...

class VersionSource(_message.Message):
    __slots__ = ("ref", "sha")
    REF_FIELD_NUMBER: _ClassVar[int]
    SHA_FIELD_NUMBER: _ClassVar[int]
    ref: str
    sha: str
    def __init__(self, ref: _Optional[str] = ..., sha: _Optional[str] = ...) -> None: ...

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
    references: _containers.RepeatedCompositeFieldContainer[Reference]
    def __init__(self, repo: _Optional[str] = ..., tag: _Optional[str] = ..., to: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., references: _Optional[_Iterable[_Union[Reference, _Mapping]]] = ..., **kwargs) -> None: ...

class Reference(_message.Message):
    __slots__ = ("repo", "tag")
    REPO_FIELD_NUMBER: _ClassVar[int]
    TAG_FIELD_NUMBER: _ClassVar[int]
    repo: str
    tag: str
    def __init__(self, repo: _Optional[str] = ..., tag: _Optional[str] = ...) -> None: ...

class VulnCountReportList(_message.Message):
    __slots__ = ("items",)
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[VulnCountReport]
    def __init__(self, items: _Optional[_Iterable[_Union[VulnCountReport, _Mapping]]] = ...) -> None: ...

class VulnCountReport(_message.Message):
    __slots__ = ("repo", "tag", "date", "vuln_counts", "size_bytes", "cve_ids", "low_cve_ids", "med_cve_ids", "high_cve_ids", "crit_cve_ids", "negligible_cve_ids", "unknown_cve_ids")
    class Severity(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        UNKNOWN: _ClassVar[VulnCountReport.Severity]
        LOW: _ClassVar[VulnCountReport.Severity]
        MEDIUM: _ClassVar[VulnCountReport.Severity]
        HIGH: _ClassVar[VulnCountReport.Severity]
        CRITICAL: _ClassVar[VulnCountReport.Severity]
        NEGLIGIBLE: _ClassVar[VulnCountReport.Severity]
    UNKNOWN: VulnCountReport.Severity
    LOW: VulnCountReport.Severity
    MEDIUM: VulnCountReport.Severity
    HIGH: VulnCountReport.Severity
    CRITICAL: VulnCountReport.Severity
    NEGLIGIBLE: VulnCountReport.Severity
    class VulnCount(_message.Message):
        __slots__ = ("severity", "count")
        SEVERITY_FIELD_NUMBER: _ClassVar[int]
        COUNT_FIELD_NUMBER: _ClassVar[int]
        severity: VulnCountReport.Severity
        count: int
        def __init__(self, severity: _Optional[_Union[VulnCountReport.Severity, str]] = ..., count: _Optional[int] = ...) -> None: ...
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
    vuln_counts: _containers.RepeatedCompositeFieldContainer[VulnCountReport.VulnCount]
    size_bytes: int
    cve_ids: _containers.RepeatedScalarFieldContainer[str]
    low_cve_ids: _containers.RepeatedScalarFieldContainer[str]
    med_cve_ids: _containers.RepeatedScalarFieldContainer[str]
    high_cve_ids: _containers.RepeatedScalarFieldContainer[str]
    crit_cve_ids: _containers.RepeatedScalarFieldContainer[str]
    negligible_cve_ids: _containers.RepeatedScalarFieldContainer[str]
    unknown_cve_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, repo: _Optional[str] = ..., tag: _Optional[str] = ..., date: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., vuln_counts: _Optional[_Iterable[_Union[VulnCountReport.VulnCount, _Mapping]]] = ..., size_bytes: _Optional[int] = ..., cve_ids: _Optional[_Iterable[str]] = ..., low_cve_ids: _Optional[_Iterable[str]] = ..., med_cve_ids: _Optional[_Iterable[str]] = ..., high_cve_ids: _Optional[_Iterable[str]] = ..., crit_cve_ids: _Optional[_Iterable[str]] = ..., negligible_cve_ids: _Optional[_Iterable[str]] = ..., unknown_cve_ids: _Optional[_Iterable[str]] = ...) -> None: ...
