"""The registry data plane: pushes through a real Distribution registry with notifications on, and the token
service.

    python bench/registry.py --backend sqlite|postgres|both [--images 200] [--duration 10]

Per backend: a fresh database, `platform-api serve` pinned to core 0, `platform-api bootstrap`, then
`platform-api registry-config` and `docker-registry serve` on loopback (Debian's docker-registry 2.8; skopeo
pushes). Each of `--images` small OCI images (one config, two layers of a few hundred bytes) is pushed
by `skopeo copy` to a repo of its own; from the moment skopeo exits (the registry has acknowledged the
push) we poll the API every 2 ms until the repo's tag is there: that delay's p50/p99 is reported (the
notification's trip, reading the image back from the registry, the writes). Then wrk (core 1, 64
connections) asks `/registry/token` for pull,push on one repo with HTTP Basic: tokens/s and p99.
Writes bench/results/registry-<time>.json.
"""

from __future__ import annotations

import argparse
import base64
import json
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from common import (
    RESULTS,
    ROOT,
    add_backend_options,
    backends,
    cli,
    free_port,
    git_commit,
    log,
    pct,
    results_dir,
    scratch_database,
    serve,
    write_json,
)
from run import SERVER_CPU, require_tools, wrk

from tests.helpers.oci_layouts import manifest, write_layout


def _get(base: str, token: str, path: str) -> Any:
    request = urllib.request.Request(base + path, headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(request, timeout=30) as r:
        return json.loads(r.read())


def _visible(base: str, token: str, org: str, name: str) -> bool:
    repos = _get(base, token, f"/registry/v2/repos?uidp.children_of={org}&name={name}").get("repos", [])
    if not repos:
        return False
    return bool(_get(base, token, f"/registry/v2/tags?uidp.children_of={repos[0]['uid']}").get("tags"))


def _registry(out: Path, database: str, server_url: str) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    printed = json.loads(cli(database, "registry-config", "--out", str(out), "--storage", str(out / "data"),
                             "--registry-addr", f"127.0.0.1:{port}", "--server-url", server_url))  # fmt: skip
    with open(out / "registry.log", "wb") as registry_log:  # the child keeps its own descriptor
        proc = subprocess.Popen(["taskset", "-c", "1", "docker-registry", "serve", printed["config"]],
                                stdout=registry_log, stderr=subprocess.STDOUT)  # fmt: skip
    for _ in range(100):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/v2/", timeout=1)
        except urllib.error.HTTPError as e:
            if e.code == 401:
                return proc, f"127.0.0.1:{port}"
        except OSError:
            pass
        time.sleep(0.1)
    proc.kill()
    raise RuntimeError("docker-registry did not start: " + (out / "registry.log").read_text())


def run_backend(backend: str, args: argparse.Namespace, stamp: str) -> dict[str, Any]:
    log(f"\n== {backend}")
    with (
        scratch_database(backend, RESULTS / f"registry-{stamp}.db", "pa_bench_", args.pg_url) as url,
        tempfile.TemporaryDirectory(prefix="bench-registry-") as tmp,
    ):
        server = serve(url, RESULTS / f"server-registry-{backend}-{stamp}.log", cpu=SERVER_CPU)
        registry = None
        try:
            boot = json.loads(cli(url, "bootstrap"))
            token, org = boot["token"], boot["organization"]
            name = _get(server.url, token, f"/iam/v2/groups/{org}")["name"]
            registry, where = _registry(Path(tmp) / "registry", url, server.url)
            delays, pushes = [], []
            for i in range(args.images):
                layout = Path(tmp) / f"layout-{i}"
                write_layout(layout, {"latest": manifest(layout, "linux", "amd64", layers=(300, 200))})
                started = time.perf_counter()
                p = subprocess.run(["skopeo", "copy", "--dest-tls-verify=false", "--dest-creds", f"_token:{token}",
                                    f"oci:{layout}:latest", f"docker://{where}/{name}/img-{i}:latest"],
                                   capture_output=True, text=True, timeout=120)  # fmt: skip
                acknowledged = time.perf_counter()
                if p.returncode != 0:
                    raise RuntimeError(f"push {i} failed: {p.stderr}")
                while not _visible(server.url, token, org, f"img-{i}"):
                    if time.perf_counter() - acknowledged > 30:
                        raise RuntimeError(f"image {i}: not visible 30 s after the push")
                    time.sleep(0.002)
                delays.append((time.perf_counter() - acknowledged) * 1000)
                pushes.append((acknowledged - started) * 1000)
                shutil.rmtree(layout)
            log(f"  {args.images} pushes: visible after p50 {pct(delays, 0.5):.1f} ms, p99 {pct(delays, 0.99):.1f} ms"
                f" (skopeo push p50 {pct(pushes, 0.5):.0f} ms)")  # fmt: skip
            basic = base64.b64encode(f"_token:{token}".encode()).decode()
            query = f"/registry/token?service=platform-api-registry&scope=repository:{name}/img-0:pull,push"
            r = wrk(server.url + query, 64, args.duration, None, "", header=f"Authorization: Basic {basic}")
            log(f"  /registry/token: {r['rps']:,.0f} tokens/s, p99 {r['p99_ms']:.2f} ms")
            return {
                "backend": backend,
                "images": args.images,
                "visible_after_push_ms": {"p50": pct(delays, 0.5), "p99": pct(delays, 0.99), "max": max(delays)},
                "skopeo_push_ms": {"p50": pct(pushes, 0.5), "p99": pct(pushes, 0.99)},
                "token_endpoint": r,
            }
        finally:
            if registry is not None:
                registry.terminate()
                registry.wait(10)
            server.stop()


def _interrupt(*_: Any) -> None:
    raise KeyboardInterrupt


def main() -> None:
    p = argparse.ArgumentParser(description="Benchmark the registry data plane (see bench/README.md)")
    add_backend_options(p)
    p.add_argument("--images", type=int, default=200, help="images pushed, one repo each")
    p.add_argument("--duration", type=int, default=10, help="seconds of wrk on the token endpoint")
    args = p.parse_args()
    require_tools()
    for tool in ("docker-registry", "skopeo"):
        if shutil.which(tool) is None:
            sys.exit(f"{tool} is not installed: apt-get install -y docker-registry skopeo")
    results_dir()
    signal.signal(signal.SIGTERM, _interrupt)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    try:
        done = [run_backend(b, args, stamp) for b in backends(args)]
    except KeyboardInterrupt:
        sys.exit("interrupted: servers stopped, scratch databases removed")
    report = {"time": stamp, "git_commit": git_commit(), "server_cpu": SERVER_CPU,
              "backends": {b["backend"]: b for b in done}}  # fmt: skip
    out = write_json(RESULTS / f"registry-{stamp}.json", report)
    print(f"\nresults: {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
