"""`platformctl events`: a subscription to a real receiver on loopback, its deliveries, a redelivery."""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.functional.ctl.cli import Ctl
from tests.helpers import BACKENDS, Receiver, Server, stop_server, unique
from tests.helpers.webhooks import start_events_server

CREATED = "local.platform-api.api.iam.group.created.v1"


@pytest.fixture(scope="module", params=BACKENDS)
def es(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    s = start_events_server(request.param, tmp_path_factory.mktemp("ctl-events"))
    yield s
    stop_server(s)


def wait_until(predicate: Callable[[], Any], timeout: float = 20.0) -> Any:
    deadline = time.monotonic() + timeout
    while not (value := predicate()):
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)
    return value


def test_subscribe_list_deliveries_redeliver(es: Server, rx: Receiver, tmp_path: Path) -> None:
    ctl = Ctl(es, tmp_path, es.token)
    org = unique("org")
    ctl.json("iam", "groups", "create", org)
    ctl("config", "set", "org", org)
    hook = "/hook/" + secrets.token_hex(6)
    sub = ctl.json("events", "subscriptions", "create", "--sink", rx.url(hook), "--type", CREATED)
    assert sub["types"] == [CREATED] and sub["sink"] == rx.url(hook)
    # A type that is no event's full name would be stored and receive nothing: refused, with the full one.
    r = ctl("events", "subscriptions", "create", "--sink", rx.url(hook), "--type", "iam.group.created")
    assert r.code == 7 and f"did you mean '{CREATED}'" in r.err and "types" in r.err, r
    assert [s["uid"] for s in ctl.json("events", "subscriptions", "ls")] == [sub["uid"]]
    ctl.json("iam", "groups", "create", "team")
    rx.wait(hook, 1)
    delivered = wait_until(
        lambda: [d for d in ctl.json("events", "deliveries", "ls", "--parent", sub["uid"], "--state", "delivered")]
    )
    assert len(delivered) == 1 and delivered[0]["eventType"] == CREATED and delivered[0]["state"] == "STATE_DELIVERED"
    # A table shows the state as --state takes it; json (above) and yaml keep the API's value.
    rows = [line.split() for line in ctl("events", "deliveries", "ls", "--parent", sub["uid"]).out.splitlines()]
    assert rows[0][2] == "STATE" and rows[1][2] == "DELIVERED", rows
    assert "  DELIVERED\n" in ctl("events", "deliveries", "get", delivered[0]["uid"]).out
    assert "state: STATE_DELIVERED" in ctl("events", "deliveries", "get", delivered[0]["uid"], "-o", "yaml").out
    assert ctl.json("events", "deliveries", "ls", "--parent", sub["uid"], "--state", "FAILED") == []
    assert ctl.json("events", "deliveries", "get", delivered[0]["uid"])["eventId"] == delivered[0]["eventId"]
    r = ctl("events", "deliveries", "redeliver", sub["uid"], delivered[0]["eventId"])
    assert r.code == 0 and "queued again" in r.out
    again = rx.wait(hook, 2)
    assert again[1].headers.get("ce-id") == delivered[0]["eventId"]
    assert ctl("events", "deliveries", "redeliver", sub["uid"], "no-such-event").code == 5
    # Disabled (as the server does after a 410 Gone), then enabled again (of both flags, the last counts).
    assert ctl.json("events", "subscriptions", "update", sub["uid"], "--disabled")["disabled"] is True
    r = ctl("events", "deliveries", "redeliver", sub["uid"], delivered[0]["eventId"])
    assert r.code == 6 and "enable it first" in r.err, r
    enabled = ctl.json("events", "subscriptions", "update", sub["uid"], "--disabled", "--enabled")
    assert "disabled" not in enabled and enabled["types"] == [CREATED] and enabled["sink"] == rx.url(hook)
    assert ctl("events", "deliveries", "redeliver", sub["uid"], delivered[0]["eventId"]).code == 0
    assert ctl("events", "subscriptions", "rm", sub["uid"]).code == 0
    assert ctl.json("events", "subscriptions", "ls") == []


@pytest.mark.parametrize("fmt", ["table", "wide", "json", "yaml"])
def test_create_shows_the_signing_secret_once_in_every_format(es: Server, rx: Receiver, tmp_path: Path,
                                                              fmt: str) -> None:  # fmt: skip
    ctl = Ctl(es, tmp_path, es.token)
    org = unique("org")
    ctl.json("iam", "groups", "create", org)
    r = ctl("events", "subscriptions", "create", "--sink", rx.url("/hook/" + secrets.token_hex(6)), "--parent", org,
            "-o", fmt)  # fmt: skip
    assert r.code == 0, r.err
    shown = [w for w in r.out.replace('"', " ").split() if w.startswith("whsec_")]
    assert len(shown) == 1, r.out
    assert "signing secret" in r.err and "only this once" in r.err
    # Never again: not in get or ls, whatever the format.
    uid = ctl.json("events", "subscriptions", "ls", "--parent", org)[0]["uid"]
    assert "whsec_" not in ctl("events", "subscriptions", "get", uid, "-o", fmt).out
    assert "whsec_" not in ctl("events", "subscriptions", "ls", "--parent", org, "-o", fmt).out
