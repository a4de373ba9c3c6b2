-- Nothing to change on SQLite: its INTEGER is 64-bit (PostgreSQL's library_versions.size_bytes becomes BIGINT).
SELECT 1;
