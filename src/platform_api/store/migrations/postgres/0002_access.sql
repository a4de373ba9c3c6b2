-- Identity and access: signing keys of our issuer, identities, roles, role bindings, refresh tokens,
-- and the authorization version that every change of who-may-do-what increments (and announces
-- with NOTIFY platform_api_authz, so other processes drop their cached decisions).

CREATE TABLE signing_keys (
    kid TEXT COLLATE "C" PRIMARY KEY,
    alg TEXT NOT NULL,
    private_pem TEXT NOT NULL,
    public_jwk TEXT NOT NULL,
    create_time TEXT COLLATE "C" NOT NULL,
    -- '' while the key signs; otherwise when it stopped (it still verifies until its tokens expire)
    retire_time TEXT COLLATE "C" NOT NULL DEFAULT ''
);

-- kind: relationship (0 none, 1 claim match, 2 static keys). match_issuer / match_subject: the exact
-- issuer and subject an upstream token must carry, '*' where a pattern decides (token exchange looks
-- identities up by them).
CREATE TABLE identities (
    uid TEXT COLLATE "C" PRIMARY KEY,
    parent TEXT COLLATE "C" NOT NULL,
    name TEXT COLLATE "C" NOT NULL,
    create_time TEXT COLLATE "C" NOT NULL,
    update_time TEXT COLLATE "C" NOT NULL,
    body TEXT NOT NULL,
    kind INTEGER NOT NULL DEFAULT 0,
    match_issuer TEXT COLLATE "C" NOT NULL DEFAULT '',
    match_subject TEXT COLLATE "C" NOT NULL DEFAULT ''
);
CREATE INDEX identities_match ON identities (match_issuer, match_subject);
CREATE INDEX identities_name ON identities (name, uid);
CREATE INDEX identities_create_time ON identities (create_time, uid);
CREATE INDEX identities_update_time ON identities (update_time, uid);

-- Built-in roles have parent '' (root level); custom roles live under a group.
CREATE TABLE roles (
    uid TEXT COLLATE "C" PRIMARY KEY,
    parent TEXT COLLATE "C" NOT NULL,
    name TEXT COLLATE "C" NOT NULL,
    create_time TEXT COLLATE "C" NOT NULL,
    update_time TEXT COLLATE "C" NOT NULL,
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
    uid TEXT COLLATE "C" PRIMARY KEY,
    parent TEXT COLLATE "C" NOT NULL,
    identity_uid TEXT COLLATE "C" NOT NULL,
    role_uid TEXT COLLATE "C" NOT NULL,
    create_time TEXT COLLATE "C" NOT NULL,
    update_time TEXT COLLATE "C" NOT NULL,
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
    token_hash TEXT COLLATE "C" PRIMARY KEY,
    family TEXT COLLATE "C" NOT NULL,
    identity_uid TEXT COLLATE "C" NOT NULL,
    claims TEXT NOT NULL,
    create_time TEXT COLLATE "C" NOT NULL,
    expire_time TEXT COLLATE "C" NOT NULL,
    used_time TEXT COLLATE "C" NOT NULL DEFAULT ''
);
CREATE INDEX refresh_tokens_family ON refresh_tokens (family);

CREATE TABLE authz_version (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    v BIGINT NOT NULL
);
INSERT INTO authz_version (id, v) VALUES (1, 0);

CREATE FUNCTION bump_authz() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE nv BIGINT;
BEGIN
    UPDATE authz_version SET v = v + 1 WHERE id = 1 RETURNING v INTO nv;
    PERFORM pg_notify('platform_api_authz', nv::text);
    RETURN NULL;
END
$$;
CREATE TRIGGER role_bindings_authz AFTER INSERT OR UPDATE OR DELETE ON role_bindings
    FOR EACH STATEMENT EXECUTE FUNCTION bump_authz();
CREATE TRIGGER roles_authz AFTER UPDATE OF capabilities OR DELETE ON roles
    FOR EACH STATEMENT EXECUTE FUNCTION bump_authz();
CREATE TRIGGER identities_authz AFTER DELETE ON identities
    FOR EACH STATEMENT EXECUTE FUNCTION bump_authz();

CREATE TRIGGER identities_count AFTER INSERT OR DELETE ON identities FOR EACH ROW EXECUTE FUNCTION count_children();
CREATE TRIGGER roles_count AFTER INSERT OR DELETE ON roles FOR EACH ROW EXECUTE FUNCTION count_children();
CREATE TRIGGER role_bindings_count AFTER INSERT OR DELETE ON role_bindings FOR EACH ROW EXECUTE FUNCTION count_children();
