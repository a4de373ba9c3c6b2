"""A registry's blob redirects, followed when a notification makes us read an image back (dataplane/content.py),
pass the outbound checks every URL of a caller's or a third party's does (core/netcheck: https, a public
address, connected to as checked; http and loopback only under `--insecure-allow-loopback`), at most 3 of them
(issue 26, info item). The registry is a small stand-in on loopback: Distribution on a filesystem never
redirects; object storage behind it does. Both backends."""

from __future__ import annotations

import hashlib
import json
import secrets
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest

from platform_api.registry.dataplane import notifications
from platform_api.service import runtime
from tests.helpers import BACKENDS, Server, mk_org, mk_repo, run_db, start_server, stop_server

OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json"


class Registry:
    """Answers HEAD/GET of one image's manifest, and redirects GET of its config blob to `redirect` (a
    template: {base} is this server, {port} its port), which may be its own `/storage/<n>` path serving the config after
    n more redirects to itself. Records the paths asked."""

    def __init__(self) -> None:
        self.config = json.dumps({"architecture": "amd64", "os": "linux",
                                  "rootfs": {"type": "layers", "diff_ids": []}}).encode()  # fmt: skip
        self.config_digest = "sha256:" + hashlib.sha256(self.config).hexdigest()
        layer = "sha256:" + secrets.token_hex(32)
        self.manifest = json.dumps({
            "schemaVersion": 2, "mediaType": OCI_MANIFEST,
            "config": {"mediaType": "application/vnd.oci.image.config.v1+json", "digest": self.config_digest,
                       "size": len(self.config)},
            "layers": [{"mediaType": "application/vnd.oci.image.layer.v1.tar+gzip", "digest": layer, "size": 10}],
        }).encode()  # fmt: skip
        self.digest = "sha256:" + hashlib.sha256(self.manifest).hexdigest()
        self.redirect = "{base}/storage/0"
        self.asked: list[str] = []
        registry = self

        class Handler(BaseHTTPRequestHandler):
            def do_HEAD(self) -> None:
                self._answer(body=False)

            def do_GET(self) -> None:
                self._answer(body=True)

            def _answer(self, body: bool) -> None:
                registry.asked.append(self.path)
                if "/manifests/" in self.path:
                    self._send(200, registry.manifest, OCI_MANIFEST, body, {"docker-content-digest": registry.digest})
                elif self.path.endswith("/blobs/" + registry.config_digest):
                    self._send(
                        307,
                        b"",
                        "",
                        body,
                        {"location": registry.redirect.format(base=registry.base, port=registry.port)},
                    )
                elif self.path.startswith("/storage/"):
                    more = int(self.path.rsplit("/", 1)[1])
                    if more:
                        self._send(302, b"", "", body, {"location": f"/storage/{more - 1}"})
                    else:
                        self._send(200, registry.config, "application/octet-stream", body, {})
                else:
                    self._send(404, b"", "", body, {})

            def _send(self, status: int, data: bytes, media: str, body: bool, headers: dict[str, str]) -> None:
                self.send_response(status)
                for k, v in {**headers, **({"content-type": media} if media else {})}.items():
                    self.send_header(k, v)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                if body:
                    self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.base = f"http://127.0.0.1:{self.port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def registry() -> Iterator[Registry]:
    r = Registry()
    yield r
    r.close()


@pytest.fixture(scope="module", params=BACKENDS)
def loose(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server that may connect to loopback over http (development and tests only)."""
    s = start_server(request.param, tmp_path_factory.mktemp("redirects"), "--insecure-allow-loopback")
    yield s
    stop_server(s)


def pushed(server: Server, registry: Registry) -> dict[str, Any]:
    """What the server answers a notification of a push of the registry's image to a new repo of its own."""

    async def configure(db: Any) -> str:
        await runtime.set_service_value(db, notifications.REGISTRY_URL, registry.base.encode())
        return (await runtime.service_secret(db, notifications.SECRET)).hex()

    secret = run_db(server, configure)
    org = mk_org(server.http)
    org_name = server.http.get(f"/iam/v2/groups/{org}").json()["name"]
    repo = mk_repo(server.http, org)["name"]
    envelope = {"events": [{
        "id": secrets.token_hex(8), "timestamp": "2026-11-28T00:00:00Z", "action": "push",
        "target": {"mediaType": OCI_MANIFEST, "digest": registry.digest, "repository": f"{org_name}/{repo}",
                   "tag": "latest"},
        "request": {"addr": "127.0.0.1:1", "method": "PUT", "useragent": "test"},
        "actor": {"name": ""}, "source": {"addr": "registry:5000", "instanceID": "i-1"},
    }]}  # fmt: skip
    registry.asked.clear()
    r = httpx.post(server.base_url + notifications.NOTIFY_PATH, json=envelope,
                   headers={"authorization": "Bearer " + secret}, timeout=30)  # fmt: skip
    return {"status": r.status_code, **r.json()}


def test_a_redirect_to_loopback_storage_is_followed_under_the_insecure_flag(loose: Server, registry: Registry) -> None:
    registry.redirect = "{base}/storage/2"  # then two more redirects, relative ones: three in all
    assert pushed(loose, registry) == {"status": 200, "pushed": 1}
    assert [p for p in registry.asked if p.startswith("/storage/")] == ["/storage/2", "/storage/1", "/storage/0"]


@pytest.mark.parametrize("target", ["{base}/storage/3", "http://[::1]evil.example/storage/0"])
def test_more_than_three_redirects_or_a_malformed_one_are_not_followed(loose: Server, registry: Registry,
                                                                       target: str) -> None:  # fmt: skip
    """As a registry that does not answer as it should: 503, the registry delivers the notification again."""
    registry.redirect = target
    answer = pushed(loose, registry)
    assert answer["status"] == 503 and answer["code"] == 14, answer
    assert "/storage/0" not in registry.asked


@pytest.mark.parametrize(
    "target",
    ["http://0.0.0.0:{port}/storage/0", "http://[::]:{port}/storage/0", "http://[::ffff:0.0.0.0]:{port}/storage/0",
     "http://2130706433:{port}/storage/0", "http://user@127.0.0.1:{port}/storage/0", "ftp://127.0.0.1/x"],
)  # fmt: skip
def test_a_redirect_to_a_non_public_or_odd_target_is_refused(loose: Server, registry: Registry,
                                                                   target: str) -> None:  # fmt: skip
    """Each target, were it connected to, is on this machine (tests talk to loopback only); the rules refusing
    it are netcheck's (the other address classes: tests/unit/core/test_netcheck.py)."""
    registry.redirect = target
    assert pushed(loose, registry) == {"status": 200, "refused": 1}
    assert "/storage/0" not in registry.asked


def test_without_the_insecure_flag_loopback_and_http_are_refused(server: Server, registry: Registry) -> None:
    registry.redirect = "{base}/storage/0"
    assert pushed(server, registry) == {"status": 200, "refused": 1}
    assert "/storage/0" not in registry.asked
