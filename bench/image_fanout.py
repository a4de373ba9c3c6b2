"""Image fan-out benchmark (issue 16, items 1 and 13): the cases the issue measured, on a fresh SQLite file.

    python bench/image_fanout.py [--src DIR] [--width 150] [--depth 3] [--wide 40] [--packages 500] [--shared 1000]

- nested: an OCI layout whose index lists another `width` times, `depth` indexes deep, the innermost listing
  one amd64 manifest `width` times and an arm64 one; `import oci` time, then GetArchitectures and GetSize of
  the outermost index (HTTP, one request each);
- resolved: an index of `wide` platform manifests tagged `latest`, an SBOM of `packages` packages on each
  (and on the index), then ListResolvedVulnsReports (gRPC, one day) with 1 ref and with 10 refs to it;
- shared config: `shared` manifests sharing one config blob of 8 MiB, in one index: `import oci` time;
- during every timed request a second client GETs /ping/v2/ping every 10 ms: the slowest ping is reported.

`--src DIR` serves and imports with the source tree DIR (e.g. an export of the commit before a change:
`git archive <commit> | tar -x -C DIR`) instead of this checkout; the client side is always this checkout.
One run, seconds; nothing is pinned (the machine's noise is in the numbers). Writes
bench/results/image-fanout-<time>.json. Not a test: nothing asserts timings.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import grpc
import httpx
from google.protobuf import timestamp_pb2

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(BENCH.parent))

from common import cli, cli_json, log, results_dir, scratch_database, serve, write_json  # noqa: E402

from platform_api.gen.chainguard.platform.advisory.v2 import advisory_pb2, advisory_pb2_grpc  # noqa: E402
from tests.helpers.oci_layouts import (  # noqa: E402
    CONFIG,
    LAYER,
    OCI_MANIFEST,
    descriptor,
    index,
    manifest,
    nested_layout,
    put_blob,
    put_json,
    write_layout,
)


class Pinger:
    """GETs /ping every 10 ms on its own connection while running; `during()` gives the slowest answer."""

    def __init__(self, url: str) -> None:
        self.url, self.samples, self.stop = url, [], threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        with httpx.Client(base_url=self.url, timeout=120) as c:
            while not self.stop.is_set():
                t0 = time.perf_counter()
                c.get("/ping/v2/ping")
                self.samples.append((t0, time.perf_counter() - t0))
                time.sleep(0.01)

    @contextmanager
    def during(self, into: dict[str, float], name: str) -> Iterator[None]:
        """Time the block as `name` (seconds) and the slowest ping that overlapped it as `name` + "_ping_max"."""
        t0 = time.perf_counter()
        yield
        t1 = time.perf_counter()
        time.sleep(0.05)  # the ping that waited on the request has come back
        overlapping = [d for start, d in self.samples if start < t1 and start + d > t0]
        into[name] = round(t1 - t0, 3)
        into[name + "_ping_max"] = round(max(overlapping, default=0.0), 3)

    def close(self) -> None:
        self.stop.set()
        self.thread.join()


def sbom(path: Path, names: list[str]) -> str:
    packages = [{"SPDXID": f"SPDXRef-{i}", "name": n, "versionInfo": "1.0-r0", "downloadLocation": "NONE"}
                for i, n in enumerate(names)]  # fmt: skip
    doc = {"spdxVersion": "SPDX-2.3", "dataLicense": "CC0-1.0", "SPDXID": "SPDXRef-DOCUMENT", "name": "s",
           "documentNamespace": "https://example.invalid/s",
           "creationInfo": {"created": "2031-01-01T00:00:00Z", "creators": ["Tool: test"]},
           "packages": packages}  # fmt: skip
    path.write_text(json.dumps(doc))
    return str(path)


def timed(fn: Callable[[], Any]) -> float:
    t0 = time.perf_counter()
    fn()
    return round(time.perf_counter() - t0, 3)


def run(args: argparse.Namespace, url: str, tmp: Path) -> dict[str, Any]:
    out: dict[str, Any] = {}
    server = serve(url, results_dir() / "image-fanout-server.log")
    boot = json.loads(cli(url, "bootstrap"))  # after serve: the token's issuer is the server's
    pinger = Pinger(server.url)
    try:
        http = httpx.Client(base_url=server.url, timeout=600, headers={"authorization": f"Bearer {boot['token']}"})
        repo = http.post(f"/registry/v2/repos/{boot['organization']}", json={"name": "nested"}).json()["uid"]
        d = nested_layout(tmp / "nested", args.width, args.depth)
        out["nested_import_s"] = timed(lambda: cli_json(url, "import", "oci", repo, str(tmp / "nested")))
        top = d["indexes"][0]["digest"]
        with pinger.during(out, "get_architectures_s"):
            r = http.get(f"/registry/v2/repos/{repo}/digests/{top}/architectures")
        assert r.json() == {"architectures": ["amd64", "arm64"]}, r.text
        with pinger.during(out, "get_size_s"):
            r = http.get(f"/registry/v2/repos/{repo}/digests/{top}/size")
        assert r.json()["architecture"] == "amd64", r.text
        log(f"  nested {args.width}x{args.depth}: {out}")

        wide = http.post(f"/registry/v2/repos/{boot['organization']}", json={"name": "wide"}).json()["uid"]
        root = tmp / "wide"
        platforms = [manifest(root, "linux", f"arch{n}") for n in range(args.wide)]
        idx = index(root, [descriptor(m) for m in platforms])
        write_layout(root, {"latest": idx})
        cli_json(url, "import", "oci", wide, str(root))
        common = [f"pkg-{n}" for n in range(args.packages * 9 // 10)]  # most packages shared, some per image
        for n, digest in enumerate([idx["digest"]] + [m["digest"] for m in platforms]):
            own = [f"own-{n}-{k}" for k in range(args.packages - len(common))]
            cli_json(url, "import", "sbom", wide, digest, sbom(tmp / "sbom.json", common + own))
        stub = advisory_pb2_grpc.SecurityAdvisoryServiceStub(
            grpc.intercept_channel(grpc.insecure_channel(f"127.0.0.1:{server.grpc_port}"), _Bearer(boot["token"]))
        )
        day = timestamp_pb2.Timestamp()
        day.FromJsonString("2031-01-01T00:00:00Z")
        for refs in (1, 10):
            req = advisory_pb2.ListResolvedVulnsReportsRequest(
                image_refs=[advisory_pb2.ImageRef(repo=wide)] * refs, start_time=day, end_time=day
            )
            with pinger.during(out, f"resolved_{refs}_refs_s"):
                got = stub.ListResolvedVulnsReports(req, timeout=600)
            assert len(got.resolved_vulns_reports) == 1
        log(f"  resolved {args.wide}-wide: {out}")

        shared = http.post(f"/registry/v2/repos/{boot['organization']}", json={"name": "shared"}).json()["uid"]
        root = tmp / "shared"
        config = put_blob(root, json.dumps({"os": "linux", "architecture": "amd64", "pad": "x" * ((8 << 20) - 100)})
                          .encode(), CONFIG)  # fmt: skip
        entries = []
        for n in range(args.shared):
            layer = put_blob(root, n.to_bytes(4, "big"), LAYER)
            doc = {"schemaVersion": 2, "mediaType": OCI_MANIFEST, "config": config, "layers": [layer]}
            entries.append(descriptor(put_json(root, doc, OCI_MANIFEST)))
        write_layout(root, {"latest": index(root, entries)})
        out["shared_config_import_s"] = timed(lambda: cli_json(url, "import", "oci", shared, str(root)))
        log(f"  shared config x{args.shared}: {out['shared_config_import_s']}")
        http.close()
    finally:
        pinger.close()
        server.stop()
    return out


class _Bearer(grpc.UnaryUnaryClientInterceptor):  # type: ignore[misc]
    def __init__(self, token: str) -> None:
        self.token = token

    def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        metadata = [*(details.metadata or ()), ("authorization", f"Bearer {self.token}")]
        return continuation(details._replace(metadata=metadata), request)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--src", type=Path, help="serve and import with this source tree (its src/ is put first)")
    p.add_argument("--width", type=int, default=150)
    p.add_argument("--depth", type=int, default=3)
    p.add_argument("--wide", type=int, default=40)
    p.add_argument("--packages", type=int, default=500)
    p.add_argument("--shared", type=int, default=1000, help="manifests sharing one 8 MiB config blob")
    args = p.parse_args()
    if args.src is not None:
        os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(args.src.resolve() / "src"),
                                                                 os.environ.get("PYTHONPATH")]))  # fmt: skip
    stamp = time.strftime("%Y%m%d-%H%M%S")
    with (
        tempfile.TemporaryDirectory() as tmp,
        scratch_database("sqlite", results_dir() / f"image-fanout-{stamp}.db", "pa_fanout_") as url,
    ):
        result = run(args, url, Path(tmp))
    source = str(args.src) if args.src else "this checkout"
    doc = {"source": source, "options": vars(args) | {"src": source}, "seconds": result}
    print(json.dumps(doc, indent=2))
    write_json(results_dir() / f"image-fanout-{stamp}.json", doc)


if __name__ == "__main__":
    main()
