"""IAM: groups, identities, roles, role bindings, identity providers, account associations, invites, external
group mappings, terms, and who the caller is (`whoami`). Signing in (the token exchange, browser and headless
login, joining by e-mail domain, bootstrap) is `platform_api.signin`'s, above this package.

What it contributes (collected by `app`): its RPC implementations; what the authorizer reads of its tables
(`GRANTS`); and what goes with, or keeps back, the deletion of a group, a role or an identity (`cascades`).
"""

from platform_api.auth.authz import GrantSource
from platform_api.iam import (
    account_association_check,
    account_associations,
    external_group_role_mappings,
    group_invites,
    groups,
    identities,
    identity_providers,
    queries,
    role_bindings,
    roles,
    terms,
    whoami,
)
from platform_api.iam.v1 import account_associations as v1_account_associations
from platform_api.iam.v1 import external_group_role_mappings as v1_external_group_role_mappings
from platform_api.iam.v1 import group_invites as v1_group_invites
from platform_api.iam.v1 import groups as v1_groups
from platform_api.iam.v1 import identities as v1_identities
from platform_api.iam.v1 import identity_providers as v1_identity_providers
from platform_api.iam.v1 import role_bindings as v1_role_bindings
from platform_api.iam.v1 import roles as v1_roles
from platform_api.iam.v1 import terms as v1_terms
from platform_api.service.cascade import Cascade
from platform_api.service.wiring import Domain, handlers

# The reads of IAM tables the authorizer (in `auth`, below the domains) needs, handed to it by the app.
GRANTS = GrantSource(
    identity_exists=identities.exists,
    bindings=queries.binding_roles,
    role_capabilities=roles.capabilities_of,
)

DOMAIN = Domain(
    "iam",
    rpcs=handlers(
        groups,
        identities,
        roles,
        role_bindings,
        identity_providers,
        account_associations,
        account_association_check,
        group_invites,
        external_group_role_mappings,
        terms,
        whoami,
        v1_groups,
        v1_identities,
        v1_roles,
        v1_role_bindings,
        v1_terms,
        v1_identity_providers,
        v1_account_associations,
        v1_group_invites,
        v1_external_group_role_mappings,
    ),
    cascades=(
        # Resources under a group keep it from being deleted (its sub-groups: groups.delete_group itself).
        Cascade("group", "identities", exists=identities.any_in_group),
        Cascade("group", "roles", exists=roles.any_in_group),
        Cascade("group", "identity providers", exists=identity_providers.any_in_group),
        # What belongs to the group goes with it.
        Cascade("group", "role bindings", remove=queries.delete_bindings_at),
        Cascade("group", "account association", remove=account_associations.delete_of_group),
        Cascade("group", "group invites", remove=group_invites.delete_in_group),
        Cascade("group", "terms acceptances", remove=terms.delete_of_group),
        Cascade("group", "external group role mappings", remove=queries.delete_mappings_scoped_at),
        # What names an identity goes with it.
        Cascade("identity", "role bindings", remove=queries.delete_bindings_of),
        # A role still named anywhere cannot be deleted.
        Cascade("role", "role_bindings", exists=queries.role_is_bound),
        Cascade("role", "group_invites", exists=group_invites.role_is_invited),
        Cascade("role", "external_group_role_mappings", exists=queries.role_is_mapped),
        Cascade("role", "identity_providers", exists=identity_providers.role_is_default),
    ),
)
