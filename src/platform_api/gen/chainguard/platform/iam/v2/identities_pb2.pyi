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

class RelationshipType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RELATIONSHIP_TYPE_UNSPECIFIED: _ClassVar[RelationshipType]
    RELATIONSHIP_TYPE_CLAIM_MATCH: _ClassVar[RelationshipType]
    RELATIONSHIP_TYPE_STATIC: _ClassVar[RelationshipType]
    RELATIONSHIP_TYPE_AWS_IDENTITY: _ClassVar[RelationshipType]
    RELATIONSHIP_TYPE_SERVICE_PRINCIPAL: _ClassVar[RelationshipType]
RELATIONSHIP_TYPE_UNSPECIFIED: RelationshipType
RELATIONSHIP_TYPE_CLAIM_MATCH: RelationshipType
RELATIONSHIP_TYPE_STATIC: RelationshipType
RELATIONSHIP_TYPE_AWS_IDENTITY: RelationshipType
RELATIONSHIP_TYPE_SERVICE_PRINCIPAL: RelationshipType

class Identity(_message.Message):
    __slots__ = ("uid", "name", "description", "email", "email_unverified", "company", "last_seen_time", "create_time", "update_time", "claim_match", "static_keys")
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
        __slots__ = ("issuer", "subject", "issuer_keys", "expiration_time", "audiences")
        ISSUER_FIELD_NUMBER: _ClassVar[int]
        SUBJECT_FIELD_NUMBER: _ClassVar[int]
        ISSUER_KEYS_FIELD_NUMBER: _ClassVar[int]
        EXPIRATION_TIME_FIELD_NUMBER: _ClassVar[int]
        AUDIENCES_FIELD_NUMBER: _ClassVar[int]
        issuer: str
        subject: str
        issuer_keys: str
        expiration_time: _timestamp_pb2.Timestamp
        audiences: _containers.RepeatedScalarFieldContainer[str]
        def __init__(self, issuer: _Optional[str] = ..., subject: _Optional[str] = ..., issuer_keys: _Optional[str] = ..., expiration_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., audiences: _Optional[_Iterable[str]] = ...) -> None: ...
    UID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    EMAIL_UNVERIFIED_FIELD_NUMBER: _ClassVar[int]
    COMPANY_FIELD_NUMBER: _ClassVar[int]
    LAST_SEEN_TIME_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    UPDATE_TIME_FIELD_NUMBER: _ClassVar[int]
    CLAIM_MATCH_FIELD_NUMBER: _ClassVar[int]
    STATIC_KEYS_FIELD_NUMBER: _ClassVar[int]
    uid: str
    name: str
    description: str
    email: str
    email_unverified: str
    company: str
    last_seen_time: _timestamp_pb2.Timestamp
    create_time: _timestamp_pb2.Timestamp
    update_time: _timestamp_pb2.Timestamp
    claim_match: Identity.ClaimMatch
    static_keys: Identity.StaticKeys
    def __init__(self, uid: _Optional[str] = ..., name: _Optional[str] = ..., description: _Optional[str] = ..., email: _Optional[str] = ..., email_unverified: _Optional[str] = ..., company: _Optional[str] = ..., last_seen_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., create_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., update_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., claim_match: _Optional[_Union[Identity.ClaimMatch, _Mapping]] = ..., static_keys: _Optional[_Union[Identity.StaticKeys, _Mapping]] = ...) -> None: ...

class CreateIdentityRequest(_message.Message):
    __slots__ = ("parent", "identity")
    PARENT_FIELD_NUMBER: _ClassVar[int]
    IDENTITY_FIELD_NUMBER: _ClassVar[int]
    parent: str
    identity: Identity
    def __init__(self, parent: _Optional[str] = ..., identity: _Optional[_Union[Identity, _Mapping]] = ...) -> None: ...

class GetIdentityRequest(_message.Message):
    __slots__ = ("uid",)
    UID_FIELD_NUMBER: _ClassVar[int]
    uid: str
    def __init__(self, uid: _Optional[str] = ...) -> None: ...

class DeleteIdentityRequest(_message.Message):
    __slots__ = ("uid",)
    UID_FIELD_NUMBER: _ClassVar[int]
    uid: str
    def __init__(self, uid: _Optional[str] = ...) -> None: ...

class UpdateIdentityRequest(_message.Message):
    __slots__ = ("identity", "update_mask")
    IDENTITY_FIELD_NUMBER: _ClassVar[int]
    UPDATE_MASK_FIELD_NUMBER: _ClassVar[int]
    identity: Identity
    update_mask: _field_mask_pb2.FieldMask
    def __init__(self, identity: _Optional[_Union[Identity, _Mapping]] = ..., update_mask: _Optional[_Union[_field_mask_pb2.FieldMask, _Mapping]] = ...) -> None: ...

class ListIdentitiesRequest(_message.Message):
    __slots__ = ("uidp", "name", "relationship_type", "page_size", "page_token", "order_by", "skip")
    UIDP_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    RELATIONSHIP_TYPE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    ORDER_BY_FIELD_NUMBER: _ClassVar[int]
    SKIP_FIELD_NUMBER: _ClassVar[int]
    uidp: _uidp_pb2.UIDPFilter
    name: str
    relationship_type: RelationshipType
    page_size: int
    page_token: str
    order_by: str
    skip: int
    def __init__(self, uidp: _Optional[_Union[_uidp_pb2.UIDPFilter, _Mapping]] = ..., name: _Optional[str] = ..., relationship_type: _Optional[_Union[RelationshipType, str]] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., order_by: _Optional[str] = ..., skip: _Optional[int] = ...) -> None: ...

class ListIdentitiesResponse(_message.Message):
    __slots__ = ("identities", "next_page_token", "total_count", "skipped")
    IDENTITIES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    TOTAL_COUNT_FIELD_NUMBER: _ClassVar[int]
    SKIPPED_FIELD_NUMBER: _ClassVar[int]
    identities: _containers.RepeatedCompositeFieldContainer[Identity]
    next_page_token: str
    total_count: int
    skipped: int
    def __init__(self, identities: _Optional[_Iterable[_Union[Identity, _Mapping]]] = ..., next_page_token: _Optional[str] = ..., total_count: _Optional[int] = ..., skipped: _Optional[int] = ...) -> None: ...

class LookupIdentityRequest(_message.Message):
    __slots__ = ("issuer", "subject")
    ISSUER_FIELD_NUMBER: _ClassVar[int]
    SUBJECT_FIELD_NUMBER: _ClassVar[int]
    issuer: str
    subject: str
    def __init__(self, issuer: _Optional[str] = ..., subject: _Optional[str] = ...) -> None: ...

class LookupIdentityResponse(_message.Message):
    __slots__ = ("uid",)
    UID_FIELD_NUMBER: _ClassVar[int]
    uid: str
    def __init__(self, uid: _Optional[str] = ...) -> None: ...

class IdentityMetadata(_message.Message):
    __slots__ = ("uid", "name", "given_name", "family_name", "company", "job_title")
    UID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    GIVEN_NAME_FIELD_NUMBER: _ClassVar[int]
    FAMILY_NAME_FIELD_NUMBER: _ClassVar[int]
    COMPANY_FIELD_NUMBER: _ClassVar[int]
    JOB_TITLE_FIELD_NUMBER: _ClassVar[int]
    uid: str
    name: str
    given_name: str
    family_name: str
    company: str
    job_title: str
    def __init__(self, uid: _Optional[str] = ..., name: _Optional[str] = ..., given_name: _Optional[str] = ..., family_name: _Optional[str] = ..., company: _Optional[str] = ..., job_title: _Optional[str] = ...) -> None: ...

class UpdateIdentityMetadataRequest(_message.Message):
    __slots__ = ("identity_metadata", "update_mask")
    IDENTITY_METADATA_FIELD_NUMBER: _ClassVar[int]
    UPDATE_MASK_FIELD_NUMBER: _ClassVar[int]
    identity_metadata: IdentityMetadata
    update_mask: _field_mask_pb2.FieldMask
    def __init__(self, identity_metadata: _Optional[_Union[IdentityMetadata, _Mapping]] = ..., update_mask: _Optional[_Union[_field_mask_pb2.FieldMask, _Mapping]] = ...) -> None: ...
