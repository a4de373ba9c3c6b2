"""auth/capabilities.py: capability sets as bit masks of the contract's enum (by enum or friendly name, unknown
names granting nothing), and the built-in roles: nested as the reference's, with stable uids."""

from __future__ import annotations

import hashlib

from platform_api.auth import capabilities as caps
from platform_api.gen.chainguard.capabilities import capabilities_pb2


def test_masks_and_names_round_trip_in_enum_order() -> None:
    every = [v.name for v in capabilities_pb2.Capability.DESCRIPTOR.values if v.number]
    assert caps.names(caps.mask(every)) == every
    assert caps.names(caps.mask(reversed(every))) == every
    assert len({caps.BIT[n] for n in every}) == len(every)  # one bit each
    assert caps.mask([]) == 0 and caps.names(0) == []


def test_friendly_names_unknown_names_and_canonical() -> None:
    assert caps.mask(["repo.list"]) == caps.mask(["CAP_REPO_LIST"]) == 1 << caps.BIT["CAP_REPO_LIST"]
    assert caps.FRIENDLY["CAP_REPO_LIST"] == "repo.list" and caps.BY_FRIENDLY["repo.list"] == "CAP_REPO_LIST"
    # Unknown names (a stored role from a newer contract, a typo) contribute nothing and are reported.
    assert caps.mask(["CAP_NO_SUCH_THING", "no.such", "", "CAP_UNSPECIFIED"]) == 0
    assert caps.unknown(["repo.list", "CAP_REPO_LIST", "no.such", ""]) == ["no.such", ""]
    assert caps.canonical(["repo.create", "CAP_REPO_LIST", "repo.list", "nope"]) == caps.names(
        caps.mask(["CAP_REPO_LIST", "CAP_REPO_CREATE"])
    )


def test_built_in_roles_nest_like_the_references() -> None:
    r = caps.BUILTIN_BY_NAME
    viewer, editor, owner = r["viewer"].capabilities, r["editor"].capabilities, r["owner"].capabilities
    assert r["console_viewer"].capabilities & ~viewer == 0 and viewer & ~editor == 0 and editor & ~owner == 0
    assert r["registry.pull"].capabilities & ~r["registry.push"].capabilities == 0
    assert r["registry.pull"].capabilities & ~r["registry.pull_token_creator"].capabilities == 0
    assert caps.OWNER is r["owner"] and owner & caps.mask(["CAP_IAM_ROLE_BINDINGS_CREATE"])
    assert not viewer & caps.mask(["CAP_REPO_CREATE"]) and editor & caps.mask(["CAP_REPO_CREATE"])
    # No built-in role holds a capability reserved to internal roles.
    for role in caps.BUILTIN_ROLES:
        assert not role.capabilities & caps.mask(caps.INTERNAL_ONLY), role.name


def test_built_in_role_uids_are_stable() -> None:
    # The reference's published viewer uid, which clients hard-code; the others derived from their names.
    assert caps.BUILTIN_BY_NAME["viewer"].uid == "63921b2c44617e3f2603851537be0123af4a57d7"
    owner = hashlib.sha1(b"platform-api built-in role owner").hexdigest()
    assert caps.BUILTIN_BY_NAME["owner"].uid == owner
    assert len(caps.BUILTIN_BY_UID) == len(caps.BUILTIN_ROLES) == 7
    assert all(caps.BUILTIN_BY_UID[role.uid] is role for role in caps.BUILTIN_ROLES)
