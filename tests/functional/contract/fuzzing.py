"""Property-based run of the whole HTTP/JSON API with schemathesis, driven by our own `/openapi.json`.

Every operation gets generated requests (schema-valid and schema-violating), authenticated as the owner, on
a database seeded with one of each resource: most path uids are swapped for seeded uids of the right kind
(the rest stay random, for NOT_FOUND paths), DELETEs get throwaway targets. Every answer must be no server
error and conform to the document (status listed, body matching its schema); 501 UNIMPLEMENTED is the
documented answer of routes not built yet. Derandomized so CI is reproducible; bounded (FUZZ_EXAMPLES per
operation and mode, env PLATFORM_API_FUZZ_EXAMPLES, no shrinking). Generating is the costly part, so each
generated request goes to every backend's server. The servers deliver nothing (`--no-dispatcher`; the
subscription's sink is a closed port). No server error is tolerated.

The operations are dealt out to PARTS test files (test_fuzz_api_<n>.py), each with servers of its own, so that
the suite's processes (`--dist loadfile`: a file per process at a time) share the work.
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import hypothesis
import hypothesis.errors
import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, Phase
from schemathesis.checks import not_a_server_error
from schemathesis.generation import GenerationMode
from schemathesis.specs.openapi.checks import response_schema_conformance

from tests.helpers import BACKENDS, BUILTIN_ROLE_UIDS, Server, free_port, start_server, stop_server

PARTS = 3
FUZZ_EXAMPLES = int(os.environ.get("PLATFORM_API_FUZZ_EXAMPLES", "5"))
CHECKS = [not_a_server_error, response_schema_conformance]
DIGEST = "sha256:" + "c" * 64


@dataclass
class Seeded:
    # Collection (path segment after /v2/) -> uids for `{uid}`-like and `{parent}` parameters.
    uids: dict[str, list[str]] = field(default_factory=dict)
    parents: dict[str, list[str]] = field(default_factory=dict)
    # Collection -> uids that DELETE operations may consume.
    throwaway: dict[str, list[str]] = field(default_factory=dict)


def _ok(r: httpx.Response) -> dict[str, Any]:
    assert r.status_code == 200, r.text
    return dict(r.json())


def seed(s: Server) -> Seeded:
    http, org = s.http, s.owner_org

    def create(collection: str, parent: str, body: dict[str, Any]) -> str:
        return str(_ok(http.post(f"/{collection}/{parent}", json=body))["uid"])

    def group(parent: str) -> str:
        return create("iam/v2/groups", parent, {"name": "g-" + secrets.token_hex(3)})

    def repo(parent: str) -> str:
        return create("registry/v2/repos", parent, {"name": "r-" + secrets.token_hex(3)})

    def tag(parent: str) -> str:
        return create("registry/v2/tags", parent, {"name": "t-" + secrets.token_hex(3), "digest": DIGEST})

    def identity(parent: str) -> str:
        claim = {"issuer": "https://issuer.example", "subject": secrets.token_hex(6)}
        return create("iam/v2/identities", parent, {"name": "id-" + secrets.token_hex(3), "claimMatch": claim})

    def role(parent: str) -> str:
        return create(
            "iam/v2/roles", parent, {"name": "role-" + secrets.token_hex(3), "capabilities": ["CAP_REPO_LIST"]}
        )

    def binding(parent: str) -> str:
        body = {"identityUid": identity(parent), "roleUid": BUILTIN_ROLE_UIDS["viewer"]}
        return create("iam/v2/roleBindings", parent, body)

    def subscription(parent: str) -> str:
        return create("events/v2/subscriptions", parent, {"sink": f"http://127.0.0.1:{free_port()}/"})

    def idp(parent: str) -> str:
        oidc = {"issuer": "https://idp.example.com", "clientId": "client-1", "clientSecret": "s3cret"}
        body = {"name": "sso-" + secrets.token_hex(3), "defaultRole": BUILTIN_ROLE_UIDS["viewer"], "oidc": oidc}
        return create("iam/v2/identityProviders", parent, body)

    def invite(parent: str) -> str:
        return create("iam/v2/groupInvites", parent, {"roleUid": BUILTIN_ROLE_UIDS["viewer"], "ttl": "604800s"})

    def mapping(provider: str) -> str:
        body = {"externalGroupId": "eng-" + secrets.token_hex(2), "roleUid": BUILTIN_ROLE_UIDS["viewer"],
                "scope": provider.rsplit("/", 1)[0]}  # fmt: skip
        return create("iam/v2/externalGroupRoleMappings", provider, body)

    def association(parent: str) -> str:
        return create("iam/v2/accountAssociations", parent, {"name": "cloud", "amazon": {"account": "123456789012"}})

    sub = group(org)
    r = repo(org)
    provider = idp(org)
    s_uid = subscription(org)
    repo_in_sub = repo(sub)  # a mutation after the subscription: a (pending) delivery exists
    deliveries = _ok(http.get("/events/v2/deliveries", params={"uidp.children_of": s_uid}))["deliveries"]
    groups = [org, sub]
    out = Seeded(
        uids={
            "groups": groups,
            "repos": [r, repo_in_sub],
            "tags": [tag(r)],
            "identities": [identity(org), identity(sub)],
            "roles": [role(org)],
            "roleBindings": [binding(org)],
            "subscriptions": [s_uid],
            "deliveries": [d["uid"] for d in deliveries],
            "identityProviders": [provider],
            "groupInvites": [invite(org)],
            "externalGroupRoleMappings": [mapping(provider)],
            "accountAssociations": [association(sub) and sub],  # keyed by its group
            "terms": groups,
        },
        parents={"tags": [r, repo_in_sub], "externalGroupRoleMappings": [provider], "deliveries": [s_uid]},
    )
    # Throwaway targets: a few of each, consumed by DELETE operations.
    throw = out.throwaway
    throw["groups"] = [group(sub) for _ in range(3)]
    throw["repos"] = [repo(sub) for _ in range(3)]
    throw["tags"] = [tag(repo_in_sub) for _ in range(3)]
    throw["identities"] = [identity(sub) for _ in range(3)]
    throw["roles"] = [role(sub) for _ in range(3)]
    throw["roleBindings"] = [binding(sub) for _ in range(3)]
    throw["subscriptions"] = [subscription(sub) for _ in range(3)]
    throw["identityProviders"] = [idp(sub) for _ in range(3)]
    throw["groupInvites"] = [invite(sub) for _ in range(3)]
    throw["externalGroupRoleMappings"] = [mapping(provider) for _ in range(3)]
    throw["accountAssociations"] = []
    for _ in range(3):
        g = group(sub)
        association(g)
        throw["accountAssociations"].append(g)
    return out


@dataclass
class Target:
    server: Server
    seeded: Seeded
    session: requests.Session


def seeded_targets(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[Target]]:
    """One seeded server per backend: every generated request goes to each (generation is the costly part).
    A test file's module fixture."""
    out: list[Target] = []
    try:
        for backend in BACKENDS:
            s = start_server(backend, tmp_path_factory.mktemp("fuzz-" + backend),
                             "--no-dispatcher", "--insecure-allow-loopback")  # fmt: skip
            out.append(Target(s, Seeded(), requests.Session()))
            out[-1].seeded = seed(s)
        yield out
    finally:
        for t in out:
            t.session.close()
            stop_server(t.server)


def collection(path: str) -> str:
    """`/iam/v2/groups/{uid}` -> `groups`; `/iam/v2/groups:lookupGroup` -> `groups`."""
    parts = path.split("/")
    return re.split(r"[:{]", parts[3])[0] if len(parts) > 3 else ""


def _pick(choices: list[str], generated: Any) -> str | None:
    """A seeded uid for three generated values in four (chosen from the value: reproducible), else None."""
    if not choices:
        return None
    h = int.from_bytes(hashlib.sha256(repr(generated).encode()).digest()[:4], "big")
    return None if h % 4 == 0 else choices[(h // 4) % len(choices)]


def substitute(case: Any, seeded: Seeded) -> dict[str, Any]:
    """The case's path parameters with seeded uids swapped in (the case itself is left as generated)."""
    coll = collection(case.operation.path)
    params = dict(case.path_parameters or {})
    for name, generated in list(params.items()):
        if case.method.upper() == "DELETE" and name == "uid":
            pool = seeded.throwaway.get(coll) or []
            params[name] = pool.pop() if pool else generated
            continue
        if name == "parent":
            choice = _pick(seeded.parents.get(coll) or seeded.uids["groups"], generated)
        elif name == "group":
            choice = _pick(seeded.uids["groups"], generated)
        else:
            choice = _pick(seeded.uids.get(coll, []), generated)
        if choice is not None:
            params[name] = choice
    return params


def survive_generated_requests(targets: list[Target], part: int) -> None:
    """Every operation of `part` (0 to PARTS - 1: every PARTS-th operation of the document, from the
    part-th) answers every generated request without a server error and as its document says."""
    parts = sorted(p.name for p in Path(__file__).parent.glob("test_fuzz_api_*.py"))
    assert parts == [f"test_fuzz_api_{n + 1}.py" for n in range(PARTS)], f"one file per part: {parts}"
    schema = schemathesis.openapi.from_url(targets[0].server.base_url + "/openapi.json")
    failures: list[str] = []
    for i, result in enumerate(schema.get_all_operations()):
        if i % PARTS != part:
            continue
        if not hasattr(result, "ok"):  # the document describes an operation schemathesis cannot use
            failures.append(f"invalid operation in /openapi.json: {result.err()}")
            continue
        operation = result.ok()
        if "/v2beta1/" in operation.path:
            # The same implementations behind the same router under the other version segment
            # (tests/functional/contract/test_wire_contract.py proves the shapes equal): fuzzing them again
            # doubles the time.
            continue
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):

            @hypothesis.given(operation.as_strategy(generation_mode=mode))
            @hypothesis.settings(
                max_examples=FUZZ_EXAMPLES, deadline=None, derandomize=True, database=None,
                phases=[Phase.explicit, Phase.generate], suppress_health_check=list(HealthCheck),
            )  # fmt: skip
            def run(case: Any) -> None:
                generated = case.path_parameters
                try:
                    for t in targets:
                        case.path_parameters = substitute(case, t.seeded)
                        check(case, t)
                finally:
                    case.path_parameters = generated

            try:
                run()
            except hypothesis.errors.Unsatisfiable:  # nothing to generate in this mode (no parameters to break)
                pass
            except (Exception, BaseExceptionGroup) as e:  # every operation runs; all failures reported at the end
                failures.append(f"{operation.label} [{mode.value}]: {e}")
    assert not failures, "\n\n".join(failures)


def check(case: Any, t: Target) -> None:
    headers = {"authorization": f"Bearer {t.server.token}"}
    response = case.call(base_url=t.server.base_url, session=t.session, headers=headers, timeout=30)
    # 501 UNIMPLEMENTED is the documented answer of the routes not built yet (README).
    unimplemented = response.status_code == 501 and response.json().get("code") == 12
    try:
        case.validate_response(response, checks=[response_schema_conformance] if unimplemented else CHECKS)
    except (Exception, BaseExceptionGroup) as e:
        raise AssertionError(f"[{t.server.backend}] {e}") from e
