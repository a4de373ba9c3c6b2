-- Integer columns wide enough for what real data reaches (audited: every INTEGER column of both dialects).
-- A release's summed file size passes 2^31 bytes (torch-sized wheels): INTEGER refused a 4.5 GB release on
-- PostgreSQL and failed the whole import, while SQLite's INTEGER is 64-bit. The other INTEGER columns hold
-- flags, enum numbers, kind bit masks, attempt counts bounded by settings, and per-artifact version counts
-- and ranks bounded by an import's input limits; all far below 2^31.
ALTER TABLE library_versions ALTER COLUMN size_bytes TYPE BIGINT;
