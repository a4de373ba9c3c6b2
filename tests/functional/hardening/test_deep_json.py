"""JSON from outside nested deeper than the decoder goes is 400 INVALID_ARGUMENT, not a 500 (issue 26, item 13):
Distribution's notification envelope (`POST /registry/notifications`, with the registry's own secret: no
registry is needed, the envelope never reaches one) and an API request body, each at the probed 400,000
levels. (Shallower cases on every API route: test_hardening_input.py.)"""

from __future__ import annotations

import httpx
import pytest

from platform_api.registry.dataplane import notifications
from platform_api.service import runtime
from tests.helpers import Server, assert_error, run_db

DEPTH = 400_000  # as probed: 800 KB, within the envelope's and an API body's 1 MiB
DEEP_ENVELOPES = {
    "unknown-field-arrays": b'{"x": ' + b"[" * DEPTH + b"]" * DEPTH + b"}",
    "inside-an-event-objects": b'{"events": [{"target": {"x": '
    + b'{"a": ' * (DEPTH // 6)
    + b"1"
    + b"}" * (DEPTH // 6)
    + b"}}]}",
}


def secret(server: Server) -> str:
    return run_db(server, lambda db: runtime.service_secret(db, notifications.SECRET)).hex()


@pytest.mark.parametrize("body", DEEP_ENVELOPES.values(), ids=DEEP_ENVELOPES.keys())
def test_a_deeply_nested_notification_envelope_is_invalid_argument(server: Server, body: bytes) -> None:
    headers = {"authorization": "Bearer " + secret(server), "content-type": "application/json"}
    url = server.base_url + notifications.NOTIFY_PATH
    r = httpx.post(url, content=body, headers=headers, timeout=30)
    assert_error(r, 400, 3, "events")
    assert "nested too deeply" in r.json()["message"]
    ok = httpx.post(url, json={"events": []}, headers=headers)
    assert ok.status_code == 200 and ok.json() == {}, ok.text


def test_a_deeply_nested_api_body_is_invalid_argument(server: Server) -> None:
    body = b'{"name": "x", "description": ' + b"[" * DEPTH + b"]" * DEPTH + b"}"
    r = server.http.post(f"/iam/v2/groups/{server.owner_org}", content=body,
                         headers={"content-type": "application/json"}, timeout=30)  # fmt: skip
    assert_error(r, 400, 3, "body")
    assert "nested too deeply" in r.json()["message"]
