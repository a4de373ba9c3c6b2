"""The pure parts of a create sent again after an unknown outcome (client/creates.py): which failures may have
been carried out and which calls are sent again then (client/retries.py), and when a stored resource is the one
a request sent."""

from __future__ import annotations

from platform_api.client import Repo, contract, creates, errors, retries
from platform_api.gen.records.iam_v2 import Identity, Identity_ClaimMatch


def unavailable(reason: str = "", sent: bool = True) -> errors.ApiError:
    details = [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": reason}] if reason else []
    e = errors.Unavailable("down", details)
    e.request_sent = sent
    return e


def test_which_failures_may_have_been_carried_out() -> None:
    assert retries.outcome_unknown(unavailable("COMMIT_OUTCOME_UNKNOWN"))
    assert retries.outcome_unknown(unavailable())  # no answer of the server's: a connection lost mid-way
    assert not retries.outcome_unknown(unavailable("NOTHING_STORED"))
    assert not retries.outcome_unknown(unavailable("UNAVAILABLE"))
    assert not retries.outcome_unknown(unavailable(sent=False))  # the connection was never made


def test_only_creates_with_a_unique_key_or_an_upsert_are_sent_again() -> None:
    by_name = {m.name: m for m in contract.methods().values() if m.version == "v2"}
    v2_creates = {name for name, m in by_name.items() if creates.is_create(m)}
    assert v2_creates >= creates.REPEATABLE
    assert v2_creates - creates.REPEATABLE == {
        "CreateIdentity", "CreateSubscription", "CreateGroupInvite", "BatchCreateRoleBindings"
    }  # fmt: skip


def test_a_stored_resource_is_the_sent_one_when_it_holds_every_plain_value_sent() -> None:
    assert creates._same(Repo(name="a", description="d"), Repo(uid="x/y", name="a", description="d", aliases=["b"]))
    assert not creates._same(Repo(name="a", description="d"), Repo(name="a", description="other"))
    assert creates._same(Repo(name="a"), Repo(name="a", description="set by someone since"))
    # Nested values are not compared (the server completes them, keeps secrets out of its answers).
    sent = Identity(name="i", claim_match=Identity_ClaimMatch(issuer="https://i", subject="s"))
    assert creates._same(sent, Identity(name="i"))


def test_reads_and_unique_creates_are_the_calls_repeated_after_an_unknown_outcome() -> None:
    v2 = [m for m in contract.methods().values() if m.version == "v2"]
    repeated = {m.name for m in v2 if retries.repeatable(m)}
    assert {"GetRepo", "ListRepos", "LookupGroup", "CreateRepo", "CreateTag"} <= repeated
    assert not repeated & {"UpdateRepo", "DeleteRepo", "CreateIdentity", "BatchCreateRoleBindings"}
    assert all(m.name.startswith(("Get", "List", "Lookup", "Check", "Ping", "Validate", "Create")) for m in v2
               if m.name in repeated)  # fmt: skip
