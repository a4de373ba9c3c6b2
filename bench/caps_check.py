"""What the request caps cost on the hot path: a micro-benchmark, in process, no server.

    python bench/caps_check.py [--number 200000]

Per request shape, the time of the cap check alone (`api/caps.py`, as the transports call it) beside the
time of the conversion every request pays anyway at the same edge (gRPC: MessageToDict + normalize +
record; HTTP: normalize + record), in ns per call (best of 5 repeats). Also SQLite's statement preparation
(`_SqliteConn._q`, which now also spots `= ANY($n)` lists) for a primary-key read. No targets: it reports.
"""

from __future__ import annotations

import argparse
import asyncio
import timeit
from collections.abc import Callable
from typing import Any

from google.protobuf import json_format

from platform_api.api import caps, schema, transcode
from platform_api.gen.chainguard.platform.registry.v2 import repos_pb2
from platform_api.store import db

ORG = "0123456789abcdef" * 2 + "01234567"


def _ns(fn: Callable[[], Any], number: int) -> float:
    return min(timeit.repeat(fn, number=number, repeat=5)) / number * 1e9


def _edge(m: Any, msg: Any) -> Any:
    return _record(m, json_format.MessageToDict(msg))


def _record(m: Any, canonical: Any) -> Any:
    return transcode.to_record(m.input_record, transcode.normalize(m.input, canonical))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--number", type=int, default=200_000)
    n = p.parse_args().number
    methods = schema.methods()
    get = methods["chainguard.platform.registry.v2.ReposService.GetRepo"]
    lst = methods["chainguard.platform.registry.v2.ReposService.ListRepos"]
    cases = [
        ("GetRepo (no repeated field)", get, repos_pb2.GetRepoRequest(uid=ORG), n),
        ("ListRepos uidp.descendants_of", lst, repos_pb2.ListReposRequest(uidp={"descendants_of": ORG}), n),
        ("ListRepos uidp.ids x 1000", lst, repos_pb2.ListReposRequest(uidp={"ids": [ORG] * 1000}), n // 200 or 1),
    ]
    print(f"{'request':34} {'gRPC check':>11} {'gRPC edge':>11} {'HTTP check':>11} {'HTTP edge':>11}  (ns/call)")
    for name, m, msg, k in cases:
        canonical = transcode.normalize(m.input, json_format.MessageToDict(msg))

        def grpc_check(m: Any = m, msg: Any = msg) -> None:
            if m.caps:
                caps.check_message(m.caps, msg)

        def http_check(m: Any = m, canonical: Any = canonical) -> None:
            if m.caps:
                caps.check_json(m.caps, canonical)

        grpc_edge = _ns(lambda m=m, msg=msg: _edge(m, msg), k)
        http_edge = _ns(lambda m=m, c=canonical: _record(m, c), k)
        print(f"{name:34} {_ns(grpc_check, k):11.0f} {grpc_edge:11.0f} {_ns(http_check, k):11.0f} {http_edge:11.0f}")

    async def sqlite() -> None:
        conn = await db.connect("sqlite:///:memory:")
        await conn.execute("CREATE TABLE t (uid TEXT PRIMARY KEY, body TEXT)")
        await conn.execute("INSERT INTO t VALUES ($1, $2)", ORG, "{}")
        sql = "SELECT body FROM t WHERE uid = $1"
        q = conn._q(sql, (ORG,))[0]
        raw = conn._conn
        prep = _ns(lambda: conn._q(sql, (ORG,)), n)
        read = _ns(lambda: raw.execute(q, (ORG,)).fetchone(), n)
        print(f"SQLite primary-key read: statement preparation {prep:.0f} ns, the read itself {read:.0f} ns")
        await conn.close()

    asyncio.run(sqlite())


if __name__ == "__main__":
    main()
