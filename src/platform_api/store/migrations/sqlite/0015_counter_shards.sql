-- The counters' shard column, as on PostgreSQL (where creates under one parent no longer wait for each
-- other on one counter row). SQLite has one writer, so every row stays on shard 0: the new unique index is
-- only there so that the same upsert (ON CONFLICT (tbl, parent, kind, shard)) runs on both.
ALTER TABLE child_counts ADD COLUMN shard INTEGER NOT NULL DEFAULT 0;
CREATE UNIQUE INDEX child_counts_shard ON child_counts (tbl, parent, kind, shard);
