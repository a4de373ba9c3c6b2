-- Foundation: service secrets, groups, registry repos and tags.
-- Every resource row: uid path primary key, parent for children_of, the columns its filters and
-- orderings need, and `body`: the resource's canonical JSON (what GET returns).

CREATE TABLE service_secrets (
    name TEXT COLLATE "C" PRIMARY KEY,
    value BYTEA NOT NULL,
    create_time TEXT COLLATE "C" NOT NULL
);

CREATE TABLE groups (
    uid TEXT COLLATE "C" PRIMARY KEY,
    parent TEXT COLLATE "C" NOT NULL,
    name TEXT COLLATE "C" NOT NULL,
    create_time TEXT COLLATE "C" NOT NULL,
    update_time TEXT COLLATE "C" NOT NULL,
    body TEXT NOT NULL
);
-- Sibling groups (and root organizations) have distinct names.
CREATE UNIQUE INDEX groups_parent_name ON groups (parent, name);
CREATE INDEX groups_name ON groups (name, uid);
CREATE INDEX groups_create_time ON groups (create_time, uid);
CREATE INDEX groups_update_time ON groups (update_time, uid);

CREATE TABLE repos (
    uid TEXT COLLATE "C" PRIMARY KEY,
    parent TEXT COLLATE "C" NOT NULL,
    name TEXT COLLATE "C" NOT NULL,
    create_time TEXT COLLATE "C" NOT NULL,
    update_time TEXT COLLATE "C" NOT NULL,
    body TEXT NOT NULL,
    readme TEXT NOT NULL DEFAULT '',
    UNIQUE (parent, name)
);
CREATE INDEX repos_name ON repos (name, uid);
CREATE INDEX repos_create_time ON repos (create_time, uid);
CREATE INDEX repos_update_time ON repos (update_time, uid);

CREATE TABLE tags (
    uid TEXT COLLATE "C" PRIMARY KEY,
    parent TEXT COLLATE "C" NOT NULL,
    name TEXT COLLATE "C" NOT NULL,
    digest TEXT COLLATE "C" NOT NULL,
    -- derived from the name: referrer (sha256-*), dated (*-20yymmdd), epoch (*-rN) tags
    kind INTEGER NOT NULL DEFAULT 0,
    create_time TEXT COLLATE "C" NOT NULL,
    update_time TEXT COLLATE "C" NOT NULL,
    body TEXT NOT NULL,
    UNIQUE (parent, name)
);
CREATE INDEX tags_name ON tags (name, uid);
CREATE INDEX tags_create_time ON tags (create_time, uid);
CREATE INDEX tags_update_time ON tags (update_time, uid);
