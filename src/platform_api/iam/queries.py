"""SQL on the IAM tables that several IAM modules (and `auth`, through `iam.GRANTS`) work with:
`role_bindings` and `external_group_role_mappings`.

Ownership rule (every domain; tests/unit/store/test_table_owners.py): each table has one owning module, and
only that module has SQL on it (including the generic statements `service.crud`, `storage.get` and `listing`
build from the owner's declaration); every other module calls the owner's functions. A resource module owns
its table when the others only need a few reads or writes it can offer as functions without an import cycle
(`identities.py`, `roles.py`, `groups.py`, `sts.py`: refresh_tokens, `identity_providers.py`: identity_providers
and scim_credentials, `group_invites.py`, `terms.py`, `account_associations.py`); tables written or read by
several modules live here. What goes with a deleted group, identity or role is declared by each owner as a
cascade (`iam/__init__.py`), not deleted here by table name.
"""

from __future__ import annotations

from platform_api.core import errors, uidp
from platform_api.gen.records.iam_v2 import ExternalGroupRoleMapping, RoleBinding
from platform_api.outbox import outbox
from platform_api.service import crud, listing
from platform_api.store import rows
from platform_api.store.db import Conn

ROLE_BINDING = "chainguard.platform.iam.v2.RoleBinding"
MAPPING = "chainguard.platform.iam.v2.ExternalGroupRoleMapping"
ROLE_BINDINGS = crud.Resource("role_bindings", RoleBinding, ROLE_BINDING, outbox.emit)
MAPPINGS = crud.Resource("external_group_role_mappings", ExternalGroupRoleMapping, MAPPING, outbox.emit)
_ORDER = {"uid": "uid", "created_at": "create_time", "updated_at": "update_time"}
ROLE_BINDINGS_TABLE = listing.Table("role_bindings", order_keys=_ORDER)
MAPPINGS_TABLE = listing.Table(
    "external_group_role_mappings", order_keys={**_ORDER, "external_group_id": "external_group_id"}
)


def binding_conflict() -> errors.ApiError:
    return errors.already_exists(ROLE_BINDING, "", "this identity already has this role at this group")


async def insert_role_binding(tx: Conn, group: str, identity_uid: str, role_uid: str, now: str) -> RoleBinding:
    """Binds the role at the group (creating an organization, redeeming an invite, an IdP's first login,
    CreateRoleBinding)."""
    rb = RoleBinding(uid=uidp.new_child(group), identity_uid=identity_uid, role_uid=role_uid,
                     create_time=now, update_time=now)  # fmt: skip
    await ROLE_BINDINGS.insert(tx, rb, group, conflict=binding_conflict(), identity_uid=identity_uid, role_uid=role_uid)
    return rb


async def delete_bindings_at(tx: Conn, group: str) -> None:
    await ROLE_BINDINGS.delete_where(tx, "parent", group)


async def delete_bindings_of(tx: Conn, identity: str) -> None:
    await ROLE_BINDINGS.delete_where(tx, "identity_uid", identity)


async def role_is_bound(conn: Conn, role: str) -> bool:
    return await ROLE_BINDINGS.any_where(conn, "role_uid", role)


async def update_role_binding(tx: Conn, rb: RoleBinding) -> None:
    await ROLE_BINDINGS.update(tx, rb, conflict=binding_conflict(), identity_uid=rb.identity_uid, role_uid=rb.role_uid)


async def has_binding(conn: Conn, group: str, identity_uid: str, role_uid: str) -> bool:
    sql = "SELECT 1 FROM role_bindings WHERE parent = $1 AND identity_uid = $2 AND role_uid = $3"
    return await conn.fetchval(sql, group, identity_uid, role_uid) is not None


async def count_bound(conn: Conn, group: str, role_uid: str) -> int:
    """How many distinct identities hold `role_uid` at `group` itself."""
    sql = "SELECT COUNT(DISTINCT identity_uid) FROM role_bindings WHERE parent = $1 AND role_uid = $2"
    return int(await conn.fetchval(sql, group, role_uid) or 0)


async def first_root_binding(conn: Conn, role_uid: str) -> tuple[str, str] | None:
    """(organization, identity) of the oldest binding of `role_uid` at an organization (a root group)."""
    # An organization's uid is the only kind without a '/' (a binding's group exists: it goes with it).
    row = await conn.fetchrow(
        "SELECT parent, identity_uid FROM role_bindings WHERE role_uid = $1 AND parent NOT LIKE '%/%'"
        " ORDER BY create_time, uid LIMIT 1",
        role_uid,
    )
    return (row["parent"], row["identity_uid"]) if row is not None else None


async def binding_roles(conn: Conn, identity: str) -> list[tuple[str, str]]:
    """(group, role uid) of each of the identity's role bindings."""
    found = await conn.fetch("SELECT parent, role_uid FROM role_bindings WHERE identity_uid = $1", identity)
    return [(r["parent"], r["role_uid"]) for r in found]


# ------------------------------------------------------------------ external group role mappings


def mapping_conflict() -> errors.ApiError:
    return errors.already_exists(
        MAPPING, "", "this identity provider already maps this group to this role at this scope"
    )


async def delete_mappings_of(tx: Conn, idp_uid: str) -> None:
    await MAPPINGS.delete_where(tx, "parent", idp_uid)


async def delete_mappings_scoped_at(tx: Conn, group: str) -> None:
    await MAPPINGS.delete_where(tx, "scope", group)


async def role_is_mapped(conn: Conn, role: str) -> bool:
    return await MAPPINGS.any_where(conn, "role_uid", role)


async def insert_mapping(tx: Conn, mapping: ExternalGroupRoleMapping, idp_uid: str) -> None:
    await MAPPINGS.insert(
        tx, mapping, idp_uid, conflict=mapping_conflict(),
        external_group_id=mapping.external_group_id, role_uid=mapping.role_uid, scope=mapping.scope,
    )  # fmt: skip


async def mapping_grants(conn: Conn, idp_uid: str, external_groups: list[str]) -> list[tuple[str, str]]:
    """(scope group uid, role uid) for every mapping of the provider naming one of `external_groups`."""
    wanted = sorted({g for g in external_groups if isinstance(g, str) and g})
    if not wanted:
        return []
    found = await conn.fetch(
        "SELECT scope, role_uid FROM external_group_role_mappings"
        " WHERE parent = $1 AND external_group_id = ANY($2) ORDER BY scope, role_uid",
        idp_uid,
        wanted,
    )
    return sorted({(r["scope"], r["role_uid"]) for r in found})


async def mapping_roles(conn: Conn, idp_uid: str) -> list[tuple[str, str]]:
    """(scope, role uid) of each mapping of the provider."""
    found = await conn.fetch("SELECT scope, role_uid FROM external_group_role_mappings WHERE parent = $1", idp_uid)
    return [(r["scope"], r["role_uid"]) for r in found]


async def take_mapping(tx: Conn, uid: str) -> ExternalGroupRoleMapping | None:
    """Deletes the mapping, answering what it was (None: there was none)."""
    body = await tx.fetchval("SELECT body FROM external_group_role_mappings WHERE uid = $1", uid)
    if body is None:
        return None
    await MAPPINGS.delete(tx, uid)
    return rows.decode(ExternalGroupRoleMapping, body)
