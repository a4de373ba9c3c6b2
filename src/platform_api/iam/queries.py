"""SQL on the IAM tables shared by several IAM modules (issue 10 moves every IAM statement here)."""

from __future__ import annotations

from platform_api.core import errors, uidp
from platform_api.gen.records.iam_v2 import RoleBinding
from platform_api.service import storage
from platform_api.store import rows
from platform_api.store.db import Conn

ROLE_BINDING = "chainguard.platform.iam.v2.RoleBinding"


def binding_conflict() -> errors.ApiError:
    return errors.already_exists(ROLE_BINDING, "", "this identity already has this role at this group")


async def insert_role_binding(tx: Conn, group: str, identity_uid: str, role_uid: str, now: str) -> RoleBinding:
    """Binds the role at the group (creating an organization, redeeming an invite, an IdP's first login,
    CreateRoleBinding)."""
    rb = RoleBinding(uid=uidp.new_child(group), identity_uid=identity_uid, role_uid=role_uid,
                     create_time=now, update_time=now)  # fmt: skip
    await storage.unique_write(
        tx, binding_conflict(),
        "INSERT INTO role_bindings (uid, parent, identity_uid, role_uid, create_time, update_time, body)"
        " VALUES ($1, $2, $3, $4, $5, $6, $7)",
        rb.uid, group, identity_uid, role_uid, now, now, rows.body(rb),
    )  # fmt: skip
    return rb
