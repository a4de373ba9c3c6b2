"""A real Distribution registry (`docker-registry`, Debian's 2.8 package) on loopback, configured by
`platform-api registry-config` for a test server, and `skopeo` as its client."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from tests.helpers.oci_layouts import manifest, write_layout
from tests.helpers.server import Server, free_port

TOOLS = ("docker-registry", "skopeo")
INSTALL = "apt-get install -y docker-registry skopeo"
# Set to 1, the tests that need the tools skip when they are missing; otherwise the run stops at its start
# (tests/conftest.py): a fresh machine runs every test, or says what to install.
SKIP = os.environ.get("PLATFORM_API_TEST_SKIP_REGISTRY", "") == "1"


def missing_tools() -> list[str]:
    return [t for t in TOOLS if shutil.which(t) is None]


needs_distribution = pytest.mark.skipif(
    SKIP and bool(missing_tools()), reason=f"{' and '.join(TOOLS)} are not installed ({INSTALL})"
)


def tests_needing_tools(root: Path) -> list[Path]:
    """The test files under `root` that drive the registry (they mark their tests with needs_distribution)."""
    return sorted(p for p in root.rglob("test_*.py") if "needs_distribution" in p.read_text())


def stop_reason(selected: list[str], root: Path) -> str | None:
    """Why a run of the paths `selected` (pytest's arguments, node ids allowed) cannot start: the one command
    that installs the missing tools when it includes a test that needs them; None otherwise."""
    missing = missing_tools()
    if SKIP or not missing:
        return None
    paths = [Path(a.split("::", 1)[0]).resolve() for a in selected] or [root]
    if not any(p == f or p in f.parents for f in tests_needing_tools(root) for p in paths):
        return None
    return (f"{' and '.join(missing)} not found, needed by the registry tests: run `{INSTALL}` "
            "(or set PLATFORM_API_TEST_SKIP_REGISTRY=1 to skip those tests)")  # fmt: skip


@contextmanager
def registry_for(server: Server, tmp: Path) -> Iterator[str]:
    """A docker-registry serving with the config `registry-config` printed for `server`; its host:port."""
    port = free_port()
    args = ["--out", str(tmp / "conf"), "--storage", str(tmp / "data"), "--registry-addr", f"127.0.0.1:{port}"]
    printed = json.loads(server.cli("registry-config", *args, "--server-url", server.base_url))
    assert printed["realm"] == server.base_url + "/registry/token"
    assert printed["notifications"] == server.base_url + "/registry/notifications"
    with open(tmp / "registry.log", "wb") as log:
        proc = subprocess.Popen(["docker-registry", "serve", printed["config"]], stdout=log, stderr=subprocess.STDOUT)
        try:
            for _ in range(100):
                try:
                    if httpx.get(f"http://127.0.0.1:{port}/v2/").status_code == 401:
                        break
                except httpx.TransportError:
                    pass
                time.sleep(0.1)
            else:
                raise RuntimeError("docker-registry did not start: " + (tmp / "registry.log").read_text())
            yield f"127.0.0.1:{port}"
        finally:
            proc.terminate()
            proc.wait(10)


def layout(root: Path, arch: str = "amd64") -> Path:
    """An OCI layout with one image (linux/<arch>) tagged `latest`."""
    write_layout(root, {"latest": manifest(root, "linux", arch)})
    return root


def skopeo(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["skopeo", *args], capture_output=True, text=True, timeout=120)


def push(source: Path, registry: str, path: str, token: str, tag: str = "latest") -> subprocess.CompletedProcess[str]:
    return skopeo("copy", "--dest-tls-verify=false", "--dest-creds", f"_token:{token}", f"oci:{source}:latest",
                  f"docker://{registry}/{path}:{tag}")  # fmt: skip


def pull(registry: str, path: str, token: str, dest: Path, tag: str = "latest") -> subprocess.CompletedProcess[str]:
    return skopeo("copy", "--src-tls-verify=false", "--src-creds", f"_token:{token}",
                  f"docker://{registry}/{path}:{tag}", f"oci:{dest}:latest")  # fmt: skip


def manifest_of(registry: str, path: str, token: str, tag: str = "latest") -> tuple[str, dict[str, object]]:
    """The digest and the manifest the registry holds for `path:tag` (skopeo may rewrite what it pushes)."""
    ref = f"docker://{registry}/{path}:{tag}"
    raw = skopeo("inspect", "--raw", "--tls-verify=false", "--creds", f"_token:{token}", ref)
    assert raw.returncode == 0, raw.stderr
    return "sha256:" + hashlib.sha256(raw.stdout.encode()).hexdigest(), json.loads(raw.stdout)
