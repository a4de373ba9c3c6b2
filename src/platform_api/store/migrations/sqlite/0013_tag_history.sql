-- Tag history (v1 ListTagHistory): one row each time a tag is created or moved to another digest, written in
-- the transaction that writes the tag (registry/queries.py) and deleted with the tag and with its repo.
-- seq: the tag's own sequence (1, 2, ...), the order of the moves even within one millisecond; at most the
-- last 1,000 rows per tag are kept (older ones are deleted as new ones are written).
-- A database upgraded to this version starts each existing tag's history with its current digest at its
-- update_time (the moves before the upgrade were not recorded).
CREATE TABLE tag_history (
    tag TEXT NOT NULL,
    seq INTEGER NOT NULL,
    digest TEXT NOT NULL,
    at TEXT NOT NULL,
    PRIMARY KEY (tag, seq)
);
INSERT INTO tag_history (tag, seq, digest, at) SELECT uid, 1, digest, update_time FROM tags;
