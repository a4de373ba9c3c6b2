"""Issue 18's probe of the v1 contract, as a new user with the vendor's v1 protos would try it: a client built
from the contract's descriptors (ours, `proto/chainguard/platform/*/v1`, checked against wire-v1.md) against a
server started from any source tree, so the same probe measures before and after.

    python bench/v1_contract.py [--src /tmp/old/src] [--backend sqlite|postgres]

`--src` runs the server (and its `import` commands) from another tree's `src` (e.g. `git archive <commit> src
| tar -x -C /tmp/old`); default this tree. The database holds one image with end-of-life data and a Grype report
(tests/data). Printed, and written to bench/results/v1-contract-<time>.json:

- grpc: every method of wire-v1.md called with an empty request and the owner's token, by outcome: OK,
  UNIMPLEMENTED with google.rpc.Status details (structured), UNIMPLEMENTED without (grpcio's bare "Method not
  found!"), anything else (code name);
- http: every HTTP rule of wire-v1.md (path variables filled, `{}`/`[]`/an enum name as body), by status;
- unknown: a method of a service no proto declares (`registry.v2beta1.OverlaysService/ListOverlays`): structured?
- reflection_v1: does `grpc.reflection.v1.ServerReflection` list services?
- the three served calls decoded with the contract's messages: ListEolTags' fields of one tag, GetVulnReport's
  first CVSS score, Vulnerabilities.ListVulnCountReports' answer.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import grpc
import httpx

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(BENCH.parent))

from common import ROOT, log, results_dir, scratch_database, serve, write_json  # noqa: E402

from platform_api.gen.chainguard.platform.registry.v1 import (  # noqa: E402
    registry_pb2,
    registry_pb2_grpc,
    vulnerabilities_pb2,
    vulnerabilities_pb2_grpc,
)
from platform_api.gen.grpc.reflection.v1 import reflection_pb2, reflection_pb2_grpc  # noqa: E402
from tests.helpers import wire_facts  # noqa: E402
from tests.helpers.oci_layouts import manifest, write_layout  # noqa: E402

DATA = ROOT / "tests" / "data"
FACTS = wire_facts.parse(wire_facts.WIRE_V1)


def run(env: dict[str, str], database: str, *args: str) -> str:
    """`platform-api <args>` of the tree under test."""
    cmd = [sys.executable, "-m", "platform_api.cli", *args, "--database", database]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=ROOT, env=env)
    if r.returncode != 0:
        raise RuntimeError(f"platform-api {' '.join(args)}: {r.stderr}")
    return r.stdout


def _bearer(token: str) -> Any:
    class Bearer(grpc.UnaryUnaryClientInterceptor):  # type: ignore[misc]
        def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
            metadata = [*(details.metadata or ()), ("authorization", f"Bearer {token}")]
            return continuation(details._replace(metadata=metadata), request)

    return Bearer()


def grpc_outcome(call: Any, request: Any) -> str:
    try:
        call(request, timeout=10)
        return "OK"
    except grpc.RpcError as e:
        structured = "grpc-status-details-bin" in dict(e.trailing_metadata() or ())
        if e.code() == grpc.StatusCode.UNIMPLEMENTED:
            return "UNIMPLEMENTED structured" if structured else "UNIMPLEMENTED bare"
        return e.code().name


def sample_body(request: str, body: str) -> Any:
    if not body:
        return None
    if body == "*":
        return {}
    f = FACTS.messages[request].fields[body]
    if f.label == "repeated":
        return []
    return next(iter(FACTS.enums[f.type])) if f.type in FACTS.enums else {}


def probe(src: str | None, backend: str) -> dict[str, Any]:
    env = {**os.environ, **({"PYTHONPATH": src} if src else {})}
    tmp = Path(tempfile.mkdtemp(prefix="v1-contract-"))
    with scratch_database(backend, tmp / "db.sqlite", "pa_v1c_") as database:
        server = serve(database, tmp / "serve.log", env={"PYTHONPATH": src} if src else None)
        try:
            boot = json.loads(run(env, database, "bootstrap"))  # after serve: the token names its issuer URL
            org, token = boot["organization"], boot["token"]
            http = httpx.Client(base_url=server.url, headers={"authorization": f"Bearer {token}"}, timeout=30)
            repo = http.post(f"/registry/v2/repos/{org}", json={"name": "python"}).json()["uid"]
            layout = tmp / "layout"
            image = manifest(layout, "linux", "amd64")
            write_layout(layout, {t: image for t in ("3.12", "2.7", "latest")})
            run(env, database, "import", "oci", repo, str(layout))
            run(env, database, "import", "eol", repo, "python", str(DATA / "eol" / "python.json"))
            run(env, database, "import", "vulnreport", repo, image["digest"], str(DATA / "grype" / "report.json"))

            channel = grpc.intercept_channel(grpc.insecure_channel(f"127.0.0.1:{server.grpc_port}"), _bearer(token))
            out: dict[str, Any] = {"grpc": collections.Counter(), "http": collections.Counter()}
            for service, methods in FACTS.services.items():
                for m in methods.values():
                    out["grpc"][grpc_outcome(channel.unary_unary(f"/{service}/{m.name}"), b"")] += 1
                    for h in m.http:
                        path = re.sub(r"\{[^}=]+=\*\*\}", f"{org}/{'b' * 16}", h.path)
                        path = re.sub(r"\{[^}]+\}", "sha256:" + "c" * 64, path)
                        r = http.request(h.verb, path, json=sample_body(m.request, h.body))
                        out["http"][str(r.status_code)] += 1
            out["grpc"], out["http"] = dict(out["grpc"]), dict(out["http"])
            unknown = channel.unary_unary("/chainguard.platform.registry.v2beta1.OverlaysService/ListOverlays")
            out["unknown"] = grpc_outcome(unknown, b"")

            def reflect() -> int:
                req = reflection_pb2.ServerReflectionRequest(list_services="")
                stub = reflection_pb2_grpc.ServerReflectionStub(channel)
                [answer] = list(stub.ServerReflectionInfo(iter([req]), timeout=10))
                return len(answer.list_services_response.service)

            out["reflection_v1"] = _attempt(lambda: f"{reflect()} services")

            registry = registry_pb2_grpc.RegistryStub(channel)

            def eol() -> dict[str, Any]:
                tags = registry.ListEolTags(registry_pb2.EolTagFilter(uidp={"children_of": repo}, name="2.7"))
                t = tags.items[0]
                return {"name": t.name, "mainPackageName": t.main_package_name,
                        "tagStatus": registry_pb2.EolTagStatus.Name(t.tag_status),
                        "mainPackageVersion.version": t.main_package_version.version}  # fmt: skip

            def score() -> str:
                report = registry.GetVulnReport(registry_pb2.VulnReportRequest(repo_id=repo, digest=image["digest"]))
                return repr(report.vulnerability_matches[0].vulnerability.cvss[0].score)

            def counts() -> str:
                vulns = vulnerabilities_pb2_grpc.VulnerabilitiesStub(channel)
                got = vulns.ListVulnCountReports(vulnerabilities_pb2.VulnCountReportFilter(repo="python"))
                return f"{len(got.items)} reports, counts {[c.count for c in got.items[0].vuln_counts]}"

            out["ListEolTags"] = _attempt(eol)
            out["GetVulnReport.cvss[0].score"] = _attempt(score)
            out["Vulnerabilities.ListVulnCountReports"] = _attempt(counts)
            channel.close()
            http.close()
            return out
        finally:
            server.stop()


def _attempt(fn: Any) -> Any:
    try:
        return fn()
    except grpc.RpcError as e:
        return f"{e.code().name}: {e.details()}"
    except Exception as e:  # a decode that fails is the finding
        return f"{type(e).__name__}: {e}"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--src", help="the source tree (`src`) to serve; default this tree")
    p.add_argument("--backend", choices=("sqlite", "postgres"), default="sqlite")
    args = p.parse_args()
    log(f"v1 contract probe: server from {args.src or 'this tree'}, {args.backend}")
    result = {"src": args.src or str(ROOT / "src"), "backend": args.backend, **probe(args.src, args.backend)}
    print(json.dumps(result, indent=2))
    write_json(results_dir() / f"v1-contract-{time.strftime('%Y%m%d-%H%M%S')}.json", result)


if __name__ == "__main__":
    main()
