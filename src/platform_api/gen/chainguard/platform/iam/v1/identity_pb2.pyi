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

class ServicePrincipal(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    UNKNOWN: _ClassVar[ServicePrincipal]
    COSIGNED: _ClassVar[ServicePrincipal]
    INGESTER: _ClassVar[ServicePrincipal]
    CATALOG_SYNCER: _ClassVar[ServicePrincipal]
    APKO_BUILDER: _ClassVar[ServicePrincipal]
    ENTITLEMENT_SYNCER: _ClassVar[ServicePrincipal]
    TENANT_SCANNER: _ClassVar[ServicePrincipal]
    SEDIMENTOLOGY: _ClassVar[ServicePrincipal]
    SKILLUP: _ClassVar[ServicePrincipal]
    MATERIALIZER: _ClassVar[ServicePrincipal]
    MICROFLOW: _ClassVar[ServicePrincipal]
    GUARDENER: _ClassVar[ServicePrincipal]
    MICROVM: _ClassVar[ServicePrincipal]
    SKILLS: _ClassVar[ServicePrincipal]
UNKNOWN: ServicePrincipal
COSIGNED: ServicePrincipal
INGESTER: ServicePrincipal
CATALOG_SYNCER: ServicePrincipal
APKO_BUILDER: ServicePrincipal
ENTITLEMENT_SYNCER: ServicePrincipal
TENANT_SCANNER: ServicePrincipal
SEDIMENTOLOGY: ServicePrincipal
SKILLUP: ServicePrincipal
MATERIALIZER: ServicePrincipal
MICROFLOW: ServicePrincipal
GUARDENER: ServicePrincipal
MICROVM: ServicePrincipal
SKILLS: ServicePrincipal

class Identity(_message.Message):
    __slots__ = ("id", "name", "description", "created_at", "updated_at", "last_seen", "claim_match", "static", "service_principal", "aws_identity")
    class ClaimMatch(_message.Message):
        __slots__ = ("issuer", "issuer_pattern", "subject", "subject_pattern", "audience", "audience_pattern", "claims", "claim_patterns")
        class ClaimsEntry(_message.Message):
            __slots__ = ("key", "value")
            KEY_FIELD_NUMBER: _ClassVar[int]
            VALUE_FIELD_NUMBER: _ClassVar[int]
            key: str
            value: str
            def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
        class ClaimPatternsEntry(_message.Message):
            __slots__ = ("key", "value")
            KEY_FIELD_NUMBER: _ClassVar[int]
            VALUE_FIELD_NUMBER: _ClassVar[int]
            key: str
            value: str
            def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
        ISSUER_FIELD_NUMBER: _ClassVar[int]
        ISSUER_PATTERN_FIELD_NUMBER: _ClassVar[int]
        SUBJECT_FIELD_NUMBER: _ClassVar[int]
        SUBJECT_PATTERN_FIELD_NUMBER: _ClassVar[int]
        AUDIENCE_FIELD_NUMBER: _ClassVar[int]
        AUDIENCE_PATTERN_FIELD_NUMBER: _ClassVar[int]
        CLAIMS_FIELD_NUMBER: _ClassVar[int]
        CLAIM_PATTERNS_FIELD_NUMBER: _ClassVar[int]
        issuer: str
        issuer_pattern: str
        subject: str
        subject_pattern: str
        audience: str
        audience_pattern: str
        claims: _containers.ScalarMap[str, str]
        claim_patterns: _containers.ScalarMap[str, str]
        def __init__(self, issuer: _Optional[str] = ..., issuer_pattern: _Optional[str] = ..., subject: _Optional[str] = ..., subject_pattern: _Optional[str] = ..., audience: _Optional[str] = ..., audience_pattern: _Optional[str] = ..., claims: _Optional[_Mapping[str, str]] = ..., claim_patterns: _Optional[_Mapping[str, str]] = ...) -> None: ...
    class StaticKeys(_message.Message):
        __slots__ = ("issuer", "subject", "issuer_keys", "expiration", "audiences")
        ISSUER_FIELD_NUMBER: _ClassVar[int]
        SUBJECT_FIELD_NUMBER: _ClassVar[int]
        ISSUER_KEYS_FIELD_NUMBER: _ClassVar[int]
        EXPIRATION_FIELD_NUMBER: _ClassVar[int]
        AUDIENCES_FIELD_NUMBER: _ClassVar[int]
        issuer: str
        subject: str
        issuer_keys: str
        expiration: _timestamp_pb2.Timestamp
        audiences: _containers.RepeatedScalarFieldContainer[str]
        def __init__(self, issuer: _Optional[str] = ..., subject: _Optional[str] = ..., issuer_keys: _Optional[str] = ..., expiration: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., audiences: _Optional[_Iterable[str]] = ...) -> None: ...
    class AWSIdentity(_message.Message):
        __slots__ = ("aws_account", "arn", "arn_pattern", "user_id", "user_id_pattern")
        AWS_ACCOUNT_FIELD_NUMBER: _ClassVar[int]
        ARN_FIELD_NUMBER: _ClassVar[int]
        ARN_PATTERN_FIELD_NUMBER: _ClassVar[int]
        USER_ID_FIELD_NUMBER: _ClassVar[int]
        USER_ID_PATTERN_FIELD_NUMBER: _ClassVar[int]
        aws_account: str
        arn: str
        arn_pattern: str
        user_id: str
        user_id_pattern: str
        def __init__(self, aws_account: _Optional[str] = ..., arn: _Optional[str] = ..., arn_pattern: _Optional[str] = ..., user_id: _Optional[str] = ..., user_id_pattern: _Optional[str] = ...) -> None: ...
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    LAST_SEEN_FIELD_NUMBER: _ClassVar[int]
    CLAIM_MATCH_FIELD_NUMBER: _ClassVar[int]
    STATIC_FIELD_NUMBER: _ClassVar[int]
    SERVICE_PRINCIPAL_FIELD_NUMBER: _ClassVar[int]
    AWS_IDENTITY_FIELD_NUMBER: _ClassVar[int]
    id: str
    name: str
    description: str
    created_at: _timestamp_pb2.Timestamp
    updated_at: _timestamp_pb2.Timestamp
    last_seen: _timestamp_pb2.Timestamp
    claim_match: Identity.ClaimMatch
    static: Identity.StaticKeys
    service_principal: ServicePrincipal
    aws_identity: Identity.AWSIdentity
    def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ..., description: _Optional[str] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., updated_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., last_seen: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., claim_match: _Optional[_Union[Identity.ClaimMatch, _Mapping]] = ..., static: _Optional[_Union[Identity.StaticKeys, _Mapping]] = ..., service_principal: _Optional[_Union[ServicePrincipal, str]] = ..., aws_identity: _Optional[_Union[Identity.AWSIdentity, _Mapping]] = ...) -> None: ...

class CreateIdentityRequest(_message.Message):
    __slots__ = ("parent_id", "identity")
    PARENT_ID_FIELD_NUMBER: _ClassVar[int]
    IDENTITY_FIELD_NUMBER: _ClassVar[int]
    parent_id: str
    identity: Identity
    def __init__(self, parent_id: _Optional[str] = ..., identity: _Optional[_Union[Identity, _Mapping]] = ...) -> None: ...

class DeleteIdentityRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class IdentityList(_message.Message):
    __slots__ = ("items",)
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[Identity]
    def __init__(self, items: _Optional[_Iterable[_Union[Identity, _Mapping]]] = ...) -> None: ...

class IdentityFilter(_message.Message):
    __slots__ = ("uidp", "id")
    UIDP_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    uidp: _uidp_pb2.UIDPFilter
    id: str
    def __init__(self, uidp: _Optional[_Union[_uidp_pb2.UIDPFilter, _Mapping]] = ..., id: _Optional[str] = ...) -> None: ...

class LookupRequest(_message.Message):
    __slots__ = ("issuer", "subject")
    ISSUER_FIELD_NUMBER: _ClassVar[int]
    SUBJECT_FIELD_NUMBER: _ClassVar[int]
    issuer: str
    subject: str
    def __init__(self, issuer: _Optional[str] = ..., subject: _Optional[str] = ...) -> None: ...
