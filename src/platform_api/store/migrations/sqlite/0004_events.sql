-- Events: subscriptions, the transactional outbox of CloudEvents, and per-subscription deliveries.
-- A mutation inserts its event and one delivery row per matching subscription in its own transaction;
-- the dispatcher claims due deliveries (claimed_until is a lease: a crashed claimer's rows come back).

CREATE TABLE subscriptions (
    uid TEXT PRIMARY KEY,
    parent TEXT NOT NULL,
    create_time TEXT NOT NULL,
    update_time TEXT NOT NULL,
    -- the Subscription as the API shows it (without its secret)
    body TEXT NOT NULL,
    kind INTEGER NOT NULL DEFAULT 0,
    sink TEXT NOT NULL,
    -- JSON array of event-type filters; '[]' = every type
    types TEXT NOT NULL DEFAULT '[]',
    disabled INTEGER NOT NULL DEFAULT 0,
    -- Standard Webhooks signing secret (whsec_...)
    secret TEXT NOT NULL
);
CREATE INDEX subscriptions_parent ON subscriptions (parent);
CREATE INDEX subscriptions_create_time ON subscriptions (create_time, uid);
CREATE INDEX subscriptions_update_time ON subscriptions (update_time, uid);

-- The outbox: one row per committed mutation, exactly what is sent (headers and body).
CREATE TABLE events (
    id TEXT PRIMARY KEY,            -- Ce-Id
    type TEXT NOT NULL,             -- Ce-Type
    source TEXT NOT NULL,           -- Ce-Source
    subject TEXT NOT NULL,          -- Ce-Subject
    grp TEXT NOT NULL,              -- Ce-Group: the group extension
    time TEXT NOT NULL,             -- Ce-Time
    bodytype TEXT NOT NULL,         -- Ce-Bodytype
    extensions TEXT NOT NULL DEFAULT '{}',  -- further Ce-* extension headers, JSON object
    data TEXT NOT NULL,             -- the exact HTTP body
    create_time TEXT NOT NULL
);
CREATE INDEX events_create_time ON events (create_time);

-- state: 1 pending, 2 delivered, 3 failed (attempts exhausted), 4 gone (410: subscription disabled)
CREATE TABLE deliveries (
    uid TEXT PRIMARY KEY,           -- <subscription uid>/<16 hex>
    parent TEXT NOT NULL,           -- the subscription
    event_id TEXT NOT NULL,
    state INTEGER NOT NULL,
    due REAL NOT NULL,              -- epoch seconds of the next attempt while pending
    round_attempts INTEGER NOT NULL DEFAULT 0,  -- attempts since the delivery (or redelivery) began
    round_start REAL NOT NULL DEFAULT 0,        -- epoch seconds of that round's first attempt
    claimed_until REAL NOT NULL DEFAULT 0,      -- lease of the dispatcher making the attempt
    claim TEXT NOT NULL DEFAULT '',
    create_time TEXT NOT NULL,
    update_time TEXT NOT NULL,
    body TEXT NOT NULL,             -- the Delivery as the API shows it, attempts included
    kind INTEGER NOT NULL DEFAULT 0,
    UNIQUE (parent, event_id)
);
CREATE INDEX deliveries_due ON deliveries (due) WHERE state = 1;
CREATE INDEX deliveries_event ON deliveries (event_id);
CREATE INDEX deliveries_create_time ON deliveries (create_time, uid);
CREATE INDEX deliveries_update_time ON deliveries (update_time, uid);

-- SQLite runs one dispatcher per database: whoever holds this lease.
CREATE TABLE dispatcher_lease (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    holder TEXT NOT NULL,
    until REAL NOT NULL
);
INSERT INTO dispatcher_lease (id, holder, until) VALUES (1, '', 0);

CREATE TRIGGER subscriptions_count_insert AFTER INSERT ON subscriptions BEGIN
    INSERT INTO child_counts (tbl, parent, kind, n) VALUES ('subscriptions', NEW.parent, NEW.kind, 1)
    ON CONFLICT (tbl, parent, kind) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER subscriptions_count_delete AFTER DELETE ON subscriptions BEGIN
    UPDATE child_counts SET n = n - 1 WHERE tbl = 'subscriptions' AND parent = OLD.parent AND kind = OLD.kind;
END;
CREATE TRIGGER deliveries_count_insert AFTER INSERT ON deliveries BEGIN
    INSERT INTO child_counts (tbl, parent, kind, n) VALUES ('deliveries', NEW.parent, NEW.kind, 1)
    ON CONFLICT (tbl, parent, kind) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER deliveries_count_delete AFTER DELETE ON deliveries BEGIN
    UPDATE child_counts SET n = n - 1 WHERE tbl = 'deliveries' AND parent = OLD.parent AND kind = OLD.kind;
END;
