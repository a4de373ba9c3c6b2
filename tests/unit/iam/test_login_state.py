"""A pending login sealed into its cookie (signin/login_state.py, core/sealed.py): opens only for its own state,
unaltered, before it expires, under the server's key; and it fits a cookie."""

from __future__ import annotations

import asyncio
import os
import time

import msgspec

from platform_api.core import sealed
from platform_api.signin import login_state
from platform_api.signin.login_state import LoginStates, Pending


def states() -> LoginStates:
    s = LoginStates(None)  # type: ignore[arg-type]  # the key is set here: no database
    s._key = os.urandom(32)
    return s


def pending(**changes: object) -> Pending:
    p = Pending("v" * 64, "n" * 43, "h" * 64, int(time.time()) + 600, "http://127.0.0.1:9/cb", state="client")
    return msgspec.structs.replace(p, **changes)


def test_a_pending_login_opens_for_its_state_only() -> None:
    s, p = states(), pending()
    value = asyncio.run(s.seal("state-1", p))
    assert value is not None
    assert asyncio.run(s.open("state-1", value)) == p
    assert asyncio.run(s.open("state-2", value)) is None  # another login's state
    assert asyncio.run(s.open("state-1", value[:-2] + ("AA" if not value.endswith("AA") else "BB"))) is None
    assert asyncio.run(states().open("state-1", value)) is None  # another server's key
    assert asyncio.run(s.open("state-1", "not base64 !")) is None


def test_an_expired_pending_login_opens_to_nothing() -> None:
    s = states()
    value = asyncio.run(s.seal("state-1", pending(expires=int(time.time()) - 1)))
    assert value is not None and asyncio.run(s.open("state-1", value)) is None


def test_the_largest_accepted_login_fits_a_cookie() -> None:
    """Far below a browser's 4 KiB per cookie; /oauth refuses a login whose parameters would not fit."""
    s = states()
    typical = pending(scopes=["a" * 40 + "/" + "b" * 16] * 3, invite="painv_" + "x" * 40, headless="c" * 87)
    value = asyncio.run(s.seal("state", typical))
    assert value is not None and len(value) < 1500
    huge = pending(redirect="http://127.0.0.1:9/" + "x" * 2000, state="s" * 256, invite="i" * 256)
    assert asyncio.run(s.seal("state", huge)) is None
    cookie = f"{login_state.cookie_name('s' * 256)}={'v' * login_state.MAX_COOKIE_CHARS}; Path=/oauth/callback"
    assert len(cookie + "; Max-Age=600; HttpOnly; SameSite=lax; Secure") < 4096


def test_sealed_data_is_bound_to_its_context() -> None:
    key = os.urandom(32)
    box = sealed.seal(key, b"data", b"context")
    assert sealed.unseal(key, box, b"context", 100) == b"data"
    assert sealed.unseal(key, box, b"other", 100) is None
    assert sealed.unseal(key, box, b"context", len(box) - 1) is None  # over the cap: not even decoded
    assert sealed.unseal(key, box[:10], b"context", 100) is None
