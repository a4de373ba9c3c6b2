"""How the Terraform provider gets its tokens (facts 5.3) from our issuer on the same port as the API: the exchange
of a CI system's identity token for an assumable identity, named (`identity_id`) or not (untargeted), keeping the
access token only; v0.3.1's re-exchange targeted at the cached token's `sub`, falling back to untargeted; and the
organization create's propagation loop (facts 3.1), for v0.3.0 and v0.4.1. Both backends."""

from __future__ import annotations

import secrets
import uuid

import grpc
import pytest

from platform_api.gen.chainguard.platform.iam.v1 import group_pb2 as v1_groups
from platform_api.gen.chainguard.platform.iam.v2beta1 import groups_pb2, identities_pb2, role_bindings_pb2
from tests.functional.clients.provider import Provider, claims_of, login, refuse_to_wait
from tests.helpers import VIEWER, Server, Upstream, unique


def workload(tf: Provider, org: str, issuer: Upstream) -> tuple[str, str]:
    """An assumable identity in `org` whose claimMatch accepts `issuer`'s tokens for a new subject, a viewer there:
    (identity uid, subject)."""
    subject = "repo:acme/app:ref:refs/heads/" + secrets.token_hex(4)
    config = identities_pb2.Identity(name=unique("ci"))
    config.claim_match.issuer, config.claim_match.subject = issuer.issuer, subject
    made = tf.identities.CreateIdentity(identities_pb2.CreateIdentityRequest(parent=org, identity=config))
    tf.role_bindings.CreateRoleBinding(role_bindings_pb2.CreateRoleBindingRequest(
        parent=org, role_binding=role_bindings_pb2.RoleBinding(identity_uid=made.uid, role_uid=VIEWER)))  # fmt: skip
    return made.uid, subject


def test_identity_token_and_identity(console: Server, tf: Provider, org: str, workloads: Upstream) -> None:
    """facts 5.3: `identity_token` + `identity_id`: one Exchange (aud = console_api, identity named) whose answer
    carries no refresh token (a workload's), a JWT for that identity with `exp`, used for both client sets until it
    nears its expiry; every call carried the provider's metadata (facts 5.2)."""
    identity, subject = workload(tf, org, workloads)
    ci = login(console, workloads, subject, identity_id=identity)
    try:
        assert ci.groups.GetGroup(groups_pb2.GetGroupRequest(uid=org)).uid == org
        assert [g.id for g in ci.v1_groups.List(v1_groups.GroupFilter(id=org)).items] == [org]
        [answer] = ci.tokens.answers
        assert answer.token and answer.refresh_token == ""
        claims = claims_of(answer.token)
        assert (claims["sub"], claims["iss"]) == (identity, console.base_url)
        assert console.base_url in ([claims["aud"]] if isinstance(claims["aud"], str) else claims["aud"])
        assert claims["exp"] - claims["iat"] > 60
        sent = [a.metadata for a in ci.kit.attempts]
        assert len({m["cgrequestid"] for m in sent}) == len(sent) == 2
        assert all(uuid.UUID(m["cgrequestid"]) and m["cgclientid"] for m in sent)
        assert all(m["authorization"] == f"Bearer {answer.token}" for m in sent)
        assert all(a.code == grpc.StatusCode.OK for a in ci.kit.attempts)
    finally:
        ci.close()


def test_untargeted_exchange_and_the_cached_sub(console: Server, tf: Provider, org: str, workloads: Upstream) -> None:
    """facts 5.3: without `identity_id` the first exchange is untargeted (the one identity accepting the token);
    a later one (v0.3.1+) targets the cached token's `sub`, and when that identity is gone, once more untargeted,
    which finds the identity that accepts the token now."""
    first, subject = workload(tf, org, workloads)
    ci = login(console, workloads, subject)
    try:
        assert claims_of(ci.tokens.get())["sub"] == first
        assert claims_of(ci.tokens.get(force=True))["sub"] == first  # targeted at the cached sub
        tf.identities.DeleteIdentity(identities_pb2.DeleteIdentityRequest(uid=first))
        config = identities_pb2.Identity(name=unique("ci"))
        config.claim_match.issuer, config.claim_match.subject = workloads.issuer, subject
        second = tf.identities.CreateIdentity(identities_pb2.CreateIdentityRequest(parent=org, identity=config)).uid
        assert claims_of(ci.tokens.get(force=True))["sub"] == second
        assert [a.refresh_token for a in ci.tokens.answers] == ["", "", ""]
    finally:
        ci.close()


def test_a_token_no_identity_accepts_is_unauthenticated(console: Server, workloads: Upstream) -> None:
    """facts 2, 5.3: the exchange refuses a token that no identity accepts with UNAUTHENTICATED (the provider
    shows its "please log in" message), named or untargeted."""
    for identity in ("", "0" * 40):
        stranger = login(console, workloads, "nobody-" + secrets.token_hex(4), identity_id=identity)
        try:
            with pytest.raises(grpc.RpcError) as refused:
                stranger.tokens.get()
            assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
        finally:
            stranger.close()


@pytest.mark.parametrize("version", [(0, 3, 0), (0, 4, 1)], ids=["v0.3.0", "v0.4.1"])
def test_organization_create_propagation(
    console: Server, people: Upstream, person: str, version: tuple[int, int, int]
) -> None:
    """facts 3.1, 5.3: a person (an issuer the operator trusts, untargeted exchange) creates an organization; the
    forced re-exchange (v0.3.0: untargeted; v0.4.1: targeted at the cached sub) gives a token that v1
    Groups/List{id} already lists the organization with: done in the first of the 5 rounds, no wait."""
    tf = login(console, people, person, version=version)
    try:
        made, rounds = tf.create_organization(unique("tf-org"), sleep=refuse_to_wait)
        assert rounds == 1
        assert len(tf.tokens.answers) == 2  # the first token, then the forced refresh
        assert {claims_of(a.token)["sub"] for a in tf.tokens.answers} == {claims_of(tf.tokens.access)["sub"]}
        assert [g.id for g in tf.v1_groups.List(v1_groups.GroupFilter(id=made.uid)).items] == [made.uid]
    finally:
        tf.close()


def test_a_person_who_holds_nothing_cannot_create_an_organization(console: Server, people: Upstream) -> None:
    """facts 3.1 (README: a new organization needs groups.create held somewhere): a person signing in for the first
    time, bound nowhere, is PERMISSION_DENIED, which the provider does not retry for a group (facts 5.5)."""
    fresh = login(console, people, "fresh-" + secrets.token_hex(4))
    try:
        with pytest.raises(grpc.RpcError) as refused:
            fresh.create_organization(unique("tf-org"), sleep=refuse_to_wait)
        assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
        assert [a.code for a in fresh.kit.attempts] == [grpc.StatusCode.PERMISSION_DENIED]
    finally:
        fresh.close()
