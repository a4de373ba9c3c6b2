"""Sending a create again when its first attempt's outcome is unknown (docs/python-client.md, Retries).

A 503 whose reason is COMMIT_OUTCOME_UNKNOWN (the server lost its database connection during the COMMIT), or a
failure after the request may have reached the server (a connection lost with no answer), says nothing about
whether the create was stored. Sent again, a create the server keeps unique answers ALREADY_EXISTS if the first
attempt was stored: the client then looks the stored resource up and returns it when it holds what this request
sent (its name and every other plain value it set), and raises the ALREADY_EXISTS otherwise (someone else's).
A create without a unique key could be stored twice, so it is not sent again after an unknown outcome: the
caller gets the 503 and decides.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from platform_api.client import contract, errors
from platform_api.client.contract import Method
from platform_api.gen.records.common import UIDPFilter

# The creates whose second attempt cannot store a second copy: the server keeps their key unique (a group's,
# repo's, role's or identity provider's name under its parent; a role binding's identity and role at its group;
# a mapping's group, role and scope; one account association per group), or applies them as create-or-update
# (CreateTag). Any other create (an identity, a subscription, an invite, a batch of role bindings) is not.
REPEATABLE = frozenset({
    "CreateGroup", "CreateRepo", "CreateTag", "CreateRole", "CreateRoleBinding", "CreateIdentityProvider",
    "CreateExternalGroupRoleMapping", "CreateAccountAssociation",
})  # fmt: skip
LOOKUP_PAGES = 10  # pages of 200 siblings searched for the stored resource
_OUTPUT_ONLY = frozenset({"uid", "createTime", "updateTime"})

Call = Callable[[Method, Any], Any]


def is_create(m: Method) -> bool:
    return m.name.startswith(("Create", "BatchCreate"))


def stored(call: Call, m: Method, request: Any, conflict: errors.ApiError) -> Any | None:
    """The resource a create that answered ALREADY_EXISTS (`conflict`) after an unknown first attempt finds
    stored, if it holds what `request` sent; else None."""
    sent = _resource(m, request)
    parent = getattr(request, "parent", None)
    if sent is None or not isinstance(parent, str):
        return None
    service = m.full_name.rsplit(".", 1)[0]
    siblings = [x for x in contract.methods().values() if x.full_name.rsplit(".", 1)[0] == service]
    named = next((str(d.get("resourceName", "")) for d in conflict.details if _kind(d) == "ResourceInfo"), "")
    resource = m.output.full_name
    get = next((x for x in siblings if x.name.startswith("Get") and x.output.full_name == resource), None)
    if named and get is not None and "uid" in get.input.fields_by_name:
        try:
            found = call(get, get.input_record(uid=named))
        except errors.NotFound:
            found = None
        if found is not None and _same(sent, found):
            return found
    lister = next(
        (x for x in siblings if x.items and x.output.fields_by_name[x.items].message_type.full_name == resource), None
    )
    if lister is None:
        return None
    fields = lister.input.fields_by_name
    ask: dict[str, Any] = {"uidp": UIDPFilter(children_of=parent)} if "uidp" in fields else {}
    name = getattr(sent, "name", None)
    if "name" in fields and isinstance(name, str) and name:
        ask["name"] = name
    if "page_size" in fields:
        ask["page_size"] = 200
    page_request = lister.input_record(**ask)
    for _ in range(LOOKUP_PAGES):
        page = call(lister, page_request)
        found = next((item for item in getattr(page, lister.items) if _same(sent, item)), None)
        if found is not None or not page.next_page_token:
            return found
        page_request = msgspec.structs.replace(page_request, page_token=page.next_page_token)
    return None


def _kind(detail: dict[str, Any]) -> str:
    return str(detail.get("@type", "")).rsplit(".", 1)[-1]


def _resource(m: Method, request: Any) -> Any | None:
    """The resource a create request carries (its field of the type the create answers)."""
    for f in m.input.fields:
        if f.message_type is not None and f.message_type.full_name == m.output.full_name:
            return getattr(request, f.name, None)
    return None


def _same(sent: Any, found: Any) -> bool:
    """Whether `found` holds every plain value (text, number, flag) `sent` set; nested and list values are not
    compared (the server may order, complete or withhold them: secrets are never answered)."""
    mine, theirs = msgspec.to_builtins(sent), msgspec.to_builtins(found)
    return all(
        theirs.get(key) == value
        for key, value in mine.items()
        if key not in _OUTPUT_ONLY and isinstance(value, str | int | float | bool) and value not in ("", 0, False)
    )
