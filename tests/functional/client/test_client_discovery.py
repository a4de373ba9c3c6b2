"""The client finds a server's gRPC from its URL alone (`/.well-known/platform-api`, client/discovery.py), and
a connection that fails names the address tried and the setting to change. The suite's servers listen on
random ports, neither 8080 nor 9090: the old rule dialled gRPC on the HTTP port (`UNAVAILABLE: Socket closed`)."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from platform_api.client import Client, Unavailable
from platform_api.client.discovery import PATH
from tests.functional.ctl.cli import Ctl
from tests.helpers import Server, free_port


@pytest.fixture(autouse=True)
def _no_grpc_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PLATFORM_API_GRPC", raising=False)
    monkeypatch.delenv("PLATFORM_API_TRANSPORT", raising=False)


def test_the_server_publishes_its_grpc_port_anonymously(server: Server) -> None:
    r = httpx.get(server.base_url + PATH, timeout=10)
    assert r.status_code == 200 and r.headers["content-type"] == "application/json"
    assert r.json() == {"grpc": {"port": int(server.grpc_target.rsplit(":", 1)[1])}}


def test_the_client_reaches_grpc_through_the_document(server: Server) -> None:
    with Client(server.base_url, token=server.token, use_login_cache=False, retries=0) as c:
        assert c.transport_name == "grpc"
        assert c.iam.get_group(server.owner_org).uid == server.owner_org
        assert c.grpc_target == server.grpc_target


def test_platformctl_reaches_grpc_through_the_document(server: Server, tmp_path: Path) -> None:
    ctl = Ctl(server, tmp_path, server.token, "grpc")
    del ctl.env["PLATFORM_API_GRPC"]
    r = ctl("iam", "groups", "get", server.owner_org, "-o", "json")
    assert r.code == 0, r.err
    assert r.json()["uid"] == server.owner_org


@pytest.mark.parametrize("transport", ["grpc", "http"])
def test_a_dead_server_is_named_with_the_setting_to_change(transport: str) -> None:
    url = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    c = Client(url, transport=transport, retries=0, timeout=5, use_login_cache=False)
    with c, pytest.raises(Unavailable) as e:
        c.ping.ping()
    text = str(e.value)
    if transport == "grpc":  # the document could not be read: the old rule's address, and why
        assert url.removeprefix("http://") in text and f"derived from the server URL {url}" in text, text
        assert "PLATFORM_API_GRPC" in text and "platformctl --grpc" in text, text
    else:
        assert f"cannot connect to {url}" in text and "PLATFORM_API_URL" in text and "--server" in text, text


def test_a_wrong_grpc_address_is_named(server: Server) -> None:
    target = f"127.0.0.1:{free_port()}"
    c = Client(server.base_url, grpc=target, retries=0, timeout=5, use_login_cache=False)
    with c, pytest.raises(Unavailable) as e:
        c.ping.ping()
    assert f"the gRPC server at {target} (the gRPC address set)" in str(e.value), e.value
    assert "PLATFORM_API_GRPC" in str(e.value)


def test_platformctl_names_a_dead_server(server: Server, tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    for transport, setting in (("grpc", "--grpc"), ("http", "--server")):
        ctl = Ctl(server, tmp_path / transport, server.token, transport)
        del ctl.env["PLATFORM_API_GRPC"]
        ctl.env["PLATFORM_API_URL"] = url
        r = ctl("iam", "groups", "ls")
        assert r.code == 8, r.err
        assert "127.0.0.1:" + url.rsplit(":", 1)[1] in r.err and setting in r.err, r.err
        assert len(r.err.strip().splitlines()) == 1, r.err
