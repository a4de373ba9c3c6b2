"""What the refusal of left-out fields costs on the hot path: a micro-benchmark, in process, no server.

    python bench/omitted_check.py [--number 200000]

Per request shape, the time of the check alone (`api/omitted.py`, as the transports call it: gRPC on the parsed
message, HTTP on the decoded body before transcoding) beside the time of the conversion every request pays
anyway at the same edge (gRPC: MessageToDict + normalize + record; HTTP: normalize + record), in ns per call
(best of 5 repeats). No targets: it reports.
"""

from __future__ import annotations

import argparse
import timeit
from collections.abc import Callable
from typing import Any

from google.protobuf import json_format

from platform_api.api import omitted, schema, transcode
from platform_api.gen.chainguard.platform.iam.v1 import group_pb2 as v1_group
from platform_api.gen.chainguard.platform.iam.v2beta1 import groups_pb2
from platform_api.gen.chainguard.platform.registry.v2 import repos_pb2

ORG = "0123456789abcdef" * 2 + "01234567"
MASK = {"paths": ["name", "description", "verified"]}


def _ns(fn: Callable[[], Any], number: int) -> float:
    return min(timeit.repeat(fn, number=number, repeat=5)) / number * 1e9


def _record(m: Any, canonical: Any) -> Any:
    return transcode.to_record(m.input_record, transcode.normalize(m.input, canonical))


def _with_zero_verified(req: groups_pb2.UpdateGroupRequest) -> groups_pb2.UpdateGroupRequest:
    """The same request with `verified` (field 5 of the Group, reserved) sent as a varint 0."""
    group = req.group.SerializeToString() + b"\x28\x00"
    raw = groups_pb2.UpdateGroupRequest(update_mask=req.update_mask).SerializeToString()
    return groups_pb2.UpdateGroupRequest.FromString(raw + b"\x0a" + bytes([len(group)]) + group)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--number", type=int, default=200_000)
    n = p.parse_args().number
    methods = schema.methods()
    beta = "chainguard.platform.iam.v2beta1.GroupsService."
    update = groups_pb2.UpdateGroupRequest(group={"uid": ORG, "name": "tf", "description": "d"}, update_mask=MASK)
    cases = [
        ("GetGroup (nothing to check)", methods[beta + "GetGroup"], groups_pb2.GetGroupRequest(uid=ORG), None),
        ("UpdateGroup, provider 0.4", methods[beta + "UpdateGroup"], update, {"verified": False}),
        ("UpdateGroup, verified varint 0", methods[beta + "UpdateGroup"], _with_zero_verified(update), None),
        (
            "CreateRepo, 100 aliases",
            methods["chainguard.platform.registry.v2.ReposService.CreateRepo"],
            repos_pb2.CreateRepoRequest(parent=ORG, repo={"name": "r", "aliases": [f"a{i}" for i in range(100)]}),
            None,
        ),
        ("v1 Groups.Update", methods["chainguard.platform.iam.Groups.Update"], v1_group.Group(id=ORG, name="g"), None),
    ]
    print(f"{'request':32} {'gRPC check':>11} {'gRPC edge':>11} {'HTTP check':>11} {'HTTP edge':>11}  (ns/call)")
    for name, m, msg, extra in cases:
        sent = json_format.MessageToDict(msg)
        rule = m.rules[0]
        body = sent if rule.body in ("", "*") else {rule.body: {**sent.get(rule.body, {}), **(extra or {})}}
        canonical = transcode.normalize(m.input, sent)
        plan = m.omitted  # what the transports test first: None for a request with nothing left out
        timings = [
            _ns(lambda plan=plan, msg=msg: plan and omitted.check_message(plan, msg), n),
            _ns(lambda m=m, msg=msg: _record(m, json_format.MessageToDict(msg)), n),
            _ns(lambda plan=plan, body=body: plan and omitted.check_json(plan, body), n),
            _ns(lambda m=m, c=canonical: _record(m, c), n),
        ]
        print(f"{name:32} " + " ".join(f"{ns:11.0f}" for ns in timings))


if __name__ == "__main__":
    main()
