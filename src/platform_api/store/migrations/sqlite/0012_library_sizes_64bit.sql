-- PostgreSQL's library_versions.size_bytes becomes BIGINT; SQLite's INTEGER is 64-bit already: nothing to do.
SELECT 1;
