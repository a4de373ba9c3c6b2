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
    body TEXT NOT NULL,
    kind INTEGER NOT NULL DEFAULT 0
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
    kind INTEGER NOT NULL DEFAULT 0,
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

-- Rows per (table, parent, kind), kept by triggers in the same transaction as every insert and delete,
-- so that totalCount of structural queries (no filter, descendants_of, children_of, in_root) is a sum
-- over a few counters instead of COUNT(*) over every matching row.
CREATE TABLE child_counts (
    tbl TEXT COLLATE "C" NOT NULL,
    parent TEXT COLLATE "C" NOT NULL,
    kind INTEGER NOT NULL,
    n BIGINT NOT NULL,
    PRIMARY KEY (tbl, parent, kind)
);

CREATE FUNCTION count_children() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO child_counts (tbl, parent, kind, n) VALUES (TG_TABLE_NAME, NEW.parent, NEW.kind, 1)
        ON CONFLICT (tbl, parent, kind) DO UPDATE SET n = child_counts.n + 1;
    ELSE
        UPDATE child_counts SET n = n - 1 WHERE tbl = TG_TABLE_NAME AND parent = OLD.parent AND kind = OLD.kind;
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER groups_count AFTER INSERT OR DELETE ON groups FOR EACH ROW EXECUTE FUNCTION count_children();
CREATE TRIGGER repos_count AFTER INSERT OR DELETE ON repos FOR EACH ROW EXECUTE FUNCTION count_children();
CREATE TRIGGER tags_count AFTER INSERT OR DELETE ON tags FOR EACH ROW EXECUTE FUNCTION count_children();
