-- Events: subscriptions, the transactional outbox of CloudEvents, and per-subscription deliveries.
-- A mutation inserts its event and one delivery row per matching subscription in its own transaction
-- (and NOTIFYs platform_api_events, delivered at commit); dispatchers claim due deliveries with
-- FOR UPDATE SKIP LOCKED and a lease (claimed_until), so a crashed claimer's rows come back.

CREATE TABLE subscriptions (
    uid TEXT COLLATE "C" PRIMARY KEY,
    parent TEXT COLLATE "C" NOT NULL,
    create_time TEXT COLLATE "C" NOT NULL,
    update_time TEXT COLLATE "C" NOT NULL,
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
    id TEXT COLLATE "C" PRIMARY KEY,            -- Ce-Id
    type TEXT NOT NULL,                         -- Ce-Type
    source TEXT NOT NULL,                       -- Ce-Source
    subject TEXT NOT NULL,                      -- Ce-Subject
    grp TEXT COLLATE "C" NOT NULL,              -- Ce-Group: the group extension
    time TEXT NOT NULL,                         -- Ce-Time
    bodytype TEXT NOT NULL,                     -- Ce-Bodytype
    extensions TEXT NOT NULL DEFAULT '{}',      -- further Ce-* extension headers, JSON object
    data TEXT NOT NULL,                         -- the exact HTTP body
    create_time TEXT COLLATE "C" NOT NULL
);
CREATE INDEX events_create_time ON events (create_time);

-- state: 1 pending, 2 delivered, 3 failed (attempts exhausted), 4 gone (410: subscription disabled)
CREATE TABLE deliveries (
    uid TEXT COLLATE "C" PRIMARY KEY,           -- <subscription uid>/<16 hex>
    parent TEXT COLLATE "C" NOT NULL,           -- the subscription
    event_id TEXT COLLATE "C" NOT NULL,
    state INTEGER NOT NULL,
    due DOUBLE PRECISION NOT NULL,              -- epoch seconds of the next attempt while pending
    round_attempts INTEGER NOT NULL DEFAULT 0,  -- attempts since the delivery (or redelivery) began
    round_start DOUBLE PRECISION NOT NULL DEFAULT 0,    -- epoch seconds of that round's first attempt
    claimed_until DOUBLE PRECISION NOT NULL DEFAULT 0,  -- lease of the dispatcher making the attempt
    claim TEXT NOT NULL DEFAULT '',
    create_time TEXT COLLATE "C" NOT NULL,
    update_time TEXT COLLATE "C" NOT NULL,
    body TEXT NOT NULL,                         -- the Delivery as the API shows it, attempts included
    kind INTEGER NOT NULL DEFAULT 0,
    UNIQUE (parent, event_id)
);
CREATE INDEX deliveries_due ON deliveries (due) WHERE state = 1;
CREATE INDEX deliveries_event ON deliveries (event_id);
CREATE INDEX deliveries_create_time ON deliveries (create_time, uid);
CREATE INDEX deliveries_update_time ON deliveries (update_time, uid);

-- Unused on PostgreSQL (any number of dispatchers claim with SKIP LOCKED); kept for one schema shape.
CREATE TABLE dispatcher_lease (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    holder TEXT NOT NULL,
    until DOUBLE PRECISION NOT NULL
);
INSERT INTO dispatcher_lease (id, holder, until) VALUES (1, '', 0);

CREATE TRIGGER subscriptions_count AFTER INSERT OR DELETE ON subscriptions FOR EACH ROW EXECUTE FUNCTION count_children();
CREATE TRIGGER deliveries_count AFTER INSERT OR DELETE ON deliveries FOR EACH ROW EXECUTE FUNCTION count_children();
