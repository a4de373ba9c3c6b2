"""The event rules without a server: group extension per type (reference 12.3), redaction, sources,
the retry schedule, the SSRF address rules and the Standard Webhooks signature."""

from __future__ import annotations

import ipaddress
import itertools
import random
import secrets
from pathlib import Path

import pytest

from platform_api.api import schema
from platform_api.core import clock
from platform_api.core.settings import Settings
from platform_api.events import dispatcher, sinks
from platform_api.gen.records.events_v2 import Subscription
from platform_api.gen.records.iam_v2 import (
    BatchCreateRoleBindingsResponse,
    DeleteAccountAssociationRequest,
    GenerateScimTokenResponse,
    GroupInvite,
    IdentityProvider,
    IdentityProvider_OIDC,
    RegenerateScimTokenResponse,
    RoleBinding,
)
from platform_api.outbox import outbox
from platform_api.service import methods
from platform_api.store import db as store
from platform_api.store.migrate import migrate

ORG = "a" * 40
G = ORG + "/" + "b" * 16
X = G + "/" + "c" * 16


def test_every_event_type_of_the_contract_has_a_group_rule() -> None:
    """Domains added later (identity providers, invites, mappings, terms ...) are covered already."""
    types = {m.event_type for m in schema.methods().values() if m.event_type}
    assert types
    missing = {t for t in types if outbox._unversioned(t) not in outbox.GROUP_RULES}
    assert not missing


@pytest.mark.parametrize(
    ("suffix", "subject", "group", "extensions"),
    [
        ("iam.group.created.v1", G, G, {}),
        ("iam.group.updated.v1", G, G, {}),
        ("iam.group.deleted.v1", G, ORG, {}),
        ("iam.group.deleted.v1", ORG, "", {}),
        ("iam.identity.created.v1", X, G, {}),
        ("iam.roles.deleted.v1", X, G, {}),
        ("iam.rolebindings.updated.v1", X, G, {}),
        ("iam.rolebindings.created.batch.v1", G, G, {}),
        ("iam.identity_providers.scim_token.generated.v1", X, G, {}),
        ("iam.account_associations.updated.v1", G, G, {}),
        ("iam.group_invite.created.v1", X, G, {}),
        ("iam.external_group_role_mappings.created.v1", X, ORG, {"identityprovider": G}),
        ("iam.external_group_role_mappings.deleted.batch.v1", G, ORG, {"identityprovider": G}),
        ("iam.terms.accepted.v1", G, G, {}),
        ("platform.registry.repo.updated.v1", X, G, {}),
        ("platform.registry.tag.created.v1", X + "/" + "d" * 16, ORG, {}),
        ("events.subscription.created.v1", X, G, {}),
        ("some.future.thing.created.v2", X, G, {}),
    ],
)
def test_group_extension(suffix: str, subject: str, group: str, extensions: dict[str, str]) -> None:
    assert outbox.group_of(suffix, subject) == (group, extensions)


def test_batch_subject_is_the_parent_of_the_first_binding() -> None:
    body = BatchCreateRoleBindingsResponse(role_bindings=[RoleBinding(uid=X), RoleBinding(uid=G + "/" + "e" * 16)])
    assert outbox.subject_of("iam.rolebindings.created.batch.v1", "parent", body) == G


def test_redaction() -> None:
    invite = GroupInvite(
        uid=X, email="a@b.c", code="secret-code", key_id="k", expiration_time="2026-01-01T00:00:00.000Z"
    )
    assert outbox.payload(invite) == (
        {"uid": X, "expirationTime": "2026-01-01T00:00:00.000Z"},
        "chainguard.platform.iam.v2.GroupInvite",
    )
    idp = IdentityProvider(
        uid=X, name="sso", oidc=IdentityProvider_OIDC(issuer="https://i", client_id="c", client_secret="s")
    )
    body, name = outbox.payload(idp)
    assert (
        body["oidc"] == {"issuer": "https://i", "clientId": "c"}
        and name == "chainguard.platform.iam.v2.IdentityProvider"
    )
    for response in (GenerateScimTokenResponse(token="t", identity_provider_uid=X),
                     RegenerateScimTokenResponse(token="t", identity_provider_uid=X)):  # fmt: skip
        assert outbox.payload(response)[0] == {"identityProviderUid": X}
    assert outbox.payload(DeleteAccountAssociationRequest(uid=G))[0] is None
    assert outbox.payload(Subscription(uid=X, sink="https://s", secret="whsec_x"))[0] == {"uid": X, "sink": "https://s"}


@pytest.mark.parametrize(
    ("template", "collection"),
    [
        ("/iam/v2/groups/{parent=**}", "/iam/v2/groups"),
        ("/iam/v2/groups/", "/iam/v2/groups"),
        ("/iam/v2/roleBindings:batchCreate", "/iam/v2/roleBindings"),
        ("/registry/v2/repos/{repo_readme.uid=**}/readme", "/registry/v2/repos"),
        ("/iam/v2/identityProviders/{identity_provider_uid=**}:generateScimToken", "/iam/v2/identityProviders"),
        ("/iam/v2/terms/{group=**}", "/iam/v2/terms"),
    ],
)
def test_source_is_the_collection(template: str, collection: str) -> None:
    assert methods.collection_path(template) == collection


def test_type_prefix() -> None:
    assert Settings().event_type_prefix == "local.platform-api"
    assert Settings(domain="example.com").event_type_prefix == "com.example"
    assert Settings(compat_strings="reference").event_type_prefix == "dev.chainguard"


def test_type_filters() -> None:
    t = "local.platform-api.api.iam.group.created.v1"
    assert outbox.type_matches(t, [])
    assert outbox.type_matches(t, [t])
    assert outbox.type_matches(t, ["local.platform-api.api.iam.*"])
    assert not outbox.type_matches(t, ["local.platform-api.api.registry.*", t + "x"])


@pytest.mark.parametrize("jitter", [0.0, 0.37, 1.0])
def test_retry_schedule_spans_a_day_with_at_least_8_attempts(jitter: float) -> None:
    s = Settings()
    assert s.delivery_max_attempts >= 8
    start = now = 1_000_000.0
    times = [now]
    for n in range(1, s.delivery_max_attempts):
        now = dispatcher.next_due(n, start, now, s, None, rng=lambda: jitter)
        times.append(now)
    assert 24 * 3600 <= times[-1] - times[0] <= 31 * 3600
    delays = [b - a for a, b in itertools.pairwise(times)]
    assert all(d > 0 for d in delays) and delays[0] <= 60 and max(delays) <= 24 * 3600


def test_retry_delays_grow_and_are_jittered() -> None:
    rng = random.Random(7).random
    d = [dispatcher.retry_delay(n, 1.0, rng) for n in range(1, 10)]
    assert 30 <= d[0] <= 60 and 90 <= d[1] <= 180 and all(x <= 8 * 3600 for x in d)
    assert dispatcher.retry_delay(3, 0.001, lambda: 1.0) == pytest.approx(0.54)


def test_retry_after_replaces_the_delay_bounded() -> None:
    s = Settings()
    assert dispatcher.next_due(1, 0.0, 100.0, s, 5.0) == 105.0
    assert dispatcher.next_due(1, 0.0, 100.0, s, 10**9) == 100.0 + dispatcher.MAX_RETRY_AFTER
    assert dispatcher.parse_retry_after("120") == 120.0
    assert dispatcher.parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0
    assert dispatcher.parse_retry_after("soon") is None


@pytest.mark.parametrize(
    ("address", "allowed"),
    [
        ("203.0.113.7", False),  # documentation range: not global
        ("8.8.8.8", True),
        ("2606:4700:4700::1111", True),
        ("10.1.2.3", False),
        ("172.16.0.1", False),
        ("192.168.0.1", False),
        ("127.0.0.1", False),
        ("::1", False),
        ("169.254.169.254", False),
        ("fe80::1", False),
        ("fd12::1", False),
        ("100.64.1.1", False),
        ("0.0.0.0", False),
        ("224.0.0.251", False),
        ("255.255.255.255", False),
        ("::ffff:192.168.0.1", False),
        ("::ffff:8.8.8.8", True),
    ],
)
def test_sink_addresses(address: str, allowed: bool) -> None:
    assert sinks.address_allowed(address, Settings()) is allowed


def test_sink_address_exceptions() -> None:
    loopback = Settings(insecure_allow_loopback=True)
    assert sinks.address_allowed("127.0.0.1", loopback) and sinks.address_allowed("::1", loopback)
    assert not sinks.address_allowed("10.0.0.1", loopback)
    private = Settings(sink_allowed_networks=(ipaddress.ip_network("10.20.0.0/16"), ipaddress.ip_network("fd00::/8")))
    assert sinks.address_allowed("10.20.3.4", private) and sinks.address_allowed("fd00::5", private)
    assert not sinks.address_allowed("10.21.0.1", private)
    assert isinstance(ipaddress.ip_address("::1"), ipaddress.IPv6Address)


def test_pinned_target_keeps_the_name_for_host_and_tls() -> None:
    t = sinks.Target("https", "hooks.example", 8443, "/in?x=1", "93.184.216.34")
    assert t.url == "https://93.184.216.34:8443/in?x=1" and t.host_header == "hooks.example:8443"
    assert sinks.Target("https", "h", 443, "/", "2606:4700::1").url == "https://[2606:4700::1]:443/"


def test_standard_webhooks_signature_vector() -> None:
    """The example of the Standard Webhooks specification."""
    sig = dispatcher.signature("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330,
                               b'{"test": 2432232314}')  # fmt: skip
    assert sig == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="


def test_latency_duration_json() -> None:
    assert dispatcher._duration(0.0123) == "0.012s"
    assert dispatcher._duration(3.0) == "3s"
    assert dispatcher._duration(1.5) == "1.500s"


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_retention_prunes_finished_deliveries_and_their_events(backend: str, tmp_path: Path) -> None:
    """Pending deliveries, and the events they need, stay whatever their age."""
    import asyncio

    from tests.helpers import scratch_database

    async def go(url: str) -> None:
        db = await store.connect(url)
        try:
            await migrate(db)
            old, new = "2020-01-01T00:00:00.000Z", clock.now()
            async with db.transaction() as tx:
                for event_id, when in (("e-old", old), ("e-old-pending", old), ("e-new", new)):
                    await tx.execute(
                        "INSERT INTO events (id, type, source, subject, grp, time, bodytype, data, create_time)"
                        " VALUES ($1, 't', 's', 'x', 'g', $2, 'b', '{}', $2)",
                        event_id, when,
                    )  # fmt: skip
                sub = G + "/" + "f" * 16
                for event_id, state, when in (("e-old", outbox.DELIVERED, old), ("e-old-pending", outbox.PENDING, old),
                                              ("e-new", outbox.FAILED, new)):  # fmt: skip
                    await tx.execute(
                        "INSERT INTO deliveries (uid, parent, event_id, state, due, create_time, update_time, body)"
                        " VALUES ($1, $2, $3, $4, 0, $5, $5, '{}')",
                        sub + "/" + secrets.token_hex(8), sub, event_id, state, when,
                    )  # fmt: skip
            d = dispatcher.Dispatcher(db, Settings(), None)  # type: ignore[arg-type]
            await d.prune()
            assert sorted(r[0] for r in await db.fetch("SELECT id FROM events")) == ["e-new", "e-old-pending"]
            assert sorted(r[0] for r in await db.fetch("SELECT event_id FROM deliveries")) == ["e-new", "e-old-pending"]
        finally:
            await db.close()

    with scratch_database(backend, tmp_path) as url:
        asyncio.run(go(url))
