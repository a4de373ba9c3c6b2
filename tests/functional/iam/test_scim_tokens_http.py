"""SCIM provisioning credentials of identity providers over HTTP/JSON (reference 6.5): generate, regenerate
with overlap, revoke, enable (two owners needed), etags, states on Get, tokens shown once, on both backends.
"""

from __future__ import annotations

import re
import time
from datetime import datetime
from typing import Any

import httpx

from platform_api.iam import identity_providers
from tests.helpers import (
    Server,
    assert_denied,
    assert_error,
    assert_not_found,
    mk_idp,
    mk_org,
    never_shows,
    ok,
    run_db,
)

PATH = "/iam/v2/identityProviders"
TOKEN = re.compile(r"pascim_[0-9a-f]{64}")


def epoch(ts: str) -> float:
    return datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp()


def scim(http: httpx.Client, idp: str) -> dict[str, Any]:
    return dict(ok(http.get(f"{PATH}/{idp}"))["scim"])


def valid(server: Server, idp: str, *tokens: str) -> list[bool]:
    async def go(database: Any) -> list[bool]:
        return [await identity_providers.scim_token_valid(database, idp, t) for t in tokens]

    return run_db(server, go)


def call(http: httpx.Client, idp: str, verb: str, **body: Any) -> httpx.Response:
    return http.post(f"{PATH}/{idp}:{verb}", json=body)


def test_generate_and_get(server: Server, http: httpx.Client, org: str) -> None:
    idp = mk_idp(http, org)["uid"]
    assert scim(http, idp)["credentialState"] == "CREDENTIAL_STATE_NOT_ISSUED"
    before = time.time()
    r = call(http, idp, "generateScimToken")
    out = ok(r)
    token = out["token"]
    assert TOKEN.fullmatch(token) and out["identityProviderUid"] == idp and out["etag"]
    assert out["endpointUrl"].endswith(f"/scim/v2/{idp}")
    assert before + 365 * 86400 - 5 < epoch(out["expireTime"]) < time.time() + 365 * 86400 + 5
    status = scim(http, idp)
    assert status == {"endpointUrl": out["endpointUrl"], "tokenExpireTime": out["expireTime"],
                      "credentialState": "CREDENTIAL_STATE_LIVE", "etag": out["etag"]}  # fmt: skip
    # Not idempotent: one token at a time.
    assert_error(call(http, idp, "generateScimToken"), 400, 9)
    # Disabled until enabled: the token does not authenticate provisioning yet.
    assert valid(server, idp, token) == [False]
    never_shows([http.get(f"{PATH}/{idp}"), http.get(PATH)], token, token[7:])


def test_expiry_options(http: httpx.Client, org: str) -> None:
    idp = mk_idp(http, org)["uid"]
    soon = datetime.fromtimestamp(time.time() + 86400).astimezone().isoformat()
    for body, field in [
        ({"expireTime": soon, "neverExpires": True}, "expire_time"),
        ({"expireTime": "2001-01-01T00:00:00Z"}, "expire_time"),
        ({"expireTime": "2999-01-01T00:00:00Z"}, "expire_time"),
    ]:
        assert_error(call(http, idp, "generateScimToken", **body), 400, 3, field=field)
    out = ok(call(http, idp, "generateScimToken", expireTime=soon))
    assert abs(epoch(out["expireTime"]) - epoch(soon)) < 0.01
    other = mk_idp(http, mk_org(http))["uid"]
    never = ok(call(http, other, "generateScimToken", neverExpires=True))
    assert "expireTime" not in never and "tokenExpireTime" not in scim(http, other)


def test_regenerate_with_overlap(server: Server, http: httpx.Client, org: str) -> None:
    idp = mk_idp(http, org)["uid"]
    assert_not_found(call(http, idp, "regenerateScimToken", etag="x"), idp)
    first = ok(call(http, idp, "generateScimToken"))
    assert_error(call(http, idp, "regenerateScimToken"), 400, 3, field="etag")
    assert_error(call(http, idp, "regenerateScimToken", etag="stale"), 409, 10)
    assert_error(call(http, idp, "regenerateScimToken", etag=first["etag"], overlap="-1s"), 400, 3, field="overlap")
    before = time.time()
    second = ok(call(http, idp, "regenerateScimToken", etag=first["etag"]))
    assert TOKEN.fullmatch(second["token"]) and second["token"] != first["token"] and second["etag"] != first["etag"]
    assert second["requestedOverlap"] == "3600s"
    assert before + 3600 - 5 < epoch(second["previousTokenExpireTime"]) < time.time() + 3600 + 5
    status = scim(http, idp)
    assert status["credentialState"] == "CREDENTIAL_STATE_ROTATING"
    assert status["previousTokenExpireTime"] == second["previousTokenExpireTime"] and status["etag"] == second["etag"]
    # Capped at a day; zero ends the previous token at once.
    third = ok(call(http, idp, "regenerateScimToken", etag=second["etag"], overlap="90000s"))
    assert third["requestedOverlap"] == "86400s"
    fourth = ok(call(http, idp, "regenerateScimToken", etag=third["etag"], overlap="0s"))
    assert "previousTokenExpireTime" not in fourth and fourth["requestedOverlap"] == "0s"
    assert scim(http, idp)["credentialState"] == "CREDENTIAL_STATE_LIVE"
    never_shows([http.get(f"{PATH}/{idp}")], first["token"], second["token"], fourth["token"])


def test_enable_needs_two_owners_and_tokens_authenticate(server: Server, http: httpx.Client, org: str) -> None:
    idp = mk_idp(http, org)["uid"]
    assert_not_found(call(http, idp, "setScimEnabled", enabled=True, etag="x"), idp)
    gen = ok(call(http, idp, "generateScimToken"))
    assert_error(call(http, idp, "setScimEnabled", enabled=True), 400, 3, field="etag")
    assert_error(call(http, idp, "setScimEnabled", enabled=True, etag="stale"), 409, 10)
    body = assert_error(call(http, idp, "setScimEnabled", enabled=True, etag=gen["etag"]), 400, 9)
    assert "owners" in body["message"]
    server.identity_with_role(org, "owner")
    on = ok(call(http, idp, "setScimEnabled", enabled=True, etag=gen["etag"]))
    assert on["enabled"] is True and on["identityProviderUid"] == idp and on["etag"] != gen["etag"]
    # Setting the current value changes nothing.
    assert ok(call(http, idp, "setScimEnabled", enabled=True, etag=on["etag"])) == on
    assert scim(http, idp)["enabled"] is True
    assert valid(server, idp, gen["token"], "pascim_" + "0" * 64, "") == [True, False, False]
    rot = ok(call(http, idp, "regenerateScimToken", etag=on["etag"]))
    assert valid(server, idp, gen["token"], rot["token"]) == [True, True]
    # Revoking ends every token at once and keeps SCIM enabled.
    rev = ok(call(http, idp, "revokeScimToken"))
    assert rev["enabled"] is True and rev["identityProviderUid"] == idp and rev["revokeTime"] and rev["etag"]
    assert valid(server, idp, gen["token"], rot["token"]) == [False, False]
    status = scim(http, idp)
    assert status["credentialState"] == "CREDENTIAL_STATE_REVOKED" and "tokenExpireTime" not in status
    # After a revocation a new token may be generated.
    again = ok(call(http, idp, "generateScimToken"))
    assert valid(server, idp, again["token"]) == [True]
    off = ok(call(http, idp, "setScimEnabled", enabled=False, etag=again["etag"]))
    assert "enabled" not in off and valid(server, idp, again["token"]) == [False]


def test_deleted_with_the_provider(server: Server, http: httpx.Client, org: str) -> None:
    idp = mk_idp(http, org)["uid"]
    ok(call(http, idp, "generateScimToken"))
    ok(http.delete(f"{PATH}/{idp}"))

    async def go(database: Any) -> Any:
        return await database.fetchval("SELECT COUNT(*) FROM scim_credentials WHERE idp_uid = $1", idp)

    assert run_db(server, go) == 0
    assert_not_found(call(http, idp, "generateScimToken"), idp)


def test_authorization(server: Server, http: httpx.Client, org: str) -> None:
    idp = mk_idp(http, org)["uid"]
    gen = ok(call(http, idp, "generateScimToken"))
    _, viewer = server.identity_with_role(org, "viewer")
    with server.client(viewer) as c:
        assert scim(c, idp)["etag"] == gen["etag"]
        assert_denied(call(c, idp, "revokeScimToken"))
        assert_denied(call(c, idp, "regenerateScimToken", etag=gen["etag"]))
    _, outsider = server.identity_with_role(mk_org(http), "owner")
    with server.client(outsider) as c:
        assert_not_found(call(c, idp, "revokeScimToken"), idp, "IdentityProvider")
        assert_not_found(call(c, idp, "setScimEnabled", enabled=True, etag=gen["etag"]), idp)
