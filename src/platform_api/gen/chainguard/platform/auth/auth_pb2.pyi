import datetime

from platform_api.gen.chainguard.platform.iam.v1 import group_pb2 as _group_pb2
from platform_api.gen.chainguard.platform.iam.v1 import role_pb2 as _role_pb2
from google.api import annotations_pb2 as _annotations_pb2
from google.protobuf import empty_pb2 as _empty_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from platform_api.gen.platformapi import annotations_pb2 as _annotations_pb2_1
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class RegistrationRequest(_message.Message):
    __slots__ = ("code", "identity_id")
    CODE_FIELD_NUMBER: _ClassVar[int]
    IDENTITY_ID_FIELD_NUMBER: _ClassVar[int]
    code: str
    identity_id: str
    def __init__(self, code: _Optional[str] = ..., identity_id: _Optional[str] = ...) -> None: ...

class Session(_message.Message):
    __slots__ = ("identity", "group")
    IDENTITY_FIELD_NUMBER: _ClassVar[int]
    GROUP_FIELD_NUMBER: _ClassVar[int]
    identity: str
    group: str
    def __init__(self, identity: _Optional[str] = ..., group: _Optional[str] = ...) -> None: ...

class WhoAmI(_message.Message):
    __slots__ = ("issuer", "subject", "audience", "expiry", "issued_at", "capabilities", "email", "profile")
    class Capability(_message.Message):
        __slots__ = ("group", "role", "capabilities")
        GROUP_FIELD_NUMBER: _ClassVar[int]
        ROLE_FIELD_NUMBER: _ClassVar[int]
        CAPABILITIES_FIELD_NUMBER: _ClassVar[int]
        group: _group_pb2.Group
        role: _role_pb2.Role
        capabilities: _containers.RepeatedScalarFieldContainer[str]
        def __init__(self, group: _Optional[_Union[_group_pb2.Group, _Mapping]] = ..., role: _Optional[_Union[_role_pb2.Role, _Mapping]] = ..., capabilities: _Optional[_Iterable[str]] = ...) -> None: ...
    ISSUER_FIELD_NUMBER: _ClassVar[int]
    SUBJECT_FIELD_NUMBER: _ClassVar[int]
    AUDIENCE_FIELD_NUMBER: _ClassVar[int]
    EXPIRY_FIELD_NUMBER: _ClassVar[int]
    ISSUED_AT_FIELD_NUMBER: _ClassVar[int]
    CAPABILITIES_FIELD_NUMBER: _ClassVar[int]
    EMAIL_FIELD_NUMBER: _ClassVar[int]
    PROFILE_FIELD_NUMBER: _ClassVar[int]
    issuer: str
    subject: str
    audience: _containers.RepeatedScalarFieldContainer[str]
    expiry: _timestamp_pb2.Timestamp
    issued_at: _timestamp_pb2.Timestamp
    capabilities: _containers.RepeatedCompositeFieldContainer[WhoAmI.Capability]
    email: str
    profile: Profile
    def __init__(self, issuer: _Optional[str] = ..., subject: _Optional[str] = ..., audience: _Optional[_Iterable[str]] = ..., expiry: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., issued_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., capabilities: _Optional[_Iterable[_Union[WhoAmI.Capability, _Mapping]]] = ..., email: _Optional[str] = ..., profile: _Optional[_Union[Profile, _Mapping]] = ...) -> None: ...

class Profile(_message.Message):
    __slots__ = ("name", "picture", "given_name", "family_name")
    NAME_FIELD_NUMBER: _ClassVar[int]
    PICTURE_FIELD_NUMBER: _ClassVar[int]
    GIVEN_NAME_FIELD_NUMBER: _ClassVar[int]
    FAMILY_NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    picture: str
    given_name: str
    family_name: str
    def __init__(self, name: _Optional[str] = ..., picture: _Optional[str] = ..., given_name: _Optional[str] = ..., family_name: _Optional[str] = ...) -> None: ...

class GetHeadlessSessionRequest(_message.Message):
    __slots__ = ("code", "signature", "timestamp", "confirmation")
    CODE_FIELD_NUMBER: _ClassVar[int]
    SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    CONFIRMATION_FIELD_NUMBER: _ClassVar[int]
    code: str
    signature: str
    timestamp: int
    confirmation: str
    def __init__(self, code: _Optional[str] = ..., signature: _Optional[str] = ..., timestamp: _Optional[int] = ..., confirmation: _Optional[str] = ...) -> None: ...

class HeadlessSession(_message.Message):
    __slots__ = ("ecdh_public_key", "encrypted_idtoken")
    ECDH_PUBLIC_KEY_FIELD_NUMBER: _ClassVar[int]
    ENCRYPTED_IDTOKEN_FIELD_NUMBER: _ClassVar[int]
    ecdh_public_key: bytes
    encrypted_idtoken: bytes
    def __init__(self, ecdh_public_key: _Optional[bytes] = ..., encrypted_idtoken: _Optional[bytes] = ...) -> None: ...
