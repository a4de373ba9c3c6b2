"""gRPC unary load: grpc.aio clients calling /grpc.health.v1.Health/Check for a fixed time.

    python grpc_load.py 127.0.0.1:PORT [--concurrency 64] [--channels 4] [--duration 10]

Prints one JSON line: calls/s, calls, errors (first error text), p50/p99 ms. Bounded by --duration.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc


async def run(target: str, concurrency: int, channels: int, duration: float) -> dict:
    chans = [
        grpc.aio.insecure_channel(target, options=[("grpc.use_local_subchannel_pool", 1)]) for _ in range(channels)
    ]
    stubs = [health_pb2_grpc.HealthStub(c) for c in chans]
    request = health_pb2.HealthCheckRequest()
    latencies: list[float] = []
    errors: list[str] = []
    deadline = time.monotonic() + duration

    async def worker(i: int) -> None:
        stub = stubs[i % len(stubs)]
        while time.monotonic() < deadline:
            t0 = time.perf_counter()
            try:
                resp = await stub.Check(request, timeout=5)
                if resp.status != health_pb2.HealthCheckResponse.SERVING:
                    errors.append(f"status {resp.status}")
                latencies.append(time.perf_counter() - t0)
            except grpc.aio.AioRpcError as e:
                errors.append(f"{e.code().name}: {e.details()}")
                if len(errors) > 100:
                    return

    try:
        # One call first: connection set-up is not measured, and a broken path fails fast.
        await stubs[0].Check(request, timeout=5)
        t0 = time.monotonic()
        await asyncio.gather(*(worker(i) for i in range(concurrency)))
        elapsed = time.monotonic() - t0
    except grpc.aio.AioRpcError as e:
        return {"ok": False, "error": f"{e.code().name}: {e.details()}"}
    finally:
        for c in chans:
            await c.close()
    lat = sorted(latencies)
    return {
        "ok": not errors,
        "calls_per_s": len(lat) / elapsed,
        "calls": len(lat),
        "errors": len(errors),
        "error": errors[0] if errors else "",
        "p50_ms": 1e3 * statistics.median(lat) if lat else 0.0,
        "p99_ms": 1e3 * lat[int(len(lat) * 0.99)] if lat else 0.0,
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("target")
    p.add_argument("--concurrency", type=int, default=64)
    p.add_argument("--channels", type=int, default=4)
    p.add_argument("--duration", type=float, default=10.0)
    ns = p.parse_args()
    try:
        import uvloop

        uvloop.install()
    except ImportError:
        pass
    print(json.dumps(asyncio.run(run(ns.target, ns.concurrency, ns.channels, ns.duration))))


if __name__ == "__main__":
    main()
