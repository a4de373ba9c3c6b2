"""A server started with `--no-grpc` says so in its discovery document (`"grpc": null`): the client and
platformctl work with it over HTTP/JSON, and a gRPC call is refused before any connection is tried, naming the
server's setting and the transport to use instead."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from platform_api.client import Client, Group, Unimplemented
from platform_api.client.discovery import PATH
from tests.functional.ctl.cli import Ctl
from tests.helpers import Server, start_server, stop_server, unique


@pytest.fixture(scope="module")
def http_only(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    s = start_server("sqlite", tmp_path_factory.mktemp("no-grpc"), "--no-grpc")
    yield s
    stop_server(s)


@pytest.fixture(autouse=True)
def _no_transport_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PLATFORM_API_GRPC", raising=False)
    monkeypatch.delenv("PLATFORM_API_TRANSPORT", raising=False)


def test_the_document_says_there_is_no_grpc(http_only: Server) -> None:
    r = httpx.get(http_only.base_url + PATH, timeout=10)
    assert r.status_code == 200 and r.json() == {"grpc": None}


def test_the_client_works_over_http_and_names_the_setting_over_grpc(http_only: Server) -> None:
    with Client(http_only.base_url, transport="http", token=http_only.token, use_login_cache=False) as c:
        org = c.iam.create_group("", Group(name=unique("org")))
        assert c.iam.get_group(org.uid).name == org.name
    with Client(http_only.base_url, token=http_only.token, use_login_cache=False, retries=0) as c:
        assert c.transport_name == "grpc" and c.grpc_target == ""
        with pytest.raises(Unimplemented) as e:
            c.iam.get_group(org.uid)
    text = str(e.value)
    assert f"the server at {http_only.base_url} serves no gRPC" in text and "--no-grpc" in text, text
    assert "PLATFORM_API_TRANSPORT=http" in text and "--transport http" in text, text


def test_platformctl_works_over_http(http_only: Server, tmp_path: Path) -> None:
    ctl = Ctl(http_only, tmp_path, http_only.token, "http")
    del ctl.env["PLATFORM_API_GRPC"]  # nothing listens there
    name = unique("org")
    assert ctl.json("iam", "groups", "create", name)["name"] == name
    assert [g["name"] for g in ctl.json("iam", "groups", "ls") if g["name"] == name] == [name]
    r = ctl("api", "GET", "/iam/v2/groups", "-f", "name=" + name)
    assert r.code == 0 and name in r.out, r
    # gRPC, the default: refused at once with what to use instead, one line.
    ctl.env["PLATFORM_API_TRANSPORT"] = "grpc"
    r = ctl("iam", "groups", "ls")
    assert r.code != 0 and "serves no gRPC" in r.err and "--transport http" in r.err, r
    assert len(r.err.strip().splitlines()) == 1 and "Traceback" not in r.err, r.err
