-- IAM resources beyond identities and roles: identity providers (OIDC SSO settings), their external group
-- -> role mappings, account associations (one per group), group invites and terms acceptances.

-- The OIDC client secret is kept out of `body` (what the API returns) in its own column.
CREATE TABLE identity_providers (
    uid TEXT COLLATE "C" PRIMARY KEY,
    parent TEXT COLLATE "C" NOT NULL,
    name TEXT COLLATE "C" NOT NULL,
    create_time TEXT COLLATE "C" NOT NULL,
    update_time TEXT COLLATE "C" NOT NULL,
    body TEXT NOT NULL,
    default_role TEXT COLLATE "C" NOT NULL,
    client_secret TEXT NOT NULL DEFAULT '',
    kind INTEGER NOT NULL DEFAULT 0,
    UNIQUE (parent, name)
);
CREATE INDEX identity_providers_name ON identity_providers (name, uid);
CREATE INDEX identity_providers_create_time ON identity_providers (create_time, uid);
CREATE INDEX identity_providers_update_time ON identity_providers (update_time, uid);
CREATE INDEX identity_providers_default_role ON identity_providers (default_role);

-- SCIM provisioning credentials of an identity provider (at most one row each). Tokens are stored as
-- SHA-256 only; '' marks an absent token or time. The previous token stays valid until its overlap ends.
CREATE TABLE scim_credentials (
    idp_uid TEXT COLLATE "C" PRIMARY KEY,
    enabled INTEGER NOT NULL DEFAULT 0,
    token_hash TEXT COLLATE "C" NOT NULL DEFAULT '',
    -- '' when the token never expires
    expire_time TEXT COLLATE "C" NOT NULL DEFAULT '',
    previous_hash TEXT COLLATE "C" NOT NULL DEFAULT '',
    previous_expire_time TEXT COLLATE "C" NOT NULL DEFAULT '',
    revoke_time TEXT COLLATE "C" NOT NULL DEFAULT '',
    etag TEXT NOT NULL,
    create_time TEXT COLLATE "C" NOT NULL,
    update_time TEXT COLLATE "C" NOT NULL
);
CREATE INDEX scim_credentials_token ON scim_credentials (token_hash);
CREATE INDEX scim_credentials_previous ON scim_credentials (previous_hash);

-- Under their identity provider (parent); `scope` is the group where the role applies.
CREATE TABLE external_group_role_mappings (
    uid TEXT COLLATE "C" PRIMARY KEY,
    parent TEXT COLLATE "C" NOT NULL,
    external_group_id TEXT COLLATE "C" NOT NULL,
    role_uid TEXT COLLATE "C" NOT NULL,
    scope TEXT COLLATE "C" NOT NULL,
    create_time TEXT COLLATE "C" NOT NULL,
    update_time TEXT COLLATE "C" NOT NULL,
    body TEXT NOT NULL,
    kind INTEGER NOT NULL DEFAULT 0,
    UNIQUE (parent, external_group_id, role_uid, scope)
);
CREATE INDEX external_group_role_mappings_role ON external_group_role_mappings (role_uid);
CREATE INDEX external_group_role_mappings_create_time ON external_group_role_mappings (create_time, uid);
CREATE INDEX external_group_role_mappings_update_time ON external_group_role_mappings (update_time, uid);

-- One per group: uid is the group's uid, parent that group's parent ('' for an organization), so that the
-- uid-range filters and the per-parent counters treat it like any other row.
CREATE TABLE account_associations (
    uid TEXT COLLATE "C" PRIMARY KEY,
    parent TEXT COLLATE "C" NOT NULL,
    name TEXT COLLATE "C" NOT NULL,
    create_time TEXT COLLATE "C" NOT NULL,
    update_time TEXT COLLATE "C" NOT NULL,
    body TEXT NOT NULL,
    kind INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX account_associations_name ON account_associations (name, uid);
CREATE INDEX account_associations_create_time ON account_associations (create_time, uid);
CREATE INDEX account_associations_update_time ON account_associations (update_time, uid);

-- The invite code itself is never stored: only its SHA-256 (hex).
CREATE TABLE group_invites (
    uid TEXT COLLATE "C" PRIMARY KEY,
    parent TEXT COLLATE "C" NOT NULL,
    role_uid TEXT COLLATE "C" NOT NULL,
    key_id TEXT COLLATE "C" NOT NULL,
    code_hash TEXT COLLATE "C" NOT NULL UNIQUE,
    email TEXT NOT NULL DEFAULT '',
    expire_time TEXT COLLATE "C" NOT NULL,
    single_use INTEGER NOT NULL DEFAULT 0,
    -- '' until a single-use invite is redeemed
    used_time TEXT COLLATE "C" NOT NULL DEFAULT '',
    create_time TEXT COLLATE "C" NOT NULL,
    update_time TEXT COLLATE "C" NOT NULL,
    body TEXT NOT NULL,
    kind INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX group_invites_role ON group_invites (role_uid);
CREATE INDEX group_invites_key_id ON group_invites (key_id, uid);
CREATE INDEX group_invites_create_time ON group_invites (create_time, uid);
CREATE INDEX group_invites_update_time ON group_invites (update_time, uid);

-- One acceptance per (group, document); uid is an internal `<group>/<16 hex>` key for paging.
CREATE TABLE terms_acceptances (
    uid TEXT COLLATE "C" PRIMARY KEY,
    parent TEXT COLLATE "C" NOT NULL,
    doc_id TEXT COLLATE "C" NOT NULL,
    accepted_by TEXT COLLATE "C" NOT NULL,
    create_time TEXT COLLATE "C" NOT NULL,
    update_time TEXT COLLATE "C" NOT NULL,
    body TEXT NOT NULL,
    kind INTEGER NOT NULL DEFAULT 0,
    UNIQUE (parent, doc_id)
);
CREATE INDEX terms_acceptances_doc_id ON terms_acceptances (doc_id, uid);
CREATE INDEX terms_acceptances_create_time ON terms_acceptances (create_time, uid);
CREATE INDEX terms_acceptances_update_time ON terms_acceptances (update_time, uid);

CREATE TRIGGER identity_providers_count AFTER INSERT OR DELETE ON identity_providers FOR EACH ROW EXECUTE FUNCTION count_children();
CREATE TRIGGER external_group_role_mappings_count AFTER INSERT OR DELETE ON external_group_role_mappings FOR EACH ROW EXECUTE FUNCTION count_children();
CREATE TRIGGER account_associations_count AFTER INSERT OR DELETE ON account_associations FOR EACH ROW EXECUTE FUNCTION count_children();
CREATE TRIGGER group_invites_count AFTER INSERT OR DELETE ON group_invites FOR EACH ROW EXECUTE FUNCTION count_children();
CREATE TRIGGER terms_acceptances_count AFTER INSERT OR DELETE ON terms_acceptances FOR EACH ROW EXECUTE FUNCTION count_children();
