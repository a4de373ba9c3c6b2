import datetime

from platform_api.gen.chainguard.platform.common import uidp_pb2 as _uidp_pb2
from google.api import annotations_pb2 as _annotations_pb2
from google.protobuf import duration_pb2 as _duration_pb2
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

class IdentityProvider(_message.Message):
    __slots__ = ("id", "name", "description", "default_role", "oidc", "scim")
    class OIDC(_message.Message):
        __slots__ = ("issuer", "client_id", "client_secret", "additional_scopes", "groups_claim", "correlation_rule", "pkce_enabled")
        class CorrelationRule(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
            __slots__ = ()
            CORRELATION_RULE_UNSPECIFIED: _ClassVar[IdentityProvider.OIDC.CorrelationRule]
            CORRELATION_RULE_SUB_EQUALS_EXTERNAL_ID: _ClassVar[IdentityProvider.OIDC.CorrelationRule]
            CORRELATION_RULE_OID_EQUALS_EXTERNAL_ID: _ClassVar[IdentityProvider.OIDC.CorrelationRule]
        CORRELATION_RULE_UNSPECIFIED: IdentityProvider.OIDC.CorrelationRule
        CORRELATION_RULE_SUB_EQUALS_EXTERNAL_ID: IdentityProvider.OIDC.CorrelationRule
        CORRELATION_RULE_OID_EQUALS_EXTERNAL_ID: IdentityProvider.OIDC.CorrelationRule
        ISSUER_FIELD_NUMBER: _ClassVar[int]
        CLIENT_ID_FIELD_NUMBER: _ClassVar[int]
        CLIENT_SECRET_FIELD_NUMBER: _ClassVar[int]
        ADDITIONAL_SCOPES_FIELD_NUMBER: _ClassVar[int]
        GROUPS_CLAIM_FIELD_NUMBER: _ClassVar[int]
        CORRELATION_RULE_FIELD_NUMBER: _ClassVar[int]
        PKCE_ENABLED_FIELD_NUMBER: _ClassVar[int]
        issuer: str
        client_id: str
        client_secret: str
        additional_scopes: _containers.RepeatedScalarFieldContainer[str]
        groups_claim: str
        correlation_rule: IdentityProvider.OIDC.CorrelationRule
        pkce_enabled: bool
        def __init__(self, issuer: _Optional[str] = ..., client_id: _Optional[str] = ..., client_secret: _Optional[str] = ..., additional_scopes: _Optional[_Iterable[str]] = ..., groups_claim: _Optional[str] = ..., correlation_rule: _Optional[_Union[IdentityProvider.OIDC.CorrelationRule, str]] = ..., pkce_enabled: _Optional[bool] = ...) -> None: ...
    class SCIM(_message.Message):
        __slots__ = ("enabled", "endpoint_url", "token_expire_time", "previous_token_expire_time", "credential_state", "etag")
        class CredentialState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
            __slots__ = ()
            CREDENTIAL_STATE_UNSPECIFIED: _ClassVar[IdentityProvider.SCIM.CredentialState]
            CREDENTIAL_STATE_NOT_ISSUED: _ClassVar[IdentityProvider.SCIM.CredentialState]
            CREDENTIAL_STATE_LIVE: _ClassVar[IdentityProvider.SCIM.CredentialState]
            CREDENTIAL_STATE_EXPIRED: _ClassVar[IdentityProvider.SCIM.CredentialState]
            CREDENTIAL_STATE_REVOKED: _ClassVar[IdentityProvider.SCIM.CredentialState]
            CREDENTIAL_STATE_ROTATING: _ClassVar[IdentityProvider.SCIM.CredentialState]
        CREDENTIAL_STATE_UNSPECIFIED: IdentityProvider.SCIM.CredentialState
        CREDENTIAL_STATE_NOT_ISSUED: IdentityProvider.SCIM.CredentialState
        CREDENTIAL_STATE_LIVE: IdentityProvider.SCIM.CredentialState
        CREDENTIAL_STATE_EXPIRED: IdentityProvider.SCIM.CredentialState
        CREDENTIAL_STATE_REVOKED: IdentityProvider.SCIM.CredentialState
        CREDENTIAL_STATE_ROTATING: IdentityProvider.SCIM.CredentialState
        ENABLED_FIELD_NUMBER: _ClassVar[int]
        ENDPOINT_URL_FIELD_NUMBER: _ClassVar[int]
        TOKEN_EXPIRE_TIME_FIELD_NUMBER: _ClassVar[int]
        PREVIOUS_TOKEN_EXPIRE_TIME_FIELD_NUMBER: _ClassVar[int]
        CREDENTIAL_STATE_FIELD_NUMBER: _ClassVar[int]
        ETAG_FIELD_NUMBER: _ClassVar[int]
        enabled: bool
        endpoint_url: str
        token_expire_time: _timestamp_pb2.Timestamp
        previous_token_expire_time: _timestamp_pb2.Timestamp
        credential_state: IdentityProvider.SCIM.CredentialState
        etag: str
        def __init__(self, enabled: _Optional[bool] = ..., endpoint_url: _Optional[str] = ..., token_expire_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., previous_token_expire_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., credential_state: _Optional[_Union[IdentityProvider.SCIM.CredentialState, str]] = ..., etag: _Optional[str] = ...) -> None: ...
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_ROLE_FIELD_NUMBER: _ClassVar[int]
    OIDC_FIELD_NUMBER: _ClassVar[int]
    SCIM_FIELD_NUMBER: _ClassVar[int]
    id: str
    name: str
    description: str
    default_role: str
    oidc: IdentityProvider.OIDC
    scim: IdentityProvider.SCIM
    def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ..., description: _Optional[str] = ..., default_role: _Optional[str] = ..., oidc: _Optional[_Union[IdentityProvider.OIDC, _Mapping]] = ..., scim: _Optional[_Union[IdentityProvider.SCIM, _Mapping]] = ...) -> None: ...

class CreateIdentityProviderRequest(_message.Message):
    __slots__ = ("parent_id", "identity_provider")
    PARENT_ID_FIELD_NUMBER: _ClassVar[int]
    IDENTITY_PROVIDER_FIELD_NUMBER: _ClassVar[int]
    parent_id: str
    identity_provider: IdentityProvider
    def __init__(self, parent_id: _Optional[str] = ..., identity_provider: _Optional[_Union[IdentityProvider, _Mapping]] = ...) -> None: ...

class DeleteIdentityProviderRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class IdentityProviderFilter(_message.Message):
    __slots__ = ("id", "name", "uidp")
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    UIDP_FIELD_NUMBER: _ClassVar[int]
    id: str
    name: str
    uidp: _uidp_pb2.UIDPFilter
    def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ..., uidp: _Optional[_Union[_uidp_pb2.UIDPFilter, _Mapping]] = ...) -> None: ...

class IdentityProviderList(_message.Message):
    __slots__ = ("items",)
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[IdentityProvider]
    def __init__(self, items: _Optional[_Iterable[_Union[IdentityProvider, _Mapping]]] = ...) -> None: ...

class GenerateScimTokenRequest(_message.Message):
    __slots__ = ("identity_provider_id", "expire_time", "never_expires")
    IDENTITY_PROVIDER_ID_FIELD_NUMBER: _ClassVar[int]
    EXPIRE_TIME_FIELD_NUMBER: _ClassVar[int]
    NEVER_EXPIRES_FIELD_NUMBER: _ClassVar[int]
    identity_provider_id: str
    expire_time: _timestamp_pb2.Timestamp
    never_expires: bool
    def __init__(self, identity_provider_id: _Optional[str] = ..., expire_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., never_expires: _Optional[bool] = ...) -> None: ...

class GenerateScimTokenResponse(_message.Message):
    __slots__ = ("token", "endpoint_url", "expire_time", "identity_provider_id", "etag")
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    ENDPOINT_URL_FIELD_NUMBER: _ClassVar[int]
    EXPIRE_TIME_FIELD_NUMBER: _ClassVar[int]
    IDENTITY_PROVIDER_ID_FIELD_NUMBER: _ClassVar[int]
    ETAG_FIELD_NUMBER: _ClassVar[int]
    token: str
    endpoint_url: str
    expire_time: _timestamp_pb2.Timestamp
    identity_provider_id: str
    etag: str
    def __init__(self, token: _Optional[str] = ..., endpoint_url: _Optional[str] = ..., expire_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., identity_provider_id: _Optional[str] = ..., etag: _Optional[str] = ...) -> None: ...

class RegenerateScimTokenRequest(_message.Message):
    __slots__ = ("identity_provider_id", "overlap", "expire_time", "etag", "never_expires")
    IDENTITY_PROVIDER_ID_FIELD_NUMBER: _ClassVar[int]
    OVERLAP_FIELD_NUMBER: _ClassVar[int]
    EXPIRE_TIME_FIELD_NUMBER: _ClassVar[int]
    ETAG_FIELD_NUMBER: _ClassVar[int]
    NEVER_EXPIRES_FIELD_NUMBER: _ClassVar[int]
    identity_provider_id: str
    overlap: _duration_pb2.Duration
    expire_time: _timestamp_pb2.Timestamp
    etag: str
    never_expires: bool
    def __init__(self, identity_provider_id: _Optional[str] = ..., overlap: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., expire_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., etag: _Optional[str] = ..., never_expires: _Optional[bool] = ...) -> None: ...

class RegenerateScimTokenResponse(_message.Message):
    __slots__ = ("token", "endpoint_url", "expire_time", "identity_provider_id", "etag", "previous_token_expire_time", "requested_overlap")
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    ENDPOINT_URL_FIELD_NUMBER: _ClassVar[int]
    EXPIRE_TIME_FIELD_NUMBER: _ClassVar[int]
    IDENTITY_PROVIDER_ID_FIELD_NUMBER: _ClassVar[int]
    ETAG_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_TOKEN_EXPIRE_TIME_FIELD_NUMBER: _ClassVar[int]
    REQUESTED_OVERLAP_FIELD_NUMBER: _ClassVar[int]
    token: str
    endpoint_url: str
    expire_time: _timestamp_pb2.Timestamp
    identity_provider_id: str
    etag: str
    previous_token_expire_time: _timestamp_pb2.Timestamp
    requested_overlap: _duration_pb2.Duration
    def __init__(self, token: _Optional[str] = ..., endpoint_url: _Optional[str] = ..., expire_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., identity_provider_id: _Optional[str] = ..., etag: _Optional[str] = ..., previous_token_expire_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., requested_overlap: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ...) -> None: ...

class RevokeScimTokenRequest(_message.Message):
    __slots__ = ("identity_provider_id",)
    IDENTITY_PROVIDER_ID_FIELD_NUMBER: _ClassVar[int]
    identity_provider_id: str
    def __init__(self, identity_provider_id: _Optional[str] = ...) -> None: ...

class RevokeScimTokenResponse(_message.Message):
    __slots__ = ("identity_provider_id", "etag", "enabled", "revoke_time")
    IDENTITY_PROVIDER_ID_FIELD_NUMBER: _ClassVar[int]
    ETAG_FIELD_NUMBER: _ClassVar[int]
    ENABLED_FIELD_NUMBER: _ClassVar[int]
    REVOKE_TIME_FIELD_NUMBER: _ClassVar[int]
    identity_provider_id: str
    etag: str
    enabled: bool
    revoke_time: _timestamp_pb2.Timestamp
    def __init__(self, identity_provider_id: _Optional[str] = ..., etag: _Optional[str] = ..., enabled: _Optional[bool] = ..., revoke_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class SetScimEnabledRequest(_message.Message):
    __slots__ = ("identity_provider_id", "enabled", "etag")
    IDENTITY_PROVIDER_ID_FIELD_NUMBER: _ClassVar[int]
    ENABLED_FIELD_NUMBER: _ClassVar[int]
    ETAG_FIELD_NUMBER: _ClassVar[int]
    identity_provider_id: str
    enabled: bool
    etag: str
    def __init__(self, identity_provider_id: _Optional[str] = ..., enabled: _Optional[bool] = ..., etag: _Optional[str] = ...) -> None: ...

class SetScimEnabledResponse(_message.Message):
    __slots__ = ("identity_provider_id", "enabled", "etag")
    IDENTITY_PROVIDER_ID_FIELD_NUMBER: _ClassVar[int]
    ENABLED_FIELD_NUMBER: _ClassVar[int]
    ETAG_FIELD_NUMBER: _ClassVar[int]
    identity_provider_id: str
    enabled: bool
    etag: str
    def __init__(self, identity_provider_id: _Optional[str] = ..., enabled: _Optional[bool] = ..., etag: _Optional[str] = ...) -> None: ...
