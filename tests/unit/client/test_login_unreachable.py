"""A login against a server that does not answer says which setting names the server (the other connection
errors of the client do: errors.HTTP_SETTING)."""

from __future__ import annotations

import pytest

from platform_api.client import login
from tests.helpers import free_port


def test_an_unreachable_server_is_named_with_the_setting_to_change() -> None:
    url = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    with pytest.raises(login.LoginRefused) as e:
        login.check_start(url, {}, timeout=5)
    text = str(e.value)
    assert e.value.code == 14 and f"cannot reach {url}" in text, text
    assert "PLATFORM_API_URL" in text and "--server" in text, text
