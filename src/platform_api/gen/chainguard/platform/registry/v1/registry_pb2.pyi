import datetime

from platform_api.gen.chainguard.platform.common import uidp_pb2 as _uidp_pb2
from platform_api.gen.chainguard.platform.registry.v1 import apko_pb2 as _apko_pb2
from platform_api.gen.chainguard.platform.tenant.v1 import sbom_pb2 as _sbom_pb2
from platform_api.gen.chainguard.platform.tenant.v1 import vuln_pb2 as _vuln_pb2
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

class CatalogTier(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    UNKNOWN: _ClassVar[CatalogTier]
    APPLICATION: _ClassVar[CatalogTier]
    BASE: _ClassVar[CatalogTier]
    FIPS: _ClassVar[CatalogTier]
    AI: _ClassVar[CatalogTier]
    DEVTOOLS: _ClassVar[CatalogTier]
    COMMERCIAL: _ClassVar[CatalogTier]

class EolTagStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TAG_ACTIVE: _ClassVar[EolTagStatus]
    TAG_IN_GRACE: _ClassVar[EolTagStatus]
    TAG_INACTIVE: _ClassVar[EolTagStatus]

class EolGracePeriodStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    GRACE_NOT_ELIGIBLE: _ClassVar[EolGracePeriodStatus]
    GRACE_ELIGIBLE: _ClassVar[EolGracePeriodStatus]
    GRACE_ACTIVE: _ClassVar[EolGracePeriodStatus]
    GRACE_BROKEN: _ClassVar[EolGracePeriodStatus]
    GRACE_EXPIRED: _ClassVar[EolGracePeriodStatus]

class ChartImageRequirement(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    REQUIREMENT_UNSPECIFIED: _ClassVar[ChartImageRequirement]
    REQUIREMENT_REQUIRED: _ClassVar[ChartImageRequirement]
    REQUIREMENT_OPTIONAL: _ClassVar[ChartImageRequirement]
UNKNOWN: CatalogTier
APPLICATION: CatalogTier
BASE: CatalogTier
FIPS: CatalogTier
AI: CatalogTier
DEVTOOLS: CatalogTier
COMMERCIAL: CatalogTier
TAG_ACTIVE: EolTagStatus
TAG_IN_GRACE: EolTagStatus
TAG_INACTIVE: EolTagStatus
GRACE_NOT_ELIGIBLE: EolGracePeriodStatus
GRACE_ELIGIBLE: EolGracePeriodStatus
GRACE_ACTIVE: EolGracePeriodStatus
GRACE_BROKEN: EolGracePeriodStatus
GRACE_EXPIRED: EolGracePeriodStatus
REQUIREMENT_UNSPECIFIED: ChartImageRequirement
REQUIREMENT_REQUIRED: ChartImageRequirement
REQUIREMENT_OPTIONAL: ChartImageRequirement

class Repo(_message.Message):
    __slots__ = ("id", "name", "catalog_tier", "bundles", "readme", "sync_config", "custom_overlay", "aliases", "create_time", "active_tags", "description")
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    CATALOG_TIER_FIELD_NUMBER: _ClassVar[int]
    BUNDLES_FIELD_NUMBER: _ClassVar[int]
    README_FIELD_NUMBER: _ClassVar[int]
    SYNC_CONFIG_FIELD_NUMBER: _ClassVar[int]
    CUSTOM_OVERLAY_FIELD_NUMBER: _ClassVar[int]
    ALIASES_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_TAGS_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    id: str
    name: str
    catalog_tier: CatalogTier
    bundles: _containers.RepeatedScalarFieldContainer[str]
    readme: str
    sync_config: SyncConfig
    custom_overlay: CustomOverlay
    aliases: _containers.RepeatedScalarFieldContainer[str]
    create_time: _timestamp_pb2.Timestamp
    active_tags: _containers.RepeatedScalarFieldContainer[str]
    description: str
    def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ..., catalog_tier: _Optional[_Union[CatalogTier, str]] = ..., bundles: _Optional[_Iterable[str]] = ..., readme: _Optional[str] = ..., sync_config: _Optional[_Union[SyncConfig, _Mapping]] = ..., custom_overlay: _Optional[_Union[CustomOverlay, _Mapping]] = ..., aliases: _Optional[_Iterable[str]] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., active_tags: _Optional[_Iterable[str]] = ..., description: _Optional[str] = ...) -> None: ...

class SyncConfig(_message.Message):
    __slots__ = ("source", "unique_tags", "expiration", "google", "amazon", "azure", "sync_apks", "apko_overlay", "grace_period")
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    UNIQUE_TAGS_FIELD_NUMBER: _ClassVar[int]
    EXPIRATION_FIELD_NUMBER: _ClassVar[int]
    GOOGLE_FIELD_NUMBER: _ClassVar[int]
    AMAZON_FIELD_NUMBER: _ClassVar[int]
    AZURE_FIELD_NUMBER: _ClassVar[int]
    SYNC_APKS_FIELD_NUMBER: _ClassVar[int]
    APKO_OVERLAY_FIELD_NUMBER: _ClassVar[int]
    GRACE_PERIOD_FIELD_NUMBER: _ClassVar[int]
    source: str
    unique_tags: bool
    expiration: _timestamp_pb2.Timestamp
    google: str
    amazon: str
    azure: str
    sync_apks: bool
    apko_overlay: str
    grace_period: bool
    def __init__(self, source: _Optional[str] = ..., unique_tags: _Optional[bool] = ..., expiration: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., google: _Optional[str] = ..., amazon: _Optional[str] = ..., azure: _Optional[str] = ..., sync_apks: _Optional[bool] = ..., apko_overlay: _Optional[str] = ..., grace_period: _Optional[bool] = ...) -> None: ...

class CustomOverlay(_message.Message):
    __slots__ = ("contents", "environment", "annotations", "accounts", "certificates")
    class Certificates(_message.Message):
        __slots__ = ("additional", "providers")
        class AdditionalEntry(_message.Message):
            __slots__ = ("name", "content")
            NAME_FIELD_NUMBER: _ClassVar[int]
            CONTENT_FIELD_NUMBER: _ClassVar[int]
            name: str
            content: str
            def __init__(self, name: _Optional[str] = ..., content: _Optional[str] = ...) -> None: ...
        ADDITIONAL_FIELD_NUMBER: _ClassVar[int]
        PROVIDERS_FIELD_NUMBER: _ClassVar[int]
        additional: _containers.RepeatedCompositeFieldContainer[CustomOverlay.Certificates.AdditionalEntry]
        providers: _containers.RepeatedScalarFieldContainer[str]
        def __init__(self, additional: _Optional[_Iterable[_Union[CustomOverlay.Certificates.AdditionalEntry, _Mapping]]] = ..., providers: _Optional[_Iterable[str]] = ...) -> None: ...
    class EnvironmentEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    class AnnotationsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    CONTENTS_FIELD_NUMBER: _ClassVar[int]
    ENVIRONMENT_FIELD_NUMBER: _ClassVar[int]
    ANNOTATIONS_FIELD_NUMBER: _ClassVar[int]
    ACCOUNTS_FIELD_NUMBER: _ClassVar[int]
    CERTIFICATES_FIELD_NUMBER: _ClassVar[int]
    contents: ImageContents
    environment: _containers.ScalarMap[str, str]
    annotations: _containers.ScalarMap[str, str]
    accounts: _apko_pb2.ApkoConfig.Accounts
    certificates: CustomOverlay.Certificates
    def __init__(self, contents: _Optional[_Union[ImageContents, _Mapping]] = ..., environment: _Optional[_Mapping[str, str]] = ..., annotations: _Optional[_Mapping[str, str]] = ..., accounts: _Optional[_Union[_apko_pb2.ApkoConfig.Accounts, _Mapping]] = ..., certificates: _Optional[_Union[CustomOverlay.Certificates, _Mapping]] = ...) -> None: ...

class ImageContents(_message.Message):
    __slots__ = ("packages", "runtime_repositories", "runtime_keyring")
    class RuntimeKeyringEntry(_message.Message):
        __slots__ = ("name", "content")
        NAME_FIELD_NUMBER: _ClassVar[int]
        CONTENT_FIELD_NUMBER: _ClassVar[int]
        name: str
        content: str
        def __init__(self, name: _Optional[str] = ..., content: _Optional[str] = ...) -> None: ...
    PACKAGES_FIELD_NUMBER: _ClassVar[int]
    RUNTIME_REPOSITORIES_FIELD_NUMBER: _ClassVar[int]
    RUNTIME_KEYRING_FIELD_NUMBER: _ClassVar[int]
    packages: _containers.RepeatedScalarFieldContainer[str]
    runtime_repositories: _containers.RepeatedScalarFieldContainer[str]
    runtime_keyring: _containers.RepeatedCompositeFieldContainer[ImageContents.RuntimeKeyringEntry]
    def __init__(self, packages: _Optional[_Iterable[str]] = ..., runtime_repositories: _Optional[_Iterable[str]] = ..., runtime_keyring: _Optional[_Iterable[_Union[ImageContents.RuntimeKeyringEntry, _Mapping]]] = ...) -> None: ...

class CreateRepoRequest(_message.Message):
    __slots__ = ("parent_id", "repo", "prevent_existing")
    PARENT_ID_FIELD_NUMBER: _ClassVar[int]
    REPO_FIELD_NUMBER: _ClassVar[int]
    PREVENT_EXISTING_FIELD_NUMBER: _ClassVar[int]
    parent_id: str
    repo: Repo
    prevent_existing: bool
    def __init__(self, parent_id: _Optional[str] = ..., repo: _Optional[_Union[Repo, _Mapping]] = ..., prevent_existing: _Optional[bool] = ...) -> None: ...

class GetRepoCountBySourceRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class RepoCount(_message.Message):
    __slots__ = ("count",)
    COUNT_FIELD_NUMBER: _ClassVar[int]
    count: int
    def __init__(self, count: _Optional[int] = ...) -> None: ...

class DeleteRepoRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class RepoList(_message.Message):
    __slots__ = ("items",)
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[Repo]
    def __init__(self, items: _Optional[_Iterable[_Union[Repo, _Mapping]]] = ...) -> None: ...

class RepoFilter(_message.Message):
    __slots__ = ("uidp", "name", "id")
    UIDP_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    uidp: _uidp_pb2.UIDPFilter
    name: str
    id: str
    def __init__(self, uidp: _Optional[_Union[_uidp_pb2.UIDPFilter, _Mapping]] = ..., name: _Optional[str] = ..., id: _Optional[str] = ...) -> None: ...

class CreateTagRequest(_message.Message):
    __slots__ = ("repo_id", "tag")
    REPO_ID_FIELD_NUMBER: _ClassVar[int]
    TAG_FIELD_NUMBER: _ClassVar[int]
    repo_id: str
    tag: Tag
    def __init__(self, repo_id: _Optional[str] = ..., tag: _Optional[_Union[Tag, _Mapping]] = ...) -> None: ...

class DeleteTagRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class Tag(_message.Message):
    __slots__ = ("id", "name", "digest", "last_updated", "deprecated", "bundles")
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    DIGEST_FIELD_NUMBER: _ClassVar[int]
    LAST_UPDATED_FIELD_NUMBER: _ClassVar[int]
    DEPRECATED_FIELD_NUMBER: _ClassVar[int]
    BUNDLES_FIELD_NUMBER: _ClassVar[int]
    id: str
    name: str
    digest: str
    last_updated: _timestamp_pb2.Timestamp
    deprecated: bool
    bundles: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ..., digest: _Optional[str] = ..., last_updated: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., deprecated: _Optional[bool] = ..., bundles: _Optional[_Iterable[str]] = ...) -> None: ...

class EolTag(_message.Message):
    __slots__ = ("id", "name", "main_package_name", "tag_status", "main_package_version", "grace_status", "grace_period_expiry_date")
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
    tag_status: EolTagStatus
    main_package_version: PackageVersion
    grace_status: EolGracePeriodStatus
    grace_period_expiry_date: _timestamp_pb2.Timestamp
    def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ..., main_package_name: _Optional[str] = ..., tag_status: _Optional[_Union[EolTagStatus, str]] = ..., main_package_version: _Optional[_Union[PackageVersion, _Mapping]] = ..., grace_status: _Optional[_Union[EolGracePeriodStatus, str]] = ..., grace_period_expiry_date: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class TagFilter(_message.Message):
    __slots__ = ("uidp", "name", "updated_since", "exclude_referrers", "exclude_dates", "exclude_epochs", "id", "digest")
    UIDP_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    UPDATED_SINCE_FIELD_NUMBER: _ClassVar[int]
    EXCLUDE_REFERRERS_FIELD_NUMBER: _ClassVar[int]
    EXCLUDE_DATES_FIELD_NUMBER: _ClassVar[int]
    EXCLUDE_EPOCHS_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    DIGEST_FIELD_NUMBER: _ClassVar[int]
    uidp: _uidp_pb2.UIDPFilter
    name: str
    updated_since: _timestamp_pb2.Timestamp
    exclude_referrers: bool
    exclude_dates: bool
    exclude_epochs: bool
    id: str
    digest: str
    def __init__(self, uidp: _Optional[_Union[_uidp_pb2.UIDPFilter, _Mapping]] = ..., name: _Optional[str] = ..., updated_since: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., exclude_referrers: _Optional[bool] = ..., exclude_dates: _Optional[bool] = ..., exclude_epochs: _Optional[bool] = ..., id: _Optional[str] = ..., digest: _Optional[str] = ...) -> None: ...

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

class TagList(_message.Message):
    __slots__ = ("items",)
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[Tag]
    def __init__(self, items: _Optional[_Iterable[_Union[Tag, _Mapping]]] = ...) -> None: ...

class RepoTagsSummary(_message.Message):
    __slots__ = ("id", "tag_count", "last_updated", "latest_tag", "latest_version")
    ID_FIELD_NUMBER: _ClassVar[int]
    TAG_COUNT_FIELD_NUMBER: _ClassVar[int]
    LAST_UPDATED_FIELD_NUMBER: _ClassVar[int]
    LATEST_TAG_FIELD_NUMBER: _ClassVar[int]
    LATEST_VERSION_FIELD_NUMBER: _ClassVar[int]
    id: str
    tag_count: int
    last_updated: _timestamp_pb2.Timestamp
    latest_tag: Tag
    latest_version: str
    def __init__(self, id: _Optional[str] = ..., tag_count: _Optional[int] = ..., last_updated: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., latest_tag: _Optional[_Union[Tag, _Mapping]] = ..., latest_version: _Optional[str] = ...) -> None: ...

class GetRepoTagsSummaryRequest(_message.Message):
    __slots__ = ("repo_id", "exclude_referrers", "exclude_dates", "exclude_epochs")
    REPO_ID_FIELD_NUMBER: _ClassVar[int]
    EXCLUDE_REFERRERS_FIELD_NUMBER: _ClassVar[int]
    EXCLUDE_DATES_FIELD_NUMBER: _ClassVar[int]
    EXCLUDE_EPOCHS_FIELD_NUMBER: _ClassVar[int]
    repo_id: str
    exclude_referrers: bool
    exclude_dates: bool
    exclude_epochs: bool
    def __init__(self, repo_id: _Optional[str] = ..., exclude_referrers: _Optional[bool] = ..., exclude_dates: _Optional[bool] = ..., exclude_epochs: _Optional[bool] = ...) -> None: ...

class EolTagList(_message.Message):
    __slots__ = ("items", "next_page_token")
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[EolTag]
    next_page_token: str
    def __init__(self, items: _Optional[_Iterable[_Union[EolTag, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class TagHistoryFilter(_message.Message):
    __slots__ = ("parent_id", "start", "end")
    PARENT_ID_FIELD_NUMBER: _ClassVar[int]
    START_FIELD_NUMBER: _ClassVar[int]
    END_FIELD_NUMBER: _ClassVar[int]
    parent_id: str
    start: _timestamp_pb2.Timestamp
    end: _timestamp_pb2.Timestamp
    def __init__(self, parent_id: _Optional[str] = ..., start: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., end: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class TagHistoryList(_message.Message):
    __slots__ = ("items",)
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[TagHistory]
    def __init__(self, items: _Optional[_Iterable[_Union[TagHistory, _Mapping]]] = ...) -> None: ...

class TagHistory(_message.Message):
    __slots__ = ("update_timestamp", "digest")
    UPDATE_TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    DIGEST_FIELD_NUMBER: _ClassVar[int]
    update_timestamp: _timestamp_pb2.Timestamp
    digest: str
    def __init__(self, update_timestamp: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., digest: _Optional[str] = ...) -> None: ...

class DiffImageResponse(_message.Message):
    __slots__ = ("packages", "vulnerabilities", "warnings")
    PACKAGES_FIELD_NUMBER: _ClassVar[int]
    VULNERABILITIES_FIELD_NUMBER: _ClassVar[int]
    WARNINGS_FIELD_NUMBER: _ClassVar[int]
    packages: PackagesDiff
    vulnerabilities: VulnerabilitiesDiff
    warnings: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, packages: _Optional[_Union[PackagesDiff, _Mapping]] = ..., vulnerabilities: _Optional[_Union[VulnerabilitiesDiff, _Mapping]] = ..., warnings: _Optional[_Iterable[str]] = ...) -> None: ...

class SbomRequest(_message.Message):
    __slots__ = ("repo_id", "digest", "arch")
    REPO_ID_FIELD_NUMBER: _ClassVar[int]
    DIGEST_FIELD_NUMBER: _ClassVar[int]
    ARCH_FIELD_NUMBER: _ClassVar[int]
    repo_id: str
    digest: str
    arch: str
    def __init__(self, repo_id: _Optional[str] = ..., digest: _Optional[str] = ..., arch: _Optional[str] = ...) -> None: ...

class PackageVersionMetadataRequest(_message.Message):
    __slots__ = ("package",)
    PACKAGE_FIELD_NUMBER: _ClassVar[int]
    package: str
    def __init__(self, package: _Optional[str] = ...) -> None: ...

class Archs(_message.Message):
    __slots__ = ("archs",)
    ARCHS_FIELD_NUMBER: _ClassVar[int]
    archs: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, archs: _Optional[_Iterable[str]] = ...) -> None: ...

class ArchFilter(_message.Message):
    __slots__ = ("arch",)
    ARCH_FIELD_NUMBER: _ClassVar[int]
    arch: str
    def __init__(self, arch: _Optional[str] = ...) -> None: ...

class Size(_message.Message):
    __slots__ = ("size", "arch")
    SIZE_FIELD_NUMBER: _ClassVar[int]
    ARCH_FIELD_NUMBER: _ClassVar[int]
    size: int
    arch: str
    def __init__(self, size: _Optional[int] = ..., arch: _Optional[str] = ...) -> None: ...

class ImageConfig(_message.Message):
    __slots__ = ("user", "exposed_ports", "env", "entrypoint", "cmd", "volumes", "working_dir", "labels", "stop_signal")
    class ExposedPort(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class Volume(_message.Message):
        __slots__ = ()
        def __init__(self) -> None: ...
    class ExposedPortsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: ImageConfig.ExposedPort
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[ImageConfig.ExposedPort, _Mapping]] = ...) -> None: ...
    class VolumesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: ImageConfig.Volume
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[ImageConfig.Volume, _Mapping]] = ...) -> None: ...
    class LabelsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    USER_FIELD_NUMBER: _ClassVar[int]
    EXPOSED_PORTS_FIELD_NUMBER: _ClassVar[int]
    ENV_FIELD_NUMBER: _ClassVar[int]
    ENTRYPOINT_FIELD_NUMBER: _ClassVar[int]
    CMD_FIELD_NUMBER: _ClassVar[int]
    VOLUMES_FIELD_NUMBER: _ClassVar[int]
    WORKING_DIR_FIELD_NUMBER: _ClassVar[int]
    LABELS_FIELD_NUMBER: _ClassVar[int]
    STOP_SIGNAL_FIELD_NUMBER: _ClassVar[int]
    user: str
    exposed_ports: _containers.MessageMap[str, ImageConfig.ExposedPort]
    env: _containers.RepeatedScalarFieldContainer[str]
    entrypoint: _containers.RepeatedScalarFieldContainer[str]
    cmd: _containers.RepeatedScalarFieldContainer[str]
    volumes: _containers.MessageMap[str, ImageConfig.Volume]
    working_dir: str
    labels: _containers.ScalarMap[str, str]
    stop_signal: str
    def __init__(self, user: _Optional[str] = ..., exposed_ports: _Optional[_Mapping[str, ImageConfig.ExposedPort]] = ..., env: _Optional[_Iterable[str]] = ..., entrypoint: _Optional[_Iterable[str]] = ..., cmd: _Optional[_Iterable[str]] = ..., volumes: _Optional[_Mapping[str, ImageConfig.Volume]] = ..., working_dir: _Optional[str] = ..., labels: _Optional[_Mapping[str, str]] = ..., stop_signal: _Optional[str] = ...) -> None: ...

class PackagesDiff(_message.Message):
    __slots__ = ("added", "removed", "changed")
    class ChangedPackageReference(_message.Message):
        __slots__ = ("name", "current", "previous")
        NAME_FIELD_NUMBER: _ClassVar[int]
        CURRENT_FIELD_NUMBER: _ClassVar[int]
        PREVIOUS_FIELD_NUMBER: _ClassVar[int]
        name: str
        current: VersionReference
        previous: VersionReference
        def __init__(self, name: _Optional[str] = ..., current: _Optional[_Union[VersionReference, _Mapping]] = ..., previous: _Optional[_Union[VersionReference, _Mapping]] = ...) -> None: ...
    ADDED_FIELD_NUMBER: _ClassVar[int]
    REMOVED_FIELD_NUMBER: _ClassVar[int]
    CHANGED_FIELD_NUMBER: _ClassVar[int]
    added: _containers.RepeatedCompositeFieldContainer[PackageReference]
    removed: _containers.RepeatedCompositeFieldContainer[PackageReference]
    changed: _containers.RepeatedCompositeFieldContainer[PackagesDiff.ChangedPackageReference]
    def __init__(self, added: _Optional[_Iterable[_Union[PackageReference, _Mapping]]] = ..., removed: _Optional[_Iterable[_Union[PackageReference, _Mapping]]] = ..., changed: _Optional[_Iterable[_Union[PackagesDiff.ChangedPackageReference, _Mapping]]] = ...) -> None: ...

class VersionReference(_message.Message):
    __slots__ = ("version", "reference")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    REFERENCE_FIELD_NUMBER: _ClassVar[int]
    version: str
    reference: str
    def __init__(self, version: _Optional[str] = ..., reference: _Optional[str] = ...) -> None: ...

class PackageReference(_message.Message):
    __slots__ = ("name", "version", "reference")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    REFERENCE_FIELD_NUMBER: _ClassVar[int]
    name: str
    version: str
    reference: str
    def __init__(self, name: _Optional[str] = ..., version: _Optional[str] = ..., reference: _Optional[str] = ...) -> None: ...

class VulnerabilitiesDiff(_message.Message):
    __slots__ = ("added", "removed", "metadata")
    ADDED_FIELD_NUMBER: _ClassVar[int]
    REMOVED_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    added: _containers.RepeatedCompositeFieldContainer[VulnerabilityReference]
    removed: _containers.RepeatedCompositeFieldContainer[VulnerabilityReference]
    metadata: _containers.RepeatedCompositeFieldContainer[ScannerMetadata]
    def __init__(self, added: _Optional[_Iterable[_Union[VulnerabilityReference, _Mapping]]] = ..., removed: _Optional[_Iterable[_Union[VulnerabilityReference, _Mapping]]] = ..., metadata: _Optional[_Iterable[_Union[ScannerMetadata, _Mapping]]] = ...) -> None: ...

class ScannerMetadata(_message.Message):
    __slots__ = ("digest", "scanner", "vulnerability_db_last_build_time", "vulnerability_db_schema_version")
    DIGEST_FIELD_NUMBER: _ClassVar[int]
    SCANNER_FIELD_NUMBER: _ClassVar[int]
    VULNERABILITY_DB_LAST_BUILD_TIME_FIELD_NUMBER: _ClassVar[int]
    VULNERABILITY_DB_SCHEMA_VERSION_FIELD_NUMBER: _ClassVar[int]
    digest: str
    scanner: _vuln_pb2.Scanner
    vulnerability_db_last_build_time: _timestamp_pb2.Timestamp
    vulnerability_db_schema_version: str
    def __init__(self, digest: _Optional[str] = ..., scanner: _Optional[_Union[_vuln_pb2.Scanner, _Mapping]] = ..., vulnerability_db_last_build_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., vulnerability_db_schema_version: _Optional[str] = ...) -> None: ...

class VulnerabilityReference(_message.Message):
    __slots__ = ("id", "reference", "severity")
    ID_FIELD_NUMBER: _ClassVar[int]
    REFERENCE_FIELD_NUMBER: _ClassVar[int]
    SEVERITY_FIELD_NUMBER: _ClassVar[int]
    id: str
    reference: str
    severity: str
    def __init__(self, id: _Optional[str] = ..., reference: _Optional[str] = ..., severity: _Optional[str] = ...) -> None: ...

class ArchRequest(_message.Message):
    __slots__ = ("repo_id", "digest")
    REPO_ID_FIELD_NUMBER: _ClassVar[int]
    DIGEST_FIELD_NUMBER: _ClassVar[int]
    repo_id: str
    digest: str
    def __init__(self, repo_id: _Optional[str] = ..., digest: _Optional[str] = ...) -> None: ...

class SizeRequest(_message.Message):
    __slots__ = ("repo_id", "digest", "arch")
    REPO_ID_FIELD_NUMBER: _ClassVar[int]
    DIGEST_FIELD_NUMBER: _ClassVar[int]
    ARCH_FIELD_NUMBER: _ClassVar[int]
    repo_id: str
    digest: str
    arch: str
    def __init__(self, repo_id: _Optional[str] = ..., digest: _Optional[str] = ..., arch: _Optional[str] = ...) -> None: ...

class ImageConfigRequest(_message.Message):
    __slots__ = ("repo_id", "digest", "arch", "registry")
    REPO_ID_FIELD_NUMBER: _ClassVar[int]
    DIGEST_FIELD_NUMBER: _ClassVar[int]
    ARCH_FIELD_NUMBER: _ClassVar[int]
    REGISTRY_FIELD_NUMBER: _ClassVar[int]
    repo_id: str
    digest: str
    arch: str
    registry: bool
    def __init__(self, repo_id: _Optional[str] = ..., digest: _Optional[str] = ..., arch: _Optional[str] = ..., registry: _Optional[bool] = ...) -> None: ...

class RawSbomRequest(_message.Message):
    __slots__ = ("repo_id", "digest", "reference", "arch")
    REPO_ID_FIELD_NUMBER: _ClassVar[int]
    DIGEST_FIELD_NUMBER: _ClassVar[int]
    REFERENCE_FIELD_NUMBER: _ClassVar[int]
    ARCH_FIELD_NUMBER: _ClassVar[int]
    repo_id: str
    digest: str
    reference: str
    arch: str
    def __init__(self, repo_id: _Optional[str] = ..., digest: _Optional[str] = ..., reference: _Optional[str] = ..., arch: _Optional[str] = ...) -> None: ...

class VulnReportRequest(_message.Message):
    __slots__ = ("repo_id", "digest")
    REPO_ID_FIELD_NUMBER: _ClassVar[int]
    DIGEST_FIELD_NUMBER: _ClassVar[int]
    repo_id: str
    digest: str
    def __init__(self, repo_id: _Optional[str] = ..., digest: _Optional[str] = ...) -> None: ...

class ManifestMetadataIndexFilter(_message.Message):
    __slots__ = ("digest", "arch")
    DIGEST_FIELD_NUMBER: _ClassVar[int]
    ARCH_FIELD_NUMBER: _ClassVar[int]
    digest: str
    arch: str
    def __init__(self, digest: _Optional[str] = ..., arch: _Optional[str] = ...) -> None: ...

class ManifestMetadataFilterEntry(_message.Message):
    __slots__ = ("image_digest", "index_filter")
    IMAGE_DIGEST_FIELD_NUMBER: _ClassVar[int]
    INDEX_FILTER_FIELD_NUMBER: _ClassVar[int]
    image_digest: str
    index_filter: ManifestMetadataIndexFilter
    def __init__(self, image_digest: _Optional[str] = ..., index_filter: _Optional[_Union[ManifestMetadataIndexFilter, _Mapping]] = ...) -> None: ...

class ManifestMetadataFilter(_message.Message):
    __slots__ = ("repo_id", "items")
    REPO_ID_FIELD_NUMBER: _ClassVar[int]
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    repo_id: str
    items: _containers.RepeatedCompositeFieldContainer[ManifestMetadataFilterEntry]
    def __init__(self, repo_id: _Optional[str] = ..., items: _Optional[_Iterable[_Union[ManifestMetadataFilterEntry, _Mapping]]] = ...) -> None: ...

class PkgMetadata(_message.Message):
    __slots__ = ("purl", "origin_purl", "eol_date", "build_timestamp", "license")
    PURL_FIELD_NUMBER: _ClassVar[int]
    ORIGIN_PURL_FIELD_NUMBER: _ClassVar[int]
    EOL_DATE_FIELD_NUMBER: _ClassVar[int]
    BUILD_TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    LICENSE_FIELD_NUMBER: _ClassVar[int]
    purl: str
    origin_purl: str
    eol_date: _timestamp_pb2.Timestamp
    build_timestamp: _timestamp_pb2.Timestamp
    license: str
    def __init__(self, purl: _Optional[str] = ..., origin_purl: _Optional[str] = ..., eol_date: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., build_timestamp: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., license: _Optional[str] = ...) -> None: ...

class ManifestMetadata(_message.Message):
    __slots__ = ("digest", "pkg_metadata")
    DIGEST_FIELD_NUMBER: _ClassVar[int]
    PKG_METADATA_FIELD_NUMBER: _ClassVar[int]
    digest: str
    pkg_metadata: _containers.RepeatedCompositeFieldContainer[PkgMetadata]
    def __init__(self, digest: _Optional[str] = ..., pkg_metadata: _Optional[_Iterable[_Union[PkgMetadata, _Mapping]]] = ...) -> None: ...

class ManifestMetadataList(_message.Message):
    __slots__ = ("items",)
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[ManifestMetadata]
    def __init__(self, items: _Optional[_Iterable[_Union[ManifestMetadata, _Mapping]]] = ...) -> None: ...

class ManifestDigestCountFilter(_message.Message):
    __slots__ = ("parent_id",)
    PARENT_ID_FIELD_NUMBER: _ClassVar[int]
    parent_id: str
    def __init__(self, parent_id: _Optional[str] = ...) -> None: ...

class ManifestDigestCount(_message.Message):
    __slots__ = ("count",)
    COUNT_FIELD_NUMBER: _ClassVar[int]
    count: int
    def __init__(self, count: _Optional[int] = ...) -> None: ...

class RawSbom(_message.Message):
    __slots__ = ("rawSbom",)
    RAWSBOM_FIELD_NUMBER: _ClassVar[int]
    rawSbom: str
    def __init__(self, rawSbom: _Optional[str] = ...) -> None: ...

class PackageVersionMetadata(_message.Message):
    __slots__ = ("eolVersions", "lastUpdatedTimestamp", "latestVersion", "versions", "gracePeriodMonths")
    EOLVERSIONS_FIELD_NUMBER: _ClassVar[int]
    LASTUPDATEDTIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    LATESTVERSION_FIELD_NUMBER: _ClassVar[int]
    VERSIONS_FIELD_NUMBER: _ClassVar[int]
    GRACEPERIODMONTHS_FIELD_NUMBER: _ClassVar[int]
    eolVersions: _containers.RepeatedCompositeFieldContainer[PackageVersion]
    lastUpdatedTimestamp: str
    latestVersion: str
    versions: _containers.RepeatedCompositeFieldContainer[PackageVersion]
    gracePeriodMonths: int
    def __init__(self, eolVersions: _Optional[_Iterable[_Union[PackageVersion, _Mapping]]] = ..., lastUpdatedTimestamp: _Optional[str] = ..., latestVersion: _Optional[str] = ..., versions: _Optional[_Iterable[_Union[PackageVersion, _Mapping]]] = ..., gracePeriodMonths: _Optional[int] = ...) -> None: ...

class PackageVersion(_message.Message):
    __slots__ = ("eolDate", "exists", "fips", "legacy_lts", "lts", "releaseDate", "version", "eolBroken", "latestVersion", "versionSource")
    class VersionSource(_message.Message):
        __slots__ = ("ref", "sha")
        REF_FIELD_NUMBER: _ClassVar[int]
        SHA_FIELD_NUMBER: _ClassVar[int]
        ref: str
        sha: str
        def __init__(self, ref: _Optional[str] = ..., sha: _Optional[str] = ...) -> None: ...
    EOLDATE_FIELD_NUMBER: _ClassVar[int]
    EXISTS_FIELD_NUMBER: _ClassVar[int]
    FIPS_FIELD_NUMBER: _ClassVar[int]
    LEGACY_LTS_FIELD_NUMBER: _ClassVar[int]
    LTS_FIELD_NUMBER: _ClassVar[int]
    RELEASEDATE_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    EOLBROKEN_FIELD_NUMBER: _ClassVar[int]
    LATESTVERSION_FIELD_NUMBER: _ClassVar[int]
    VERSIONSOURCE_FIELD_NUMBER: _ClassVar[int]
    eolDate: str
    exists: bool
    fips: bool
    legacy_lts: str
    lts: bool
    releaseDate: str
    version: str
    eolBroken: bool
    latestVersion: str
    versionSource: PackageVersion.VersionSource
    def __init__(self, eolDate: _Optional[str] = ..., exists: _Optional[bool] = ..., fips: _Optional[bool] = ..., legacy_lts: _Optional[str] = ..., lts: _Optional[bool] = ..., releaseDate: _Optional[str] = ..., version: _Optional[str] = ..., eolBroken: _Optional[bool] = ..., latestVersion: _Optional[str] = ..., versionSource: _Optional[_Union[PackageVersion.VersionSource, _Mapping]] = ...) -> None: ...

class BuildReportFilter(_message.Message):
    __slots__ = ("uidp", "started_since", "started_before", "exclude_logs", "page_size")
    UIDP_FIELD_NUMBER: _ClassVar[int]
    STARTED_SINCE_FIELD_NUMBER: _ClassVar[int]
    STARTED_BEFORE_FIELD_NUMBER: _ClassVar[int]
    EXCLUDE_LOGS_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    uidp: _uidp_pb2.UIDPFilter
    started_since: _timestamp_pb2.Timestamp
    started_before: _timestamp_pb2.Timestamp
    exclude_logs: bool
    page_size: int
    def __init__(self, uidp: _Optional[_Union[_uidp_pb2.UIDPFilter, _Mapping]] = ..., started_since: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., started_before: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., exclude_logs: _Optional[bool] = ..., page_size: _Optional[int] = ...) -> None: ...

class BuildReport(_message.Message):
    __slots__ = ("id", "media_type", "config", "locked_config", "result", "warnings", "log", "digest", "apko_version", "started_at", "completed_at")
    class Result(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        Unknown: _ClassVar[BuildReport.Result]
        Success: _ClassVar[BuildReport.Result]
        Failure: _ClassVar[BuildReport.Result]
    Unknown: BuildReport.Result
    Success: BuildReport.Result
    Failure: BuildReport.Result
    ID_FIELD_NUMBER: _ClassVar[int]
    MEDIA_TYPE_FIELD_NUMBER: _ClassVar[int]
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    LOCKED_CONFIG_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    WARNINGS_FIELD_NUMBER: _ClassVar[int]
    LOG_FIELD_NUMBER: _ClassVar[int]
    DIGEST_FIELD_NUMBER: _ClassVar[int]
    APKO_VERSION_FIELD_NUMBER: _ClassVar[int]
    STARTED_AT_FIELD_NUMBER: _ClassVar[int]
    COMPLETED_AT_FIELD_NUMBER: _ClassVar[int]
    id: str
    media_type: str
    config: str
    locked_config: str
    result: BuildReport.Result
    warnings: _containers.RepeatedScalarFieldContainer[str]
    log: str
    digest: str
    apko_version: str
    started_at: _timestamp_pb2.Timestamp
    completed_at: _timestamp_pb2.Timestamp
    def __init__(self, id: _Optional[str] = ..., media_type: _Optional[str] = ..., config: _Optional[str] = ..., locked_config: _Optional[str] = ..., result: _Optional[_Union[BuildReport.Result, str]] = ..., warnings: _Optional[_Iterable[str]] = ..., log: _Optional[str] = ..., digest: _Optional[str] = ..., apko_version: _Optional[str] = ..., started_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., completed_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class BuildReportList(_message.Message):
    __slots__ = ("reports",)
    REPORTS_FIELD_NUMBER: _ClassVar[int]
    reports: _containers.RepeatedCompositeFieldContainer[BuildReport]
    def __init__(self, reports: _Optional[_Iterable[_Union[BuildReport, _Mapping]]] = ...) -> None: ...

class BuildStatus(_message.Message):
    __slots__ = ("failures",)
    class Failures(_message.Message):
        __slots__ = ("repo_id", "total")
        REPO_ID_FIELD_NUMBER: _ClassVar[int]
        TOTAL_FIELD_NUMBER: _ClassVar[int]
        repo_id: str
        total: int
        def __init__(self, repo_id: _Optional[str] = ..., total: _Optional[int] = ...) -> None: ...
    FAILURES_FIELD_NUMBER: _ClassVar[int]
    failures: _containers.RepeatedCompositeFieldContainer[BuildStatus.Failures]
    def __init__(self, failures: _Optional[_Iterable[_Union[BuildStatus.Failures, _Mapping]]] = ...) -> None: ...

class UpdateStatusRequest(_message.Message):
    __slots__ = ("repo_id",)
    REPO_ID_FIELD_NUMBER: _ClassVar[int]
    repo_id: str
    def __init__(self, repo_id: _Optional[str] = ...) -> None: ...

class UpdateStatus(_message.Message):
    __slots__ = ("recently_updated",)
    RECENTLY_UPDATED_FIELD_NUMBER: _ClassVar[int]
    recently_updated: bool
    def __init__(self, recently_updated: _Optional[bool] = ...) -> None: ...

class GetSyncStatusRequest(_message.Message):
    __slots__ = ("repo_id",)
    REPO_ID_FIELD_NUMBER: _ClassVar[int]
    repo_id: str
    def __init__(self, repo_id: _Optional[str] = ...) -> None: ...

class ListSyncStatusesRequest(_message.Message):
    __slots__ = ("registry_id",)
    REGISTRY_ID_FIELD_NUMBER: _ClassVar[int]
    registry_id: str
    def __init__(self, registry_id: _Optional[str] = ...) -> None: ...

class SyncStatus(_message.Message):
    __slots__ = ("status", "create_time")
    class Status(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        UNKNOWN: _ClassVar[SyncStatus.Status]
        QUEUED: _ClassVar[SyncStatus.Status]
        IN_PROGRESS: _ClassVar[SyncStatus.Status]
        FAILED: _ClassVar[SyncStatus.Status]
    UNKNOWN: SyncStatus.Status
    QUEUED: SyncStatus.Status
    IN_PROGRESS: SyncStatus.Status
    FAILED: SyncStatus.Status
    STATUS_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    status: SyncStatus.Status
    create_time: _timestamp_pb2.Timestamp
    def __init__(self, status: _Optional[_Union[SyncStatus.Status, str]] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class RepoSyncStatus(_message.Message):
    __slots__ = ("repo_id", "repo_status")
    REPO_ID_FIELD_NUMBER: _ClassVar[int]
    REPO_STATUS_FIELD_NUMBER: _ClassVar[int]
    repo_id: str
    repo_status: SyncStatus
    def __init__(self, repo_id: _Optional[str] = ..., repo_status: _Optional[_Union[SyncStatus, _Mapping]] = ...) -> None: ...

class SyncStatusList(_message.Message):
    __slots__ = ("items",)
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[RepoSyncStatus]
    def __init__(self, items: _Optional[_Iterable[_Union[RepoSyncStatus, _Mapping]]] = ...) -> None: ...

class HelmRequest(_message.Message):
    __slots__ = ("repo_id", "digest", "arch")
    REPO_ID_FIELD_NUMBER: _ClassVar[int]
    DIGEST_FIELD_NUMBER: _ClassVar[int]
    ARCH_FIELD_NUMBER: _ClassVar[int]
    repo_id: str
    digest: str
    arch: str
    def __init__(self, repo_id: _Optional[str] = ..., digest: _Optional[str] = ..., arch: _Optional[str] = ...) -> None: ...

class Helm(_message.Message):
    __slots__ = ("chart_name", "chart_version", "chart_repository", "chart_digest", "values")
    CHART_NAME_FIELD_NUMBER: _ClassVar[int]
    CHART_VERSION_FIELD_NUMBER: _ClassVar[int]
    CHART_REPOSITORY_FIELD_NUMBER: _ClassVar[int]
    CHART_DIGEST_FIELD_NUMBER: _ClassVar[int]
    VALUES_FIELD_NUMBER: _ClassVar[int]
    chart_name: str
    chart_version: str
    chart_repository: str
    chart_digest: str
    values: str
    def __init__(self, chart_name: _Optional[str] = ..., chart_version: _Optional[str] = ..., chart_repository: _Optional[str] = ..., chart_digest: _Optional[str] = ..., values: _Optional[str] = ...) -> None: ...

class GetChartRequest(_message.Message):
    __slots__ = ("repo_id", "digest")
    REPO_ID_FIELD_NUMBER: _ClassVar[int]
    DIGEST_FIELD_NUMBER: _ClassVar[int]
    repo_id: str
    digest: str
    def __init__(self, repo_id: _Optional[str] = ..., digest: _Optional[str] = ...) -> None: ...

class Chart(_message.Message):
    __slots__ = ("name", "version", "app_version", "description", "dependencies", "annotations", "images", "raw", "values", "changelog")
    class AnnotationsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    APP_VERSION_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    DEPENDENCIES_FIELD_NUMBER: _ClassVar[int]
    ANNOTATIONS_FIELD_NUMBER: _ClassVar[int]
    IMAGES_FIELD_NUMBER: _ClassVar[int]
    RAW_FIELD_NUMBER: _ClassVar[int]
    VALUES_FIELD_NUMBER: _ClassVar[int]
    CHANGELOG_FIELD_NUMBER: _ClassVar[int]
    name: str
    version: str
    app_version: str
    description: str
    dependencies: _containers.RepeatedCompositeFieldContainer[ChartDependency]
    annotations: _containers.ScalarMap[str, str]
    images: _containers.RepeatedCompositeFieldContainer[ChartImage]
    raw: str
    values: str
    changelog: str
    def __init__(self, name: _Optional[str] = ..., version: _Optional[str] = ..., app_version: _Optional[str] = ..., description: _Optional[str] = ..., dependencies: _Optional[_Iterable[_Union[ChartDependency, _Mapping]]] = ..., annotations: _Optional[_Mapping[str, str]] = ..., images: _Optional[_Iterable[_Union[ChartImage, _Mapping]]] = ..., raw: _Optional[str] = ..., values: _Optional[str] = ..., changelog: _Optional[str] = ...) -> None: ...

class ChartDependency(_message.Message):
    __slots__ = ("name", "version", "repository")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    REPOSITORY_FIELD_NUMBER: _ClassVar[int]
    name: str
    version: str
    repository: str
    def __init__(self, name: _Optional[str] = ..., version: _Optional[str] = ..., repository: _Optional[str] = ...) -> None: ...

class ChartImage(_message.Message):
    __slots__ = ("name", "image", "requirement")
    NAME_FIELD_NUMBER: _ClassVar[int]
    IMAGE_FIELD_NUMBER: _ClassVar[int]
    REQUIREMENT_FIELD_NUMBER: _ClassVar[int]
    name: str
    image: str
    requirement: ChartImageRequirement
    def __init__(self, name: _Optional[str] = ..., image: _Optional[str] = ..., requirement: _Optional[_Union[ChartImageRequirement, str]] = ...) -> None: ...

class ListChartsByImageRepoRequest(_message.Message):
    __slots__ = ("repo_id",)
    REPO_ID_FIELD_NUMBER: _ClassVar[int]
    repo_id: str
    def __init__(self, repo_id: _Optional[str] = ...) -> None: ...

class ListChartsByImageRepoResponse(_message.Message):
    __slots__ = ("chart_image_bindings",)
    CHART_IMAGE_BINDINGS_FIELD_NUMBER: _ClassVar[int]
    chart_image_bindings: _containers.RepeatedCompositeFieldContainer[ChartImageBinding]
    def __init__(self, chart_image_bindings: _Optional[_Iterable[_Union[ChartImageBinding, _Mapping]]] = ...) -> None: ...

class ChartImageBinding(_message.Message):
    __slots__ = ("chart_repo", "requirement")
    CHART_REPO_FIELD_NUMBER: _ClassVar[int]
    REQUIREMENT_FIELD_NUMBER: _ClassVar[int]
    chart_repo: str
    requirement: ChartImageRequirement
    def __init__(self, chart_repo: _Optional[str] = ..., requirement: _Optional[_Union[ChartImageRequirement, str]] = ...) -> None: ...

class Deployment(_message.Message):
    __slots__ = ("id", "charts")
    ID_FIELD_NUMBER: _ClassVar[int]
    CHARTS_FIELD_NUMBER: _ClassVar[int]
    id: str
    charts: _containers.RepeatedCompositeFieldContainer[HelmChart]
    def __init__(self, id: _Optional[str] = ..., charts: _Optional[_Iterable[_Union[HelmChart, _Mapping]]] = ...) -> None: ...

class HelmChart(_message.Message):
    __slots__ = ("source", "repo", "chart")
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    REPO_FIELD_NUMBER: _ClassVar[int]
    CHART_FIELD_NUMBER: _ClassVar[int]
    source: str
    repo: str
    chart: str
    def __init__(self, source: _Optional[str] = ..., repo: _Optional[str] = ..., chart: _Optional[str] = ...) -> None: ...

class CreateDeploymentRequest(_message.Message):
    __slots__ = ("parent_id", "charts")
    PARENT_ID_FIELD_NUMBER: _ClassVar[int]
    CHARTS_FIELD_NUMBER: _ClassVar[int]
    parent_id: str
    charts: _containers.RepeatedCompositeFieldContainer[HelmChart]
    def __init__(self, parent_id: _Optional[str] = ..., charts: _Optional[_Iterable[_Union[HelmChart, _Mapping]]] = ...) -> None: ...

class UpdateDeploymentRequest(_message.Message):
    __slots__ = ("repo_id", "charts")
    REPO_ID_FIELD_NUMBER: _ClassVar[int]
    CHARTS_FIELD_NUMBER: _ClassVar[int]
    repo_id: str
    charts: _containers.RepeatedCompositeFieldContainer[HelmChart]
    def __init__(self, repo_id: _Optional[str] = ..., charts: _Optional[_Iterable[_Union[HelmChart, _Mapping]]] = ...) -> None: ...

class GetDeploymentRequest(_message.Message):
    __slots__ = ("repo_id",)
    REPO_ID_FIELD_NUMBER: _ClassVar[int]
    repo_id: str
    def __init__(self, repo_id: _Optional[str] = ...) -> None: ...

class RegistrySettings(_message.Message):
    __slots__ = ("registry_id", "unique_tags", "eol_grace_period")
    REGISTRY_ID_FIELD_NUMBER: _ClassVar[int]
    UNIQUE_TAGS_FIELD_NUMBER: _ClassVar[int]
    EOL_GRACE_PERIOD_FIELD_NUMBER: _ClassVar[int]
    registry_id: str
    unique_tags: bool
    eol_grace_period: bool
    def __init__(self, registry_id: _Optional[str] = ..., unique_tags: _Optional[bool] = ..., eol_grace_period: _Optional[bool] = ...) -> None: ...

class GetRegistrySettingsRequest(_message.Message):
    __slots__ = ("registry_id",)
    REGISTRY_ID_FIELD_NUMBER: _ClassVar[int]
    registry_id: str
    def __init__(self, registry_id: _Optional[str] = ...) -> None: ...

class PolicyInput(_message.Message):
    __slots__ = ("main_package", "main_package_version", "create_time")
    MAIN_PACKAGE_FIELD_NUMBER: _ClassVar[int]
    MAIN_PACKAGE_VERSION_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    main_package: str
    main_package_version: PackageVersion
    create_time: _timestamp_pb2.Timestamp
    def __init__(self, main_package: _Optional[str] = ..., main_package_version: _Optional[_Union[PackageVersion, _Mapping]] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...
