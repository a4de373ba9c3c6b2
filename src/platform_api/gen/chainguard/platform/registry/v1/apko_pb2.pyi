import datetime

from google.api import annotations_pb2 as _annotations_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from platform_api.gen.platformapi import annotations_pb2 as _annotations_pb2_1
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ResolveConfigRequest(_message.Message):
    __slots__ = ("config", "repo_uidp")
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    REPO_UIDP_FIELD_NUMBER: _ClassVar[int]
    config: ApkoConfig
    repo_uidp: str
    def __init__(self, config: _Optional[_Union[ApkoConfig, _Mapping]] = ..., repo_uidp: _Optional[str] = ...) -> None: ...

class ApkoConfig(_message.Message):
    __slots__ = ("contents", "environment", "accounts", "entrypoint", "cmd", "work_dir", "annotations", "paths", "archs", "volumes", "include", "stop_signal", "vcs_url", "layering", "certificates")
    class Contents(_message.Message):
        __slots__ = ("repositories", "build_repositories", "runtime_repositories", "keyring", "packages")
        REPOSITORIES_FIELD_NUMBER: _ClassVar[int]
        BUILD_REPOSITORIES_FIELD_NUMBER: _ClassVar[int]
        RUNTIME_REPOSITORIES_FIELD_NUMBER: _ClassVar[int]
        KEYRING_FIELD_NUMBER: _ClassVar[int]
        PACKAGES_FIELD_NUMBER: _ClassVar[int]
        repositories: _containers.RepeatedScalarFieldContainer[str]
        build_repositories: _containers.RepeatedScalarFieldContainer[str]
        runtime_repositories: _containers.RepeatedScalarFieldContainer[str]
        keyring: _containers.RepeatedScalarFieldContainer[str]
        packages: _containers.RepeatedScalarFieldContainer[str]
        def __init__(self, repositories: _Optional[_Iterable[str]] = ..., build_repositories: _Optional[_Iterable[str]] = ..., runtime_repositories: _Optional[_Iterable[str]] = ..., keyring: _Optional[_Iterable[str]] = ..., packages: _Optional[_Iterable[str]] = ...) -> None: ...
    class Accounts(_message.Message):
        __slots__ = ("groups", "users", "run_as")
        class Group(_message.Message):
            __slots__ = ("gid", "group_name", "members")
            GID_FIELD_NUMBER: _ClassVar[int]
            GROUP_NAME_FIELD_NUMBER: _ClassVar[int]
            MEMBERS_FIELD_NUMBER: _ClassVar[int]
            gid: int
            group_name: str
            members: _containers.RepeatedScalarFieldContainer[str]
            def __init__(self, gid: _Optional[int] = ..., group_name: _Optional[str] = ..., members: _Optional[_Iterable[str]] = ...) -> None: ...
        class User(_message.Message):
            __slots__ = ("uid", "user_name", "gid", "group_name", "shell", "home_dir")
            UID_FIELD_NUMBER: _ClassVar[int]
            USER_NAME_FIELD_NUMBER: _ClassVar[int]
            GID_FIELD_NUMBER: _ClassVar[int]
            GROUP_NAME_FIELD_NUMBER: _ClassVar[int]
            SHELL_FIELD_NUMBER: _ClassVar[int]
            HOME_DIR_FIELD_NUMBER: _ClassVar[int]
            uid: int
            user_name: str
            gid: int
            group_name: str
            shell: str
            home_dir: str
            def __init__(self, uid: _Optional[int] = ..., user_name: _Optional[str] = ..., gid: _Optional[int] = ..., group_name: _Optional[str] = ..., shell: _Optional[str] = ..., home_dir: _Optional[str] = ...) -> None: ...
        GROUPS_FIELD_NUMBER: _ClassVar[int]
        USERS_FIELD_NUMBER: _ClassVar[int]
        RUN_AS_FIELD_NUMBER: _ClassVar[int]
        groups: _containers.RepeatedCompositeFieldContainer[ApkoConfig.Accounts.Group]
        users: _containers.RepeatedCompositeFieldContainer[ApkoConfig.Accounts.User]
        run_as: str
        def __init__(self, groups: _Optional[_Iterable[_Union[ApkoConfig.Accounts.Group, _Mapping]]] = ..., users: _Optional[_Iterable[_Union[ApkoConfig.Accounts.User, _Mapping]]] = ..., run_as: _Optional[str] = ...) -> None: ...
    class Entrypoint(_message.Message):
        __slots__ = ("type", "command", "shell_fragment", "services")
        class ServicesEntry(_message.Message):
            __slots__ = ("key", "value")
            KEY_FIELD_NUMBER: _ClassVar[int]
            VALUE_FIELD_NUMBER: _ClassVar[int]
            key: str
            value: str
            def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
        TYPE_FIELD_NUMBER: _ClassVar[int]
        COMMAND_FIELD_NUMBER: _ClassVar[int]
        SHELL_FRAGMENT_FIELD_NUMBER: _ClassVar[int]
        SERVICES_FIELD_NUMBER: _ClassVar[int]
        type: str
        command: str
        shell_fragment: str
        services: _containers.ScalarMap[str, str]
        def __init__(self, type: _Optional[str] = ..., command: _Optional[str] = ..., shell_fragment: _Optional[str] = ..., services: _Optional[_Mapping[str, str]] = ...) -> None: ...
    class PathMutation(_message.Message):
        __slots__ = ("path", "type", "uid", "gid", "permissions", "source", "recursive")
        PATH_FIELD_NUMBER: _ClassVar[int]
        TYPE_FIELD_NUMBER: _ClassVar[int]
        UID_FIELD_NUMBER: _ClassVar[int]
        GID_FIELD_NUMBER: _ClassVar[int]
        PERMISSIONS_FIELD_NUMBER: _ClassVar[int]
        SOURCE_FIELD_NUMBER: _ClassVar[int]
        RECURSIVE_FIELD_NUMBER: _ClassVar[int]
        path: str
        type: str
        uid: int
        gid: int
        permissions: int
        source: str
        recursive: bool
        def __init__(self, path: _Optional[str] = ..., type: _Optional[str] = ..., uid: _Optional[int] = ..., gid: _Optional[int] = ..., permissions: _Optional[int] = ..., source: _Optional[str] = ..., recursive: _Optional[bool] = ...) -> None: ...
    class Layering(_message.Message):
        __slots__ = ("strategy", "budget")
        STRATEGY_FIELD_NUMBER: _ClassVar[int]
        BUDGET_FIELD_NUMBER: _ClassVar[int]
        strategy: str
        budget: int
        def __init__(self, strategy: _Optional[str] = ..., budget: _Optional[int] = ...) -> None: ...
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
        additional: _containers.RepeatedCompositeFieldContainer[ApkoConfig.Certificates.AdditionalEntry]
        providers: _containers.RepeatedScalarFieldContainer[str]
        def __init__(self, additional: _Optional[_Iterable[_Union[ApkoConfig.Certificates.AdditionalEntry, _Mapping]]] = ..., providers: _Optional[_Iterable[str]] = ...) -> None: ...
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
    ACCOUNTS_FIELD_NUMBER: _ClassVar[int]
    ENTRYPOINT_FIELD_NUMBER: _ClassVar[int]
    CMD_FIELD_NUMBER: _ClassVar[int]
    WORK_DIR_FIELD_NUMBER: _ClassVar[int]
    ANNOTATIONS_FIELD_NUMBER: _ClassVar[int]
    PATHS_FIELD_NUMBER: _ClassVar[int]
    ARCHS_FIELD_NUMBER: _ClassVar[int]
    VOLUMES_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_FIELD_NUMBER: _ClassVar[int]
    STOP_SIGNAL_FIELD_NUMBER: _ClassVar[int]
    VCS_URL_FIELD_NUMBER: _ClassVar[int]
    LAYERING_FIELD_NUMBER: _ClassVar[int]
    CERTIFICATES_FIELD_NUMBER: _ClassVar[int]
    contents: ApkoConfig.Contents
    environment: _containers.ScalarMap[str, str]
    accounts: ApkoConfig.Accounts
    entrypoint: ApkoConfig.Entrypoint
    cmd: str
    work_dir: str
    annotations: _containers.ScalarMap[str, str]
    paths: _containers.RepeatedCompositeFieldContainer[ApkoConfig.PathMutation]
    archs: _containers.RepeatedScalarFieldContainer[str]
    volumes: _containers.RepeatedScalarFieldContainer[str]
    include: str
    stop_signal: str
    vcs_url: str
    layering: ApkoConfig.Layering
    certificates: ApkoConfig.Certificates
    def __init__(self, contents: _Optional[_Union[ApkoConfig.Contents, _Mapping]] = ..., environment: _Optional[_Mapping[str, str]] = ..., accounts: _Optional[_Union[ApkoConfig.Accounts, _Mapping]] = ..., entrypoint: _Optional[_Union[ApkoConfig.Entrypoint, _Mapping]] = ..., cmd: _Optional[str] = ..., work_dir: _Optional[str] = ..., annotations: _Optional[_Mapping[str, str]] = ..., paths: _Optional[_Iterable[_Union[ApkoConfig.PathMutation, _Mapping]]] = ..., archs: _Optional[_Iterable[str]] = ..., volumes: _Optional[_Iterable[str]] = ..., include: _Optional[str] = ..., stop_signal: _Optional[str] = ..., vcs_url: _Optional[str] = ..., layering: _Optional[_Union[ApkoConfig.Layering, _Mapping]] = ..., certificates: _Optional[_Union[ApkoConfig.Certificates, _Mapping]] = ...) -> None: ...

class BuildImageRequest(_message.Message):
    __slots__ = ("config", "repo_uidp", "media_type")
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    REPO_UIDP_FIELD_NUMBER: _ClassVar[int]
    MEDIA_TYPE_FIELD_NUMBER: _ClassVar[int]
    config: ApkoConfig
    repo_uidp: str
    media_type: str
    def __init__(self, config: _Optional[_Union[ApkoConfig, _Mapping]] = ..., repo_uidp: _Optional[str] = ..., media_type: _Optional[str] = ...) -> None: ...

class BuildImageResponse(_message.Message):
    __slots__ = ("digest", "build_date_epoch", "user_error", "build_report_id")
    DIGEST_FIELD_NUMBER: _ClassVar[int]
    BUILD_DATE_EPOCH_FIELD_NUMBER: _ClassVar[int]
    USER_ERROR_FIELD_NUMBER: _ClassVar[int]
    BUILD_REPORT_ID_FIELD_NUMBER: _ClassVar[int]
    digest: str
    build_date_epoch: _timestamp_pb2.Timestamp
    user_error: str
    build_report_id: str
    def __init__(self, digest: _Optional[str] = ..., build_date_epoch: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., user_error: _Optional[str] = ..., build_report_id: _Optional[str] = ...) -> None: ...
