"""IAM identity providers, group invites and mappings over gRPC: same data, rules and errors as HTTP/JSON."""

from __future__ import annotations

import grpc
import pytest
from google.protobuf import duration_pb2, field_mask_pb2
from google.rpc import error_details_pb2

from platform_api.gen.chainguard.platform.iam.v2 import (
    external_group_role_mappings_pb2 as egrm,
)
from platform_api.gen.chainguard.platform.iam.v2 import (
    external_group_role_mappings_pb2_grpc as egrm_grpc,
)
from platform_api.gen.chainguard.platform.iam.v2 import (
    group_invites_pb2,
    group_invites_pb2_grpc,
    identity_providers_pb2,
    identity_providers_pb2_grpc,
)
from tests.helpers import OWNER, TIMEOUT, VIEWER, Server, mk_org, ok, rpc_error, stamp, stored_secret, unpack

IdP = identity_providers_pb2.IdentityProvider


@pytest.fixture
def idps(server: Server) -> identity_providers_pb2_grpc.IdentityProvidersServiceStub:
    return identity_providers_pb2_grpc.IdentityProvidersServiceStub(server.channel)


def test_identity_providers_over_grpc(
    server: Server, org: str, idps: identity_providers_pb2_grpc.IdentityProvidersServiceStub
) -> None:
    oidc = IdP.OIDC(
        issuer="https://idp.example.com", client_id="c1", client_secret="grpc-secret", groups_claim="groups"
    )
    made = idps.CreateIdentityProvider(
        identity_providers_pb2.CreateIdentityProviderRequest(
            parent=org, identity_provider=IdP(name="okta", default_role=VIEWER, oidc=oidc)
        ),
        timeout=TIMEOUT,
    )
    assert made.uid.startswith(org + "/") and made.oidc.client_id == "c1" and made.oidc.client_secret == ""
    got = idps.GetIdentityProvider(identity_providers_pb2.GetIdentityProviderRequest(uid=made.uid), timeout=TIMEOUT)
    assert got == made
    http_view = ok(server.http.get(f"/iam/v2/identityProviders/{made.uid}"))
    assert http_view["name"] == "okta" and stamp(http_view["createTime"]) == made.create_time
    # Without a mask only the fields set change; an unset secret is kept.
    out = idps.UpdateIdentityProvider(
        identity_providers_pb2.UpdateIdentityProviderRequest(
            identity_provider=IdP(uid=made.uid, description="via grpc", oidc=IdP.OIDC(pkce_enabled=True))
        ),
        timeout=TIMEOUT,
    )
    assert (out.name, out.description, out.oidc.client_id, out.oidc.pkce_enabled) == ("okta", "via grpc", "c1", True)
    assert stored_secret(server, made.uid) == "grpc-secret"
    # An explicit mask naming the secret clears it.
    cleared = idps.UpdateIdentityProvider(
        identity_providers_pb2.UpdateIdentityProviderRequest(
            identity_provider=IdP(uid=made.uid), update_mask=field_mask_pb2.FieldMask(paths=["oidc.client_secret"])
        ),
        timeout=TIMEOUT,
    )
    assert cleared.oidc.client_secret == "" and stored_secret(server, made.uid) == ""
    listed = idps.ListIdentityProviders(identity_providers_pb2.ListIdentityProvidersRequest(), timeout=TIMEOUT)
    assert made.uid in [i.uid for i in listed.identity_providers] and listed.HasField("total_count")
    err, st = rpc_error(
        idps.CreateIdentityProvider,
        identity_providers_pb2.CreateIdentityProviderRequest(parent=org, identity_provider=IdP(name="x", oidc=oidc)),
    )
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert [v.field for v in unpack(st, error_details_pb2.BadRequest).field_violations] == ["default_role"]
    idps.DeleteIdentityProvider(identity_providers_pb2.DeleteIdentityProviderRequest(uid=made.uid), timeout=TIMEOUT)
    err, st = rpc_error(idps.GetIdentityProvider, identity_providers_pb2.GetIdentityProviderRequest(uid=made.uid))
    assert err.code() == grpc.StatusCode.NOT_FOUND
    assert unpack(st, error_details_pb2.ResourceInfo).resource_name == made.uid


def test_authorization_over_grpc(
    server: Server, org: str, idps: identity_providers_pb2_grpc.IdentityProvidersServiceStub
) -> None:
    oidc = IdP.OIDC(issuer="https://idp.example.com", client_id="c1", pkce_enabled=True)
    made = idps.CreateIdentityProvider(
        identity_providers_pb2.CreateIdentityProviderRequest(
            parent=org, identity_provider=IdP(name="okta", default_role=VIEWER, oidc=oidc)
        ),
        timeout=TIMEOUT,
    )
    _, viewer = server.identity_with_role(org, "viewer")
    stub = identity_providers_pb2_grpc.IdentityProvidersServiceStub(server.grpc_channel(viewer))
    assert stub.GetIdentityProvider(identity_providers_pb2.GetIdentityProviderRequest(uid=made.uid),
                                    timeout=TIMEOUT).uid == made.uid  # fmt: skip
    err, _ = rpc_error(
        stub.CreateIdentityProvider,
        identity_providers_pb2.CreateIdentityProviderRequest(
            parent=org, identity_provider=IdP(name="mine", default_role=VIEWER, oidc=oidc)
        ),
    )
    assert err.code() == grpc.StatusCode.PERMISSION_DENIED
    _, outsider = server.identity_with_role(mk_org(server.http), "owner")
    stub = identity_providers_pb2_grpc.IdentityProvidersServiceStub(server.grpc_channel(outsider))
    err, _ = rpc_error(stub.GetIdentityProvider, identity_providers_pb2.GetIdentityProviderRequest(uid=made.uid))
    assert err.code() == grpc.StatusCode.NOT_FOUND
    listed = stub.ListIdentityProviders(identity_providers_pb2.ListIdentityProvidersRequest(), timeout=TIMEOUT)
    assert not listed.identity_providers and listed.HasField("total_count") and listed.total_count == 0


def test_invites_and_mappings_over_grpc(
    server: Server, org: str, idps: identity_providers_pb2_grpc.IdentityProvidersServiceStub
) -> None:
    invites = group_invites_pb2_grpc.GroupInvitesServiceStub(server.channel)
    made = invites.CreateGroupInvite(
        group_invites_pb2.CreateGroupInviteRequest(
            parent=org,
            group_invite=group_invites_pb2.GroupInvite(role_uid=VIEWER, ttl=duration_pb2.Duration(seconds=3600)),
        ),
        timeout=TIMEOUT,
    )
    assert made.code.startswith("painv_") and made.role.name == "viewer" and not made.HasField("ttl")
    got = invites.GetGroupInvite(group_invites_pb2.GetGroupInviteRequest(uid=made.uid), timeout=TIMEOUT)
    assert got.code == "" and got.key_id == made.key_id
    assert got.expiration_time.seconds - got.create_time.seconds == 3600
    err, st = rpc_error(
        invites.CreateGroupInvite,
        group_invites_pb2.CreateGroupInviteRequest(
            parent=org, group_invite=group_invites_pb2.GroupInvite(role_uid=VIEWER)
        ),
    )
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert [v.field for v in unpack(st, error_details_pb2.BadRequest).field_violations] == ["ttl"]

    idp = idps.CreateIdentityProvider(
        identity_providers_pb2.CreateIdentityProviderRequest(
            parent=org,
            identity_provider=IdP(name="sso", default_role=VIEWER,
                                  oidc=IdP.OIDC(issuer="https://idp.example.com", client_id="c", pkce_enabled=True)),
        ),
        timeout=TIMEOUT,
    )  # fmt: skip
    stub = egrm_grpc.ExternalGroupRoleMappingsServiceStub(server.channel)
    m = stub.CreateExternalGroupRoleMapping(
        egrm.CreateExternalGroupRoleMappingRequest(
            parent=idp.uid,
            external_group_role_mapping=egrm.ExternalGroupRoleMapping(external_group_id="Admins", role_uid=OWNER,
                                                                      scope=org),
        ),
        timeout=TIMEOUT,
    )  # fmt: skip
    assert m.identity_provider_uid == idp.uid
    out = stub.BatchDeleteExternalGroupRoleMappings(
        egrm.BatchDeleteExternalGroupRoleMappingsRequest(parent=idp.uid, names=[m.uid]), timeout=TIMEOUT
    )
    assert [x.uid for x in out.external_group_role_mappings] == [m.uid] and out.parent == idp.uid
