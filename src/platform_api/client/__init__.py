"""The Python client of the Platform Management API v2 (docs/python-client.md), and the login helpers
(`login`: browser and headless sign-in, which import nothing of the server).

from platform_api.client import Client, Repo
client = Client("http://localhost:8080")
repo = client.registry.create_repo(org, Repo(name="nginx"))
"""

from platform_api.client.auth import Credentials
from platform_api.client.client import Area, Client
from platform_api.client.errors import (
    AlreadyExists,
    ApiError,
    DeadlineExceeded,
    FailedPrecondition,
    FieldViolation,
    Internal,
    InvalidArgument,
    NotFound,
    PermissionDenied,
    ResourceExhausted,
    Unauthenticated,
    Unavailable,
    Unimplemented,
)
from platform_api.client.pages import Pages
from platform_api.gen.records.common import UIDPFilter
from platform_api.gen.records.events_v2 import Subscription
from platform_api.gen.records.iam_v2 import (
    ExternalGroupRoleMapping,
    Group,
    GroupInvite,
    Identity,
    IdentityProvider,
    Role,
    RoleBinding,
)
from platform_api.gen.records.registry_v2 import Repo, Tag

__all__ = [
    "AlreadyExists",
    "ApiError",
    "Area",
    "Client",
    "Credentials",
    "DeadlineExceeded",
    "ExternalGroupRoleMapping",
    "FailedPrecondition",
    "FieldViolation",
    "Group",
    "GroupInvite",
    "Identity",
    "IdentityProvider",
    "Internal",
    "InvalidArgument",
    "NotFound",
    "Pages",
    "PermissionDenied",
    "Repo",
    "ResourceExhausted",
    "Role",
    "RoleBinding",
    "Subscription",
    "Tag",
    "UIDPFilter",
    "Unauthenticated",
    "Unavailable",
    "Unimplemented",
]
