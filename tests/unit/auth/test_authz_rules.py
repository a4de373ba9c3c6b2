"""The pure IAM rules of auth/authz.py (reference 11, spec 2.3), in-process: what a Principal holds at a
uid (inherited down the tree, cut by the token's scopes and capability limit), NOT_FOUND before
PERMISSION_DENIED, the smallest set of visible roots, no escalation (check_grantable / check_obtainable),
the confinement of an identity under a group (`_clip`, `load_grants`), and how the Authorizer builds a
Principal from a token (exchange-time grants, limits) over a fake grant source. (Freshness of the cache
against a real database: test_authz_freshness.py.)"""

from __future__ import annotations

import asyncio
from collections.abc import Collection
from typing import Any

import pytest

from platform_api.auth import authz
from platform_api.auth import capabilities as caps
from platform_api.auth.authz import Authorizer, Principal
from platform_api.auth.tokens import AccessClaims
from platform_api.core import errors
from tests.helpers import raised

ORG = "a" * 40
TEAM = ORG + "/" + "1" * 16
SUB = TEAM + "/" + "2" * 16
SIBLING = ORG + "/" + "3" * 16
OTHER = "b" * 40
LIST, CREATE, DELETE = (caps.mask([n]) for n in ("CAP_REPO_LIST", "CAP_REPO_CREATE", "CAP_REPO_DELETE"))
VIEWER = caps.BUILTIN_BY_NAME["viewer"].capabilities
EDITOR = caps.BUILTIN_BY_NAME["editor"].capabilities


# ------------------------------------------------------------------------------ held_at and require


def test_a_grant_holds_at_its_group_and_every_descendant_only() -> None:
    p = Principal("me", {TEAM: LIST, SUB: CREATE})
    assert p.held_at(TEAM) == LIST and p.held_at(SUB) == LIST | CREATE
    assert p.held_at(SUB + "/" + "4" * 16) == LIST | CREATE  # a repo in SUB
    assert p.held_at(ORG) == 0 and p.held_at(SIBLING) == 0 and p.held_at(OTHER) == 0
    # A uid that only starts like a granted one is not below it.
    assert p.held_at(ORG + "/" + "1" * 15 + "9") == 0
    assert p.holds(LIST | CREATE, SUB) and not p.holds(LIST | CREATE, TEAM) and p.holds(0, OTHER)


def test_scopes_and_the_capability_limit_narrow_a_token() -> None:
    p = Principal("me", {ORG: LIST | CREATE | DELETE}, scopes=(TEAM, OTHER), limit=LIST | CREATE)
    assert p.held_at(TEAM) == p.held_at(SUB) == LIST | CREATE  # DELETE is outside the limit
    assert p.held_at(ORG) == 0 and p.held_at(SIBLING) == 0  # outside every scope
    assert p.held_at(OTHER) == 0  # in a scope, but granted nothing there
    assert Principal("me", {ORG: LIST}, limit=0).held_at(ORG) == 0


def test_require_answers_not_found_where_the_caller_holds_nothing() -> None:
    p = Principal("me", {TEAM: LIST})
    p.require(LIST, SUB, "chainguard.platform.registry.v2.Repo")
    e = raised(lambda: p.require(LIST | CREATE, SUB, "chainguard.platform.registry.v2.Repo"))
    assert e.code == errors.PERMISSION_DENIED and e.message.endswith(f"missing CAP_REPO_CREATE at {SUB}")
    e = raised(lambda: p.require(LIST, SIBLING, "chainguard.platform.iam.v2.Group", name="x"))
    assert e.code == errors.NOT_FOUND and e.message == "Not found: chainguard.platform.iam.v2.Group x"
    # Limited to nothing it needs: as if it held nothing there.
    limited = Principal("me", {TEAM: LIST}, limit=CREATE)
    assert raised(lambda: limited.require(LIST, TEAM, "t")).code == errors.NOT_FOUND


# ------------------------------------------------------------------------------ visible roots


def test_visible_roots_are_the_smallest_set_of_subtrees() -> None:
    p = Principal("me", {ORG: LIST, TEAM: LIST | CREATE, SUB: CREATE, OTHER: DELETE, SIBLING: LIST})
    assert p.visible_roots(LIST) == [ORG]  # the grants below it add no subtree
    assert p.visible_roots(CREATE) == [TEAM]  # SUB is inside TEAM
    assert p.visible_roots(LIST | CREATE) == [TEAM]  # SUB holds LIST through ORG and CREATE itself
    assert p.visible_roots(DELETE) == [OTHER]
    assert p.visible_roots(LIST | DELETE) == []
    assert p.visible_roots(LIST) is p.visible_roots(LIST)  # computed once per principal and mask


def test_a_scope_below_a_grant_is_a_root_of_its_own() -> None:
    p = Principal("me", {ORG: LIST}, scopes=(SUB, SIBLING, OTHER))
    assert p.visible_roots(LIST) == [SIBLING, SUB]  # ORG itself is outside the scopes; OTHER holds nothing
    assert Principal("me", {ORG: LIST}, scopes=(ORG,)).visible_roots(LIST) == [ORG]


def test_visible_roots_of_many_organizations_stay_linear() -> None:
    """A thousand organizations with a sub-group each: the roots are the organizations, in order."""
    orgs = [f"{i:040x}" for i in range(1000)]
    grants = {o: LIST for o in orgs} | {o + "/" + "1" * 16: LIST for o in orgs}
    assert Principal("me", grants).visible_roots(LIST) == orgs


# ------------------------------------------------------------------------------ no escalation


def test_only_what_the_caller_holds_there_can_be_granted() -> None:
    p = Principal("me", {ORG: VIEWER | caps.mask(["CAP_IAM_ROLE_BINDINGS_CREATE"]), TEAM: EDITOR})
    p.check_grantable(VIEWER, SUB)
    p.check_grantable(EDITOR, TEAM)
    e = raised(lambda: p.check_grantable(EDITOR, SIBLING))
    assert e.code == errors.PERMISSION_DENIED
    assert e.message.startswith(f"Permission denied: cannot grant capabilities you do not hold at {SIBLING}: ")
    missing = e.message.rsplit(": ", 1)[1].split(", ")
    assert missing == caps.names(EDITOR & ~VIEWER) and missing  # each missing one, in enum order


def test_check_obtainable_names_the_first_group_where_something_is_missing() -> None:
    p = Principal("me", {TEAM: LIST | CREATE, SIBLING: LIST})
    p.check_obtainable({TEAM: LIST | CREATE, SUB: CREATE, SIBLING: 0}, "cannot act as")
    e = raised(lambda: p.check_obtainable({SUB: LIST, SIBLING: CREATE, ORG: LIST}, "cannot act as"))
    assert e.code == errors.PERMISSION_DENIED
    # Groups in sorted order: ORG comes first and is where the caller holds nothing.
    assert e.message == f"Permission denied: cannot act as capabilities you do not hold at {ORG}: CAP_REPO_LIST"


# ------------------------------------------------------------------------------ confinement


@pytest.mark.parametrize(
    ("group", "home", "applies_at"),
    [
        (ORG, "", ORG),  # not confined
        (SUB, TEAM, SUB),  # inside the home subtree
        (TEAM, TEAM, TEAM),
        (ORG, TEAM, TEAM),  # above the home: from the home down
        (SIBLING, TEAM, None),  # beside it: nowhere
        (OTHER, TEAM, None),
        (ORG + "/" + "1" * 15 + "9", TEAM, None),  # a prefix of the uid is not an ancestor
    ],
)
def test_clip(group: str, home: str, applies_at: str | None) -> None:
    assert authz._clip(group, home) == applies_at


def fake_source(bindings: dict[str, list[tuple[str, str]]], roles: dict[str, str]) -> authz.GrantSource:
    """A grant source over `bindings` (identity -> (group, role uid)) and `roles` (role uid -> capability names)."""

    async def exists(_: Any, identity: str) -> bool:
        return identity in bindings

    async def bound(_: Any, identity: str) -> list[tuple[str, str]]:
        return bindings[identity]

    async def role_names(_: Any, uids: Collection[str]) -> dict[str, str]:
        return {uid: roles[uid] for uid in uids if uid in roles}

    return authz.GrantSource(exists, bound, role_names)


def test_grants_of_clips_each_binding_to_the_identitys_home() -> None:
    confined = TEAM + "/" + "9" * 16  # an identity that lives in TEAM
    names = "CAP_REPO_LIST,CAP_REPO_CREATE"
    got = authz.grants_of(confined, [(ORG, "CAP_REPO_LIST"), (SUB, names), (SIBLING, names), (TEAM, "nope")])
    assert got == {TEAM: LIST, SUB: LIST | CREATE}  # ORG's from TEAM down; SIBLING's nowhere; unknown names: none
    assert authz.grants_of(OTHER, [(ORG, "repo.delete"), (ORG, "CAP_REPO_LIST")]) == {ORG: DELETE | LIST}


def test_the_authorizer_builds_the_principal_of_a_token() -> None:
    confined = TEAM + "/" + "9" * 16
    role, listing_role = "c" * 40, "d" * 40
    source = fake_source(
        {confined: [(TEAM, listing_role)]},
        {role: "CAP_REPO_CREATE,CAP_REPO_DELETE", listing_role: "CAP_REPO_LIST"},
    )
    a = Authorizer(None, source)  # type: ignore[arg-type]

    async def principal(**claims: Any) -> Principal:
        return await a.principal(AccessClaims(subject=claims.pop("subject", confined), expires=0, **claims))

    # Session grants by role (external group mappings), clipped like bindings; a limit from `cap`.
    p = asyncio.run(principal(grants=((ORG, role), (SIBLING, role)), cap_limit=("CAP_REPO_LIST", "CAP_REPO_DELETE"),
                              scopes=(SUB,)))  # fmt: skip
    assert p.grants == {TEAM: LIST | CREATE | DELETE} and p.limit == LIST | DELETE and p.scopes == (SUB,)
    assert p.held_at(SUB) == LIST | DELETE and p.held_at(TEAM) == 0
    assert asyncio.run(a.grants(confined)).by_group == {TEAM: LIST}  # the session grants are the token's own
    plain = asyncio.run(principal())
    assert plain.limit == -1 and plain.held_at(SUB) == LIST
    # A token whose identity was deleted is refused.
    e = raised(lambda: asyncio.run(principal(subject=OTHER)))
    assert e.code == errors.UNAUTHENTICATED and "no longer exists" in e.message
