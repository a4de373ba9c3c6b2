"""The vendor's Terraform provider's client set, as its published Go source makes its calls (cited below as "facts
N": the numbered facts we recorded from that source), written on the generated stubs only (no platform_api client
code), so that a test makes the provider's calls as its Go code makes them:

- dialing (facts 5.2): `console_api` = `http://localhost:<port>` gives the plaintext target `localhost:<port>`;
  two client sets (v1 and v2beta1) on two connections (facts 2); calls wait for ready; on every call
  `authorization`, `cgclientid`, a fresh `cgrequestid` UUID and the user agent `terraform-provider-chainguard/dev
  <os>/<arch>` (grpcio adds its own token after it, as grpc-go does);
- retries (facts 2, 5.5): UNAVAILABLE and RESOURCE_EXHAUSTED, 3 attempts (100, 200 ms), each retry with
  `x-retry-attempty: <n>` and the first attempt's `cgrequestid`; PERMISSION_DENIED on the creates that the
  provider retries for eventual consistency (2, 4, 8, 16 s);
- tokens (facts 5.3): `token.Get` with an identity token: the cached access token while its `exp` is more than a
  minute ahead, else `SecurityTokenService/Exchange` at the issuer URL (the same port), a new connection per
  attempt, keeping the access token only; v0.3.1+ targets the cached token's `sub`, then once untargeted;
- the organization create's propagation loop (facts 3.1) and "ListAll" paging (facts 4).

The deadline on each call is a test's safety net only (the provider sets none)."""

from __future__ import annotations

import os
import platform
import re
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import grpc
import jwt

from platform_api.gen.chainguard.capabilities import capabilities_pb2
from platform_api.gen.chainguard.platform.common import uidp_pb2
from platform_api.gen.chainguard.platform.events.v1 import subscriptions_pb2_grpc
from platform_api.gen.chainguard.platform.iam.v1 import group_pb2 as v1_groups
from platform_api.gen.chainguard.platform.iam.v1 import group_pb2_grpc as v1_groups_grpc
from platform_api.gen.chainguard.platform.iam.v1 import identity_pb2_grpc as v1_identities_grpc
from platform_api.gen.chainguard.platform.iam.v2beta1 import (
    account_associations_pb2_grpc,
    group_invites_pb2_grpc,
    groups_pb2,
    groups_pb2_grpc,
    identities_pb2_grpc,
    identity_providers_pb2_grpc,
    role_bindings_pb2_grpc,
    roles_pb2_grpc,
)
from platform_api.gen.chainguard.platform.oidc import oidc_pb2, oidc_pb2_grpc
from platform_api.gen.chainguard.platform.registry.v1 import apko_pb2_grpc, registry_pb2_grpc
from platform_api.gen.chainguard.platform.registry.v2beta1 import repos_pb2_grpc
from tests.helpers import Server, Upstream

DEADLINE = 60  # seconds; the provider sets none (facts 2)
USER_AGENT = f"terraform-provider-chainguard/dev {sys.platform}/{platform.machine()}"
OPTIONS = [
    ("grpc.primary_user_agent", USER_AGENT),
    ("grpc.max_receive_message_length", 100 << 20),  # facts 2: 100 MB each way
    ("grpc.max_send_message_length", 100 << 20),
]
RETRIED = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.RESOURCE_EXHAUSTED)
RETRY_WAITS = (0.1, 0.2)  # facts 2: 3 attempts in all
EVENTUAL_WAITS = (2, 4, 8, 16)  # facts 5.5: 5 tries
PAGE_SIZE = 50  # facts 4: ListAll
UIDP = re.compile(r"^[0-9a-f]{40}(/[0-9a-f]{16})*$")
FRIENDLY = {
    v.number: v.GetOptions().Extensions[capabilities_pb2.friendly]
    for v in capabilities_pb2.Capability.DESCRIPTOR.values
    if v.number
}


def capability_numbers(*friendly: str) -> list[int]:
    """The SDK's capabilities.Parse: friendly names (`repo.list`) to enum numbers (facts 3.4)."""
    by_name = {name: number for number, name in FRIENDLY.items()}
    return [by_name[name] for name in friendly]


def capability_names(numbers: Any) -> set[str]:
    """A role's capabilities as the provider reads them back: a set of friendly names, unknown values skipped."""
    return {FRIENDLY[n] for n in numbers if n in FRIENDLY}


def parent_of(uid: str) -> str | None:
    """`parent_id` as the provider derives it from a uid (None for an organization)."""
    head, _, tail = uid.rpartition("/")
    return head if tail and head else None


def client_id() -> str:
    """`cgclientid` (facts 5.2): K_SERVICE, else CG_CLIENT_ID, else the plugin executable's path."""
    return os.environ.get("K_SERVICE") or os.environ.get("CG_CLIENT_ID") or sys.executable


@dataclass
class Attempt:
    """One call as it went on the wire: the method, its metadata and how it ended."""

    method: str
    metadata: dict[str, str]
    code: grpc.StatusCode


class Kit(grpc.UnaryUnaryClientInterceptor):  # type: ignore[misc]
    """go-grpc-kit's metadata and retry interceptor (facts 2, 5.2); records every attempt."""

    def __init__(self, token: Callable[[], str]) -> None:
        self.token = token
        self.attempts: list[Attempt] = []

    def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        request_id = str(uuid.uuid4())
        outcome: Any = None
        for attempt in range(len(RETRY_WAITS) + 1):
            metadata = [("authorization", f"Bearer {self.token()}"), ("cgclientid", client_id()),
                        ("cgrequestid", request_id)]  # fmt: skip
            if attempt:
                metadata.append(("x-retry-attempty", str(attempt)))
            call = details._replace(metadata=metadata, wait_for_ready=True, timeout=details.timeout or DEADLINE)
            outcome = continuation(call, request)
            self.attempts.append(Attempt(details.method, dict(metadata), outcome.code()))
            if outcome.code() not in RETRIED or attempt == len(RETRY_WAITS):
                break
            time.sleep(RETRY_WAITS[attempt])
        return outcome


def claims_of(token: str) -> dict[str, Any]:
    """A JWT's claims read without verification, as token.Get reads `exp` and `sub`."""
    return dict(jwt.decode(token, options={"verify_signature": False}))


@dataclass
class Tokens:
    """token.Get with an identity token (facts 5.3): `identity_token` is re-read on every exchange (a file the CI
    refreshes); `identity_id` targets the exchange. Records every exchange's answer."""

    target: str
    audience: str
    identity_token: Callable[[], str]
    identity_id: str = ""
    version: tuple[int, int, int] = (0, 4, 1)
    access: str = ""
    answers: list[oidc_pb2.RawToken] = field(default_factory=list)

    def get(self, force: bool = False) -> str:
        if self.access and not force:
            try:
                if claims_of(self.access)["exp"] - time.time() > 60:
                    return self.access
            except (jwt.PyJWTError, KeyError):
                pass  # unreadable: refresh
        identity = self.identity_id
        if not identity and self.version >= (0, 3, 1) and self.access:
            sub = str(claims_of(self.access).get("sub", ""))
            identity = sub if UIDP.match(sub) else ""
        try:
            answer = self.exchange(identity)
        except grpc.RpcError:
            if not identity or self.identity_id:
                raise
            answer = self.exchange("")  # the cached token's identity refused it: once more, untargeted
        assert "exp" in claims_of(answer.token)  # the answer's token must be a JWT with `exp`
        self.access = answer.token  # only the access token is kept; a refresh token is ignored
        return self.access

    def exchange(self, identity: str) -> oidc_pb2.RawToken:
        """SecurityTokenService/Exchange at the issuer URL, a new connection per attempt, retried on UNAVAILABLE."""
        request = oidc_pb2.ExchangeRequest(aud=[self.audience], identity=identity)
        for attempt in range(len(RETRY_WAITS) + 1):
            with grpc.insecure_channel(self.target, options=OPTIONS) as channel:
                try:
                    answer: oidc_pb2.RawToken = oidc_pb2_grpc.SecurityTokenServiceStub(channel).Exchange(
                        request, metadata=[("authorization", f"Bearer {self.identity_token()}")], timeout=DEADLINE
                    )
                except grpc.RpcError as e:
                    if e.code() != grpc.StatusCode.UNAVAILABLE or attempt == len(RETRY_WAITS):
                        raise
                    time.sleep(RETRY_WAITS[attempt])
                    continue
            self.answers.append(answer)
            return answer
        raise AssertionError("unreachable")


class Provider:
    """The provider's two client sets on one `console_api` URL (facts 2), with `tokens` read per RPC (v0.3.2+)."""

    def __init__(self, console_api: str, tokens: Tokens) -> None:
        self.console_api = console_api
        self.target = console_api.removeprefix("http://")
        self.tokens = tokens
        self.version = tokens.version
        self.kit = Kit(self.tokens.get)
        self._raw = [grpc.insecure_channel(self.target, options=OPTIONS) for _ in range(2)]
        v1, v2 = (grpc.intercept_channel(ch, self.kit) for ch in self._raw)
        self.groups = groups_pb2_grpc.GroupsServiceStub(v2)
        self.identities = identities_pb2_grpc.IdentitiesServiceStub(v2)
        self.identity_providers = identity_providers_pb2_grpc.IdentityProvidersServiceStub(v2)
        self.roles = roles_pb2_grpc.RolesServiceStub(v2)
        self.role_bindings = role_bindings_pb2_grpc.RoleBindingsServiceStub(v2)
        self.group_invites = group_invites_pb2_grpc.GroupInvitesServiceStub(v2)
        self.account_associations = account_associations_pb2_grpc.AccountAssociationsServiceStub(v2)
        self.repos = repos_pb2_grpc.ReposServiceStub(v2)
        self.v1_groups = v1_groups_grpc.GroupsStub(v1)
        self.v1_identities = v1_identities_grpc.IdentitiesStub(v1)
        self.registry = registry_pb2_grpc.RegistryStub(v1)
        self.apko = apko_pb2_grpc.ApkoStub(v1)
        self.subscriptions = subscriptions_pb2_grpc.SubscriptionsStub(v1)

    def close(self) -> None:
        for channel in self._raw:
            channel.close()

    # ---------------------------------------------------------------------------------------- the provider's ways

    def read(self, call: Callable[..., Any], request: Any) -> Any | None:
        """A v2beta1 Read (facts 2): NOT_FOUND is "deleted outside Terraform" (None); any other error fails."""
        try:
            return call(request)
        except grpc.RpcError as e:
            if e.code() == grpc.StatusCode.NOT_FOUND:
                return None
            raise

    def delete(self, call: Callable[..., Any], request: Any) -> None:
        """A v2beta1 Delete (facts 2): NOT_FOUND is success."""
        try:
            call(request)
        except grpc.RpcError as e:
            if e.code() != grpc.StatusCode.NOT_FOUND:
                raise

    def read_v1(self, call: Callable[..., Any], request: Any) -> Any | None:
        """A v1 Read: a List by `id`; no item is "deleted outside Terraform" (None), more than one an error."""
        items = list(call(request).items)
        assert len(items) <= 1, f"more than one item for {request}"
        return items[0] if items else None

    def create(self, call: Callable[..., Any], request: Any, sleep: Callable[[float], None] = time.sleep) -> Any:
        """A create retried on PERMISSION_DENIED for eventual consistency (facts 5.5: identity, identity
        provider, role, role binding, group invite, account association, subscription)."""
        for wait in (*EVENTUAL_WAITS, None):
            try:
                return call(request)
            except grpc.RpcError as e:
                if e.code() != grpc.StatusCode.PERMISSION_DENIED or wait is None:
                    raise
                sleep(wait)
        raise AssertionError("unreachable")

    def list_all(self, call: Callable[..., Any], request: Any, items: str) -> Iterator[Any]:
        """The SDK's ListAll (facts 4): page_size 50, next_page_token until empty, at most 1000 pages."""
        request.page_size = PAGE_SIZE
        for _ in range(1000):
            page = call(request)
            yield from getattr(page, items)
            if not page.next_page_token:
                return
            request.page_token = page.next_page_token
        raise AssertionError("more than 1000 pages")

    def create_organization(
        self, name: str, description: str = "", sleep: Callable[[float], None] = time.sleep
    ) -> tuple[groups_pb2.Group, int]:
        """chainguard_group without parent_id (facts 3.1): CreateGroup, then up to 5 rounds of (forced token
        refresh, v1 Groups/List{id}) until it lists the organization. Returns the answer and the rounds taken."""
        made: groups_pb2.Group = self.groups.CreateGroup(
            groups_pb2.CreateGroupRequest(group=groups_pb2.Group(name=name, description=description))
        )
        for round_, wait in enumerate((*EVENTUAL_WAITS, None), start=1):
            self.tokens.get(force=True)  # a refused refresh fails the apply
            try:
                if self.v1_groups.List(v1_groups.GroupFilter(id=made.uid)).items:
                    return made, round_
            except grpc.RpcError as e:
                if e.code() not in (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED):
                    raise
            if wait is None:
                raise AssertionError(f"organization {made.uid} not visible after 5 rounds")
            sleep(wait)
        raise AssertionError("unreachable")


def refuse_to_wait(seconds: float) -> None:
    """A `sleep` for the provider's polling that fails instead: the server's state should be ready at once."""
    raise AssertionError(f"the provider would wait {seconds} s here: the server's state was not ready yet")


def uidp(children_of: str = "") -> uidp_pb2.UIDPFilter:
    """The list data sources' filter (facts 4): `{children_of: parent}`, or set but empty (`uidp: {}` on the wire)."""
    return uidp_pb2.UIDPFilter(children_of=children_of)


def login(console: Server, issuer: Upstream, subject: str, identity_id: str = "",
          version: tuple[int, int, int] = (0, 4, 1)) -> Provider:  # fmt: skip
    """A provider of `version` configured with `login_options { identity_token }` (a token of `issuer` for
    `subject`, minted for the issuer URL, as a CI system mints it) and `identity_id`."""
    tokens = Tokens(console.grpc_target, console.base_url, lambda: issuer.token(subject, console.base_url),
                    identity_id, version)  # fmt: skip
    return Provider(console.base_url, tokens)
