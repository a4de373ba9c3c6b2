-- Identity and access: signing keys of our issuer, identities, roles, role bindings, refresh tokens,
-- and the authorization version that every change of who-may-do-what increments.

CREATE TABLE signing_keys (
    kid TEXT PRIMARY KEY,
    alg TEXT NOT NULL,
    private_pem TEXT NOT NULL,
    public_jwk TEXT NOT NULL,
    create_time TEXT NOT NULL,
    -- '' while the key signs; otherwise when it stopped (it still verifies until its tokens expire)
    retire_time TEXT NOT NULL DEFAULT ''
);

-- kind: relationship (0 none, 1 claim match, 2 static keys). match_issuer / match_subject: the exact
-- issuer and subject an upstream token must carry, '*' where a pattern decides (token exchange looks
-- identities up by them).
CREATE TABLE identities (
    uid TEXT PRIMARY KEY,
    parent TEXT NOT NULL,
    name TEXT NOT NULL,
    create_time TEXT NOT NULL,
    update_time TEXT NOT NULL,
    body TEXT NOT NULL,
    kind INTEGER NOT NULL DEFAULT 0,
    match_issuer TEXT NOT NULL DEFAULT '',
    match_subject TEXT NOT NULL DEFAULT ''
);
CREATE INDEX identities_match ON identities (match_issuer, match_subject);
CREATE INDEX identities_name ON identities (name, uid);
CREATE INDEX identities_create_time ON identities (create_time, uid);
CREATE INDEX identities_update_time ON identities (update_time, uid);

-- Built-in roles have parent '' (root level); custom roles live under a group.
CREATE TABLE roles (
    uid TEXT PRIMARY KEY,
    parent TEXT NOT NULL,
    name TEXT NOT NULL,
    create_time TEXT NOT NULL,
    update_time TEXT NOT NULL,
    body TEXT NOT NULL,
    -- enum names, comma-separated
    capabilities TEXT NOT NULL,
    kind INTEGER NOT NULL DEFAULT 0,
    UNIQUE (parent, name)
);
CREATE INDEX roles_name ON roles (name, uid);
CREATE INDEX roles_create_time ON roles (create_time, uid);
CREATE INDEX roles_update_time ON roles (update_time, uid);

CREATE TABLE role_bindings (
    uid TEXT PRIMARY KEY,
    parent TEXT NOT NULL,
    identity_uid TEXT NOT NULL,
    role_uid TEXT NOT NULL,
    create_time TEXT NOT NULL,
    update_time TEXT NOT NULL,
    body TEXT NOT NULL,
    kind INTEGER NOT NULL DEFAULT 0,
    UNIQUE (parent, identity_uid, role_uid)
);
CREATE INDEX role_bindings_identity ON role_bindings (identity_uid);
CREATE INDEX role_bindings_role ON role_bindings (role_uid);
CREATE INDEX role_bindings_create_time ON role_bindings (create_time, uid);
CREATE INDEX role_bindings_update_time ON role_bindings (update_time, uid);

-- Opaque refresh tokens, stored as SHA-256; each use rotates the token within its family, and a reuse
-- of a spent token revokes the whole family.
CREATE TABLE refresh_tokens (
    token_hash TEXT PRIMARY KEY,
    family TEXT NOT NULL,
    identity_uid TEXT NOT NULL,
    claims TEXT NOT NULL,
    create_time TEXT NOT NULL,
    expire_time TEXT NOT NULL,
    used_time TEXT NOT NULL DEFAULT ''
);
CREATE INDEX refresh_tokens_family ON refresh_tokens (family);

CREATE TABLE authz_version (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    v INTEGER NOT NULL
);
INSERT INTO authz_version (id, v) VALUES (1, 0);

CREATE TRIGGER role_bindings_authz_insert AFTER INSERT ON role_bindings BEGIN UPDATE authz_version SET v = v + 1; END;
CREATE TRIGGER role_bindings_authz_update AFTER UPDATE ON role_bindings BEGIN UPDATE authz_version SET v = v + 1; END;
CREATE TRIGGER role_bindings_authz_delete AFTER DELETE ON role_bindings BEGIN UPDATE authz_version SET v = v + 1; END;
CREATE TRIGGER roles_authz_update AFTER UPDATE OF capabilities ON roles BEGIN UPDATE authz_version SET v = v + 1; END;
CREATE TRIGGER roles_authz_delete AFTER DELETE ON roles BEGIN UPDATE authz_version SET v = v + 1; END;
CREATE TRIGGER identities_authz_delete AFTER DELETE ON identities BEGIN UPDATE authz_version SET v = v + 1; END;

CREATE TRIGGER identities_count_insert AFTER INSERT ON identities BEGIN
    INSERT INTO child_counts (tbl, parent, kind, n) VALUES ('identities', NEW.parent, NEW.kind, 1)
    ON CONFLICT (tbl, parent, kind) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER identities_count_delete AFTER DELETE ON identities BEGIN
    UPDATE child_counts SET n = n - 1 WHERE tbl = 'identities' AND parent = OLD.parent AND kind = OLD.kind;
END;
CREATE TRIGGER roles_count_insert AFTER INSERT ON roles BEGIN
    INSERT INTO child_counts (tbl, parent, kind, n) VALUES ('roles', NEW.parent, NEW.kind, 1)
    ON CONFLICT (tbl, parent, kind) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER roles_count_delete AFTER DELETE ON roles BEGIN
    UPDATE child_counts SET n = n - 1 WHERE tbl = 'roles' AND parent = OLD.parent AND kind = OLD.kind;
END;
CREATE TRIGGER role_bindings_count_insert AFTER INSERT ON role_bindings BEGIN
    INSERT INTO child_counts (tbl, parent, kind, n) VALUES ('role_bindings', NEW.parent, NEW.kind, 1)
    ON CONFLICT (tbl, parent, kind) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER role_bindings_count_delete AFTER DELETE ON role_bindings BEGIN
    UPDATE child_counts SET n = n - 1 WHERE tbl = 'role_bindings' AND parent = OLD.parent AND kind = OLD.kind;
END;
