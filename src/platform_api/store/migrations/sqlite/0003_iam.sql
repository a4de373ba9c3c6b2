-- IAM resources beyond identities and roles: identity providers (OIDC SSO settings), their external group
-- -> role mappings, account associations (one per group), group invites and terms acceptances.

-- The OIDC client secret is kept out of `body` (what the API returns) in its own column.
CREATE TABLE identity_providers (
    uid TEXT PRIMARY KEY,
    parent TEXT NOT NULL,
    name TEXT NOT NULL,
    create_time TEXT NOT NULL,
    update_time TEXT NOT NULL,
    body TEXT NOT NULL,
    default_role TEXT NOT NULL,
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
    idp_uid TEXT PRIMARY KEY,
    enabled INTEGER NOT NULL DEFAULT 0,
    token_hash TEXT NOT NULL DEFAULT '',
    -- '' when the token never expires
    expire_time TEXT NOT NULL DEFAULT '',
    previous_hash TEXT NOT NULL DEFAULT '',
    previous_expire_time TEXT NOT NULL DEFAULT '',
    revoke_time TEXT NOT NULL DEFAULT '',
    etag TEXT NOT NULL,
    create_time TEXT NOT NULL,
    update_time TEXT NOT NULL
);
CREATE INDEX scim_credentials_token ON scim_credentials (token_hash);
CREATE INDEX scim_credentials_previous ON scim_credentials (previous_hash);

-- Under their identity provider (parent); `scope` is the group where the role applies.
CREATE TABLE external_group_role_mappings (
    uid TEXT PRIMARY KEY,
    parent TEXT NOT NULL,
    external_group_id TEXT NOT NULL,
    role_uid TEXT NOT NULL,
    scope TEXT NOT NULL,
    create_time TEXT NOT NULL,
    update_time TEXT NOT NULL,
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
    uid TEXT PRIMARY KEY,
    parent TEXT NOT NULL,
    name TEXT NOT NULL,
    create_time TEXT NOT NULL,
    update_time TEXT NOT NULL,
    body TEXT NOT NULL,
    kind INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX account_associations_name ON account_associations (name, uid);
CREATE INDEX account_associations_create_time ON account_associations (create_time, uid);
CREATE INDEX account_associations_update_time ON account_associations (update_time, uid);

-- The invite code itself is never stored: only its SHA-256 (hex).
CREATE TABLE group_invites (
    uid TEXT PRIMARY KEY,
    parent TEXT NOT NULL,
    role_uid TEXT NOT NULL,
    key_id TEXT NOT NULL,
    code_hash TEXT NOT NULL UNIQUE,
    email TEXT NOT NULL DEFAULT '',
    expire_time TEXT NOT NULL,
    single_use INTEGER NOT NULL DEFAULT 0,
    -- '' until a single-use invite is redeemed
    used_time TEXT NOT NULL DEFAULT '',
    create_time TEXT NOT NULL,
    update_time TEXT NOT NULL,
    body TEXT NOT NULL,
    kind INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX group_invites_role ON group_invites (role_uid);
CREATE INDEX group_invites_key_id ON group_invites (key_id, uid);
CREATE INDEX group_invites_create_time ON group_invites (create_time, uid);
CREATE INDEX group_invites_update_time ON group_invites (update_time, uid);

-- One acceptance per (group, document); uid is an internal `<group>/<16 hex>` key for paging.
CREATE TABLE terms_acceptances (
    uid TEXT PRIMARY KEY,
    parent TEXT NOT NULL,
    doc_id TEXT NOT NULL,
    accepted_by TEXT NOT NULL,
    create_time TEXT NOT NULL,
    update_time TEXT NOT NULL,
    body TEXT NOT NULL,
    kind INTEGER NOT NULL DEFAULT 0,
    UNIQUE (parent, doc_id)
);
CREATE INDEX terms_acceptances_doc_id ON terms_acceptances (doc_id, uid);
CREATE INDEX terms_acceptances_create_time ON terms_acceptances (create_time, uid);
CREATE INDEX terms_acceptances_update_time ON terms_acceptances (update_time, uid);

CREATE TRIGGER identity_providers_count_insert AFTER INSERT ON identity_providers BEGIN
    INSERT INTO child_counts (tbl, parent, kind, n) VALUES ('identity_providers', NEW.parent, NEW.kind, 1)
    ON CONFLICT (tbl, parent, kind) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER identity_providers_count_delete AFTER DELETE ON identity_providers BEGIN
    UPDATE child_counts SET n = n - 1 WHERE tbl = 'identity_providers' AND parent = OLD.parent AND kind = OLD.kind;
END;
CREATE TRIGGER external_group_role_mappings_count_insert AFTER INSERT ON external_group_role_mappings BEGIN
    INSERT INTO child_counts (tbl, parent, kind, n) VALUES ('external_group_role_mappings', NEW.parent, NEW.kind, 1)
    ON CONFLICT (tbl, parent, kind) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER external_group_role_mappings_count_delete AFTER DELETE ON external_group_role_mappings BEGIN
    UPDATE child_counts SET n = n - 1 WHERE tbl = 'external_group_role_mappings' AND parent = OLD.parent AND kind = OLD.kind;
END;
CREATE TRIGGER account_associations_count_insert AFTER INSERT ON account_associations BEGIN
    INSERT INTO child_counts (tbl, parent, kind, n) VALUES ('account_associations', NEW.parent, NEW.kind, 1)
    ON CONFLICT (tbl, parent, kind) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER account_associations_count_delete AFTER DELETE ON account_associations BEGIN
    UPDATE child_counts SET n = n - 1 WHERE tbl = 'account_associations' AND parent = OLD.parent AND kind = OLD.kind;
END;
CREATE TRIGGER group_invites_count_insert AFTER INSERT ON group_invites BEGIN
    INSERT INTO child_counts (tbl, parent, kind, n) VALUES ('group_invites', NEW.parent, NEW.kind, 1)
    ON CONFLICT (tbl, parent, kind) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER group_invites_count_delete AFTER DELETE ON group_invites BEGIN
    UPDATE child_counts SET n = n - 1 WHERE tbl = 'group_invites' AND parent = OLD.parent AND kind = OLD.kind;
END;
CREATE TRIGGER terms_acceptances_count_insert AFTER INSERT ON terms_acceptances BEGIN
    INSERT INTO child_counts (tbl, parent, kind, n) VALUES ('terms_acceptances', NEW.parent, NEW.kind, 1)
    ON CONFLICT (tbl, parent, kind) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER terms_acceptances_count_delete AFTER DELETE ON terms_acceptances BEGIN
    UPDATE child_counts SET n = n - 1 WHERE tbl = 'terms_acceptances' AND parent = OLD.parent AND kind = OLD.kind;
END;
