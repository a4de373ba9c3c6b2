"""A typed value the API cannot take (a duration "1h", an unknown enum name, a time without its offset, a
number out of its field's range) is the client's own InvalidArgument, naming the field and the forms it takes,
before anything is sent: the same on gRPC as on HTTP/JSON (gRPC raised protobuf's ParseError, and an unknown
enum name a TypeError, on both)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from platform_api.client import Client, Group, InvalidArgument
from platform_api.gen.records.iam_v2 import CreateGroupInviteRequest, GroupInvite
from tests.helpers import Server, unique
from tests.helpers.counting import counted_calls


@pytest.fixture(params=["grpc", "http"])
def client(request: pytest.FixtureRequest, server: Server) -> Iterator[Client]:
    with Client(server.base_url, grpc=server.grpc_target, transport=request.param, token=server.token,
                use_login_cache=False, retries=0) as c:  # fmt: skip
        yield c


CASES: list[tuple[str, Callable[[Client, str], Any], str, list[str]]] = [
    ("duration", lambda c, org: c.iam.create_group_invite(org, GroupInvite(ttl="1h")),
     "group_invite.ttl", ["'1h' is not a duration", '"3600s"']),
    ("duration in a record", lambda c, org: c.iam.create_group_invite(
        CreateGroupInviteRequest(parent=org, group_invite=GroupInvite(ttl="7 days"))),
     "group_invite.ttl", ["'7 days' is not a duration", '"604800s"']),
    ("time", lambda c, org: c.iam.create_group_invite(org, {"expirationTime": "2026-01-02 10:00"}),
     "group_invite.expiration_time", ["is not a time", "RFC 3339"]),
    ("enum", lambda c, org: list(c.events.list_deliveries(state="BOGUS")),
     "state", ["'BOGUS' is not a value of State", "STATE_DELIVERED"]),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_a_bad_typed_value_is_invalid_argument_naming_the_field(
    client: Client, server: Server, case: tuple[str, Callable[[Client, str], Any], str, list[str]]
) -> None:
    _, call, field, words = case
    org = str(client.iam.create_group("", Group(name=unique("org"))).uid)
    with pytest.raises(InvalidArgument) as e:
        call(client, org)
    assert [v.field for v in e.value.field_violations] == [field], e.value
    assert all(w in str(e.value) for w in words), e.value
    assert not e.value.request_sent


def test_a_number_out_of_its_range_is_invalid_argument(client: Client) -> None:
    # page_size is an int32: protobuf's encoder refused it with a ParseError over gRPC.
    with pytest.raises(InvalidArgument):
        list(client.registry.list_repos(page_size=2**40))


def test_a_wrong_python_type_stays_a_type_error(client: Client) -> None:
    with pytest.raises(TypeError, match="list_deliveries"):
        list(client.events.list_deliveries(state=5))


def test_nothing_is_sent(client: Client, server: Server, monkeypatch: pytest.MonkeyPatch) -> None:
    with counted_calls(monkeypatch) as calls:
        with pytest.raises(InvalidArgument):
            client.iam.create_group_invite(server.owner_org, GroupInvite(ttl="1h"))
        client.iam.get_group(server.owner_org)
    assert calls == {"GetGroup": 1}
