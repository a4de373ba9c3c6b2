import datetime

from platform_api.gen.chainguard.platform.common import uidp_pb2 as _uidp_pb2
from google.api import annotations_pb2 as _annotations_pb2
from google.protobuf import empty_pb2 as _empty_pb2
from google.protobuf import field_mask_pb2 as _field_mask_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from platform_api.gen.platformapi import annotations_pb2 as _annotations_pb2_1
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class AccountProviderType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ACCOUNT_PROVIDER_TYPE_UNSPECIFIED: _ClassVar[AccountProviderType]
    ACCOUNT_PROVIDER_TYPE_GOOGLE: _ClassVar[AccountProviderType]
    ACCOUNT_PROVIDER_TYPE_AMAZON: _ClassVar[AccountProviderType]
    ACCOUNT_PROVIDER_TYPE_AZURE: _ClassVar[AccountProviderType]

class CheckStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CHECK_STATUS_UNSPECIFIED: _ClassVar[CheckStatus]
    CHECK_STATUS_READY: _ClassVar[CheckStatus]
    CHECK_STATUS_NOT_READY: _ClassVar[CheckStatus]
ACCOUNT_PROVIDER_TYPE_UNSPECIFIED: AccountProviderType
ACCOUNT_PROVIDER_TYPE_GOOGLE: AccountProviderType
ACCOUNT_PROVIDER_TYPE_AMAZON: AccountProviderType
ACCOUNT_PROVIDER_TYPE_AZURE: AccountProviderType
CHECK_STATUS_UNSPECIFIED: CheckStatus
CHECK_STATUS_READY: CheckStatus
CHECK_STATUS_NOT_READY: CheckStatus

class AccountAssociation(_message.Message):
    __slots__ = ("uid", "name", "description", "amazon", "google", "azure", "create_time", "update_time", "github")
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
            value: AccountAssociation.GitHubAppInstallations
            def __init__(self, key: _Optional[int] = ..., value: _Optional[_Union[AccountAssociation.GitHubAppInstallations, _Mapping]] = ...) -> None: ...
        APP_INSTALLATIONS_FIELD_NUMBER: _ClassVar[int]
        app_installations: _containers.MessageMap[int, AccountAssociation.GitHubAppInstallations]
        def __init__(self, app_installations: _Optional[_Mapping[int, AccountAssociation.GitHubAppInstallations]] = ...) -> None: ...
    class GitHubAppInstallations(_message.Message):
        __slots__ = ("installations",)
        INSTALLATIONS_FIELD_NUMBER: _ClassVar[int]
        installations: _containers.RepeatedCompositeFieldContainer[AccountAssociation.GitHubInstallation]
        def __init__(self, installations: _Optional[_Iterable[_Union[AccountAssociation.GitHubInstallation, _Mapping]]] = ...) -> None: ...
    class GitHubInstallation(_message.Message):
        __slots__ = ("installation_id", "name")
        INSTALLATION_ID_FIELD_NUMBER: _ClassVar[int]
        NAME_FIELD_NUMBER: _ClassVar[int]
        installation_id: int
        name: str
        def __init__(self, installation_id: _Optional[int] = ..., name: _Optional[str] = ...) -> None: ...
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
    UID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    AMAZON_FIELD_NUMBER: _ClassVar[int]
    GOOGLE_FIELD_NUMBER: _ClassVar[int]
    AZURE_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    UPDATE_TIME_FIELD_NUMBER: _ClassVar[int]
    GITHUB_FIELD_NUMBER: _ClassVar[int]
    uid: str
    name: str
    description: str
    amazon: AccountAssociation.Amazon
    google: AccountAssociation.Google
    azure: AccountAssociation.Azure
    create_time: _timestamp_pb2.Timestamp
    update_time: _timestamp_pb2.Timestamp
    github: AccountAssociation.GitHub
    def __init__(self, uid: _Optional[str] = ..., name: _Optional[str] = ..., description: _Optional[str] = ..., amazon: _Optional[_Union[AccountAssociation.Amazon, _Mapping]] = ..., google: _Optional[_Union[AccountAssociation.Google, _Mapping]] = ..., azure: _Optional[_Union[AccountAssociation.Azure, _Mapping]] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., update_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., github: _Optional[_Union[AccountAssociation.GitHub, _Mapping]] = ...) -> None: ...

class GetAccountAssociationRequest(_message.Message):
    __slots__ = ("uid",)
    UID_FIELD_NUMBER: _ClassVar[int]
    uid: str
    def __init__(self, uid: _Optional[str] = ...) -> None: ...

class ListAccountAssociationsRequest(_message.Message):
    __slots__ = ("uidp", "name", "page_size", "page_token", "order_by", "skip")
    UIDP_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    ORDER_BY_FIELD_NUMBER: _ClassVar[int]
    SKIP_FIELD_NUMBER: _ClassVar[int]
    uidp: _uidp_pb2.UIDPFilter
    name: str
    page_size: int
    page_token: str
    order_by: str
    skip: int
    def __init__(self, uidp: _Optional[_Union[_uidp_pb2.UIDPFilter, _Mapping]] = ..., name: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., order_by: _Optional[str] = ..., skip: _Optional[int] = ...) -> None: ...

class CreateAccountAssociationRequest(_message.Message):
    __slots__ = ("parent", "account_association")
    PARENT_FIELD_NUMBER: _ClassVar[int]
    ACCOUNT_ASSOCIATION_FIELD_NUMBER: _ClassVar[int]
    parent: str
    account_association: AccountAssociation
    def __init__(self, parent: _Optional[str] = ..., account_association: _Optional[_Union[AccountAssociation, _Mapping]] = ...) -> None: ...

class DeleteAccountAssociationRequest(_message.Message):
    __slots__ = ("uid",)
    UID_FIELD_NUMBER: _ClassVar[int]
    uid: str
    def __init__(self, uid: _Optional[str] = ...) -> None: ...

class ListAccountAssociationsResponse(_message.Message):
    __slots__ = ("account_associations", "next_page_token", "total_count", "skipped")
    ACCOUNT_ASSOCIATIONS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    TOTAL_COUNT_FIELD_NUMBER: _ClassVar[int]
    SKIPPED_FIELD_NUMBER: _ClassVar[int]
    account_associations: _containers.RepeatedCompositeFieldContainer[AccountAssociation]
    next_page_token: str
    total_count: int
    skipped: int
    def __init__(self, account_associations: _Optional[_Iterable[_Union[AccountAssociation, _Mapping]]] = ..., next_page_token: _Optional[str] = ..., total_count: _Optional[int] = ..., skipped: _Optional[int] = ...) -> None: ...

class UpdateAccountAssociationRequest(_message.Message):
    __slots__ = ("account_association", "update_mask")
    ACCOUNT_ASSOCIATION_FIELD_NUMBER: _ClassVar[int]
    UPDATE_MASK_FIELD_NUMBER: _ClassVar[int]
    account_association: AccountAssociation
    update_mask: _field_mask_pb2.FieldMask
    def __init__(self, account_association: _Optional[_Union[AccountAssociation, _Mapping]] = ..., update_mask: _Optional[_Union[_field_mask_pb2.FieldMask, _Mapping]] = ...) -> None: ...

class CheckAccountAssociationRequest(_message.Message):
    __slots__ = ("uid", "provider_type")
    UID_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_TYPE_FIELD_NUMBER: _ClassVar[int]
    uid: str
    provider_type: AccountProviderType
    def __init__(self, uid: _Optional[str] = ..., provider_type: _Optional[_Union[AccountProviderType, str]] = ...) -> None: ...

class CheckAccountAssociationResponse(_message.Message):
    __slots__ = ("status", "reason", "message")
    STATUS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    status: CheckStatus
    reason: str
    message: str
    def __init__(self, status: _Optional[_Union[CheckStatus, str]] = ..., reason: _Optional[str] = ..., message: _Optional[str] = ...) -> None: ...
