"""The cap walk (api/caps.py) in-process: the parsed gRPC message and the canonical JSON dict of the same
request give the same INVALID_ARGUMENT naming the same field path, nested and map fields included; at the
cap nothing is raised; requests without repeated fields have nothing to walk; recursive messages plan."""

from __future__ import annotations

from typing import Any

import pytest
from google.protobuf import json_format, struct_pb2
from google.protobuf.message import Message

from platform_api.api import caps, schema, transcode
from platform_api.core import errors
from platform_api.gen.chainguard.platform.advisory.v2 import advisory_pb2
from platform_api.gen.chainguard.platform.iam.v2 import account_associations_pb2, identities_pb2, roles_pb2
from platform_api.gen.chainguard.platform.registry.v2 import repos_pb2
from platform_api.gen.chainguard.platform.vulnerabilities.v2 import advisories_pb2

ORG = "0" * 40
CLAIMS_65 = {f"claim{i}": "value" for i in range(65)}


def _violation(run: Any) -> tuple[str, str] | None:
    try:
        run()
    except errors.ApiError as e:
        assert e.code == errors.INVALID_ARGUMENT
        (violation,) = e.details[0]["fieldViolations"]
        return violation["field"], violation["description"]
    return None


def _both(msg: Message) -> tuple[str, str] | None:
    """The violation of `msg` as gRPC sees it, asserting HTTP (its canonical dict) sees the same."""
    plan = caps.plan(msg.DESCRIPTOR)
    grpc = _violation(lambda: caps.check_message(plan, msg))
    canonical = transcode.normalize(msg.DESCRIPTOR, json_format.MessageToDict(msg))
    assert _violation(lambda: caps.check_json(plan, canonical)) == grpc
    return grpc


def _repos(n: int) -> repos_pb2.ListReposRequest:
    return repos_pb2.ListReposRequest(uidp={"ids": [f"{i:040x}" for i in range(n)]})


def _resolved(refs: int, tags: int, longest: int = -1) -> advisory_pb2.ListResolvedVulnsReportsRequest:
    req = advisory_pb2.ListResolvedVulnsReportsRequest()
    for i in range(refs):
        req.image_refs.add(repo=f"r{i}", tags=[f"t{j}" for j in range(longest if i == 1 else tags)])
    return req


def _github(apps: int, installations: int, crowded: int = 0) -> Message:
    req = account_associations_pb2.CreateAccountAssociationRequest(parent=ORG)
    github = req.account_association.github
    for app in range(1, apps + 1):
        n = installations + 1 if app == crowded else installations
        github.app_installations[app].installations.extend(
            account_associations_pb2.AccountAssociation.GitHubInstallation(installation_id=i) for i in range(n)
        )
    return req


@pytest.mark.parametrize(
    ("msg", "violation"),
    [
        (_repos(1000), None),
        (_repos(1001), ("uidp.ids", "uidp.ids takes at most 1000 values, got 1001")),
        (advisories_pb2.ListAdvisoriesRequest(event_types=[1] * 9), None),
        (
            advisories_pb2.ListAdvisoriesRequest(event_types=[1] * 100_000),
            ("event_types", "event_types takes at most 9 values, got 100000"),
        ),
        (_resolved(100, 100), None),
        (_resolved(101, 1), ("image_refs", "image_refs takes at most 100 values, got 101")),
        (_resolved(3, 2, longest=101), ("image_refs[1].tags", "image_refs[1].tags takes at most 100 values, got 101")),
        (_github(100, 100), None),
        (
            _github(5, 100, crowded=4),
            (
                "account_association.github.app_installations[4].installations",
                "account_association.github.app_installations[4].installations takes at most 100 values, got 101",
            ),
        ),
        (
            identities_pb2.CreateIdentityRequest(identity={"claim_match": {"claims": CLAIMS_65}}),
            ("identity.claim_match.claims", "identity.claim_match.claims takes at most 64 entries, got 65"),
        ),
        (roles_pb2.UpdateRoleRequest(update_mask={"paths": ["name"] * 100}), None),
        (
            roles_pb2.UpdateRoleRequest(update_mask={"paths": ["name"] * 101}),
            ("update_mask", "update_mask takes at most 100 paths, got 101"),
        ),
    ],
)
def test_both_transports_name_the_same_field(msg: Message, violation: tuple[str, str] | None) -> None:
    assert _both(msg) == violation


def test_requests_without_repeated_fields_have_nothing_to_walk() -> None:
    methods = schema.methods()
    assert not methods["chainguard.platform.registry.v2.ReposService.GetRepo"].caps
    assert not methods["chainguard.platform.ping.v2.PingService.Ping"].caps
    assert methods["chainguard.platform.registry.v2.ReposService.ListRepos"].caps


def test_a_recursive_message_plans_and_walks() -> None:
    # google.protobuf.Struct -> Value -> ListValue -> Value: no caps declared there, but the walk ends.
    plan = caps.plan(struct_pb2.Struct.DESCRIPTOR)
    assert plan
    nested = struct_pb2.Struct()
    nested.update({"a": {"b": [1, {"c": [2, 3]}]}})
    caps.check_message(plan, nested)
    caps.check_json(plan, {"fields": {"a": {"structValue": {"fields": {}}}}})
