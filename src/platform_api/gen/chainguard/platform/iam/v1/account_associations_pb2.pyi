from google.api import annotations_pb2 as _annotations_pb2
from google.protobuf import empty_pb2 as _empty_pb2
from platform_api.gen.platformapi import annotations_pb2 as _annotations_pb2_1
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class AccountAssociations(_message.Message):
    __slots__ = ("group", "amazon", "google", "chainguard", "azure", "name", "description", "github")
    class Amazon(_message.Message):
        __slots__ = ("account",)
        ACCOUNT_FIELD_NUMBER: _ClassVar[int]
        account: str
        def __init__(self, account: _Optional[str] = ...) -> None: ...
    class Google(_message.Message):
        __slots__ = ("project_id", "project_number")
        PROJECT_ID_FIELD_NUMBER: _ClassVar[int]
        PROJECT_NUMBER_FIELD_NUMBER: _ClassVar[int]
        project_id: str
        project_number: str
        def __init__(self, project_id: _Optional[str] = ..., project_number: _Optional[str] = ...) -> None: ...
    class GitHub(_message.Message):
        __slots__ = ("app_installations",)
        class AppInstallationsEntry(_message.Message):
            __slots__ = ("key", "value")
            KEY_FIELD_NUMBER: _ClassVar[int]
            VALUE_FIELD_NUMBER: _ClassVar[int]
            key: int
            value: AccountAssociations.GitHubAppInstallations
            def __init__(self, key: _Optional[int] = ..., value: _Optional[_Union[AccountAssociations.GitHubAppInstallations, _Mapping]] = ...) -> None: ...
        APP_INSTALLATIONS_FIELD_NUMBER: _ClassVar[int]
        app_installations: _containers.MessageMap[int, AccountAssociations.GitHubAppInstallations]
        def __init__(self, app_installations: _Optional[_Mapping[int, AccountAssociations.GitHubAppInstallations]] = ...) -> None: ...
    class GitHubAppInstallations(_message.Message):
        __slots__ = ("installations",)
        INSTALLATIONS_FIELD_NUMBER: _ClassVar[int]
        installations: _containers.RepeatedCompositeFieldContainer[AccountAssociations.GitHubInstallation]
        def __init__(self, installations: _Optional[_Iterable[_Union[AccountAssociations.GitHubInstallation, _Mapping]]] = ...) -> None: ...
    class GitHubInstallation(_message.Message):
        __slots__ = ("installation_id", "name")
        INSTALLATION_ID_FIELD_NUMBER: _ClassVar[int]
        NAME_FIELD_NUMBER: _ClassVar[int]
        installation_id: int
        name: str
        def __init__(self, installation_id: _Optional[int] = ..., name: _Optional[str] = ...) -> None: ...
    class Chainguard(_message.Message):
        __slots__ = ("service_bindings",)
        class ServiceBindingsEntry(_message.Message):
            __slots__ = ("key", "value")
            KEY_FIELD_NUMBER: _ClassVar[int]
            VALUE_FIELD_NUMBER: _ClassVar[int]
            key: str
            value: str
            def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
        SERVICE_BINDINGS_FIELD_NUMBER: _ClassVar[int]
        service_bindings: _containers.ScalarMap[str, str]
        def __init__(self, service_bindings: _Optional[_Mapping[str, str]] = ...) -> None: ...
    class Azure(_message.Message):
        __slots__ = ("tenant_id", "client_ids")
        class ClientIdsEntry(_message.Message):
            __slots__ = ("key", "value")
            KEY_FIELD_NUMBER: _ClassVar[int]
            VALUE_FIELD_NUMBER: _ClassVar[int]
            key: str
            value: str
            def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
        TENANT_ID_FIELD_NUMBER: _ClassVar[int]
        CLIENT_IDS_FIELD_NUMBER: _ClassVar[int]
        tenant_id: str
        client_ids: _containers.ScalarMap[str, str]
        def __init__(self, tenant_id: _Optional[str] = ..., client_ids: _Optional[_Mapping[str, str]] = ...) -> None: ...
    GROUP_FIELD_NUMBER: _ClassVar[int]
    AMAZON_FIELD_NUMBER: _ClassVar[int]
    GOOGLE_FIELD_NUMBER: _ClassVar[int]
    CHAINGUARD_FIELD_NUMBER: _ClassVar[int]
    AZURE_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    GITHUB_FIELD_NUMBER: _ClassVar[int]
    group: str
    amazon: AccountAssociations.Amazon
    google: AccountAssociations.Google
    chainguard: AccountAssociations.Chainguard
    azure: AccountAssociations.Azure
    name: str
    description: str
    github: AccountAssociations.GitHub
    def __init__(self, group: _Optional[str] = ..., amazon: _Optional[_Union[AccountAssociations.Amazon, _Mapping]] = ..., google: _Optional[_Union[AccountAssociations.Google, _Mapping]] = ..., chainguard: _Optional[_Union[AccountAssociations.Chainguard, _Mapping]] = ..., azure: _Optional[_Union[AccountAssociations.Azure, _Mapping]] = ..., name: _Optional[str] = ..., description: _Optional[str] = ..., github: _Optional[_Union[AccountAssociations.GitHub, _Mapping]] = ...) -> None: ...

class AccountAssociationsList(_message.Message):
    __slots__ = ("items",)
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[AccountAssociations]
    def __init__(self, items: _Optional[_Iterable[_Union[AccountAssociations, _Mapping]]] = ...) -> None: ...

class AccountAssociationsFilter(_message.Message):
    __slots__ = ("group", "name")
    GROUP_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    group: str
    name: str
    def __init__(self, group: _Optional[str] = ..., name: _Optional[str] = ...) -> None: ...

class DeleteAccountAssociationsRequest(_message.Message):
    __slots__ = ("group",)
    GROUP_FIELD_NUMBER: _ClassVar[int]
    group: str
    def __init__(self, group: _Optional[str] = ...) -> None: ...

class AccountAssociationsStatus(_message.Message):
    __slots__ = ("ready", "reason", "message")
    class State(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        UNKNOWN: _ClassVar[AccountAssociationsStatus.State]
        Ready: _ClassVar[AccountAssociationsStatus.State]
        NotReady: _ClassVar[AccountAssociationsStatus.State]
    UNKNOWN: AccountAssociationsStatus.State
    Ready: AccountAssociationsStatus.State
    NotReady: AccountAssociationsStatus.State
    READY_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    ready: AccountAssociationsStatus.State
    reason: str
    message: str
    def __init__(self, ready: _Optional[_Union[AccountAssociationsStatus.State, str]] = ..., reason: _Optional[str] = ..., message: _Optional[str] = ...) -> None: ...

class AccountAssociationsCheckRequest(_message.Message):
    __slots__ = ("group", "account_type")
    class AccountType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        UNKNOWN: _ClassVar[AccountAssociationsCheckRequest.AccountType]
        GOOGLE: _ClassVar[AccountAssociationsCheckRequest.AccountType]
        AMAZON: _ClassVar[AccountAssociationsCheckRequest.AccountType]
        AZURE: _ClassVar[AccountAssociationsCheckRequest.AccountType]
    UNKNOWN: AccountAssociationsCheckRequest.AccountType
    GOOGLE: AccountAssociationsCheckRequest.AccountType
    AMAZON: AccountAssociationsCheckRequest.AccountType
    AZURE: AccountAssociationsCheckRequest.AccountType
    GROUP_FIELD_NUMBER: _ClassVar[int]
    ACCOUNT_TYPE_FIELD_NUMBER: _ClassVar[int]
    group: str
    account_type: AccountAssociationsCheckRequest.AccountType
    def __init__(self, group: _Optional[str] = ..., account_type: _Optional[_Union[AccountAssociationsCheckRequest.AccountType, str]] = ...) -> None: ...
