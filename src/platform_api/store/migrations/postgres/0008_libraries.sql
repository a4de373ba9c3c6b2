-- Libraries: artifacts (Python projects, Maven artifacts) and their versions. Global data, not owned by
-- any group: `platform-api import libraries` writes them, ArtifactsService reads them.

-- uid: 'python:<PEP 503 name>' or 'java:<groupId>:<artifactId>'. kind: the ecosystem as a bit (1 java,
-- 2 python: the contract's enum numbers), so that the per-parent counters (child_counts, parent '') give
-- the totals per ecosystem without COUNT(*). The import keeps those counters, one update per batch of
-- inserts: no per-row trigger (a row trigger updates the same counter row once per artifact in one
-- transaction, which on PostgreSQL grows quadratically: 2x the import time at 32,000 artifacts). search: lower(name), for the case-insensitive `query`.
-- ''-valued times are unknown (null on the wire). last_updated: maven-metadata.xml's lastUpdated ('' when
-- not given).
CREATE TABLE library_artifacts (
    uid TEXT COLLATE "C" PRIMARY KEY,
    parent TEXT COLLATE "C" NOT NULL DEFAULT '',
    kind INTEGER NOT NULL,
    name TEXT COLLATE "C" NOT NULL,
    search TEXT COLLATE "C" NOT NULL,
    latest_version TEXT COLLATE "C" NOT NULL,
    version_count INTEGER NOT NULL,
    create_time TEXT COLLATE "C" NOT NULL,
    update_time TEXT COLLATE "C" NOT NULL,
    last_updated TEXT COLLATE "C" NOT NULL DEFAULT '',
    body TEXT NOT NULL
);
CREATE INDEX library_artifacts_name ON library_artifacts (name, uid);
CREATE INDEX library_artifacts_create_time ON library_artifacts (create_time, uid);
CREATE INDEX library_artifacts_update_time ON library_artifacts (update_time, uid);
CREATE INDEX library_artifacts_version_count ON library_artifacts (version_count, uid);

-- Substring search (`query`) through trigrams where the pg_trgm extension can be had (a trusted extension
-- since PostgreSQL 13: the database owner may create it); without it, `query` scans the table.
DO $$
BEGIN
    CREATE EXTENSION IF NOT EXISTS pg_trgm;
EXCEPTION WHEN OTHERS THEN
    RAISE NOTICE 'pg_trgm is not available: libraries queries scan library_artifacts';
END
$$;
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN
        CREATE INDEX library_artifacts_search ON library_artifacts USING gin (search gin_trgm_ops);
    END IF;
END
$$;

-- uid: '<artifact uid>@<version>'. version_rank: the version's place among its artifact's versions in the
-- ecosystem's version order (0 = lowest), so that `order_by version` is version order. yanked: every
-- file of the version is yanked (PEP 592); such versions are not "latest" while another one is not.
CREATE TABLE library_versions (
    uid TEXT COLLATE "C" PRIMARY KEY,
    artifact TEXT COLLATE "C" NOT NULL,
    version TEXT COLLATE "C" NOT NULL,
    version_rank INTEGER NOT NULL,
    create_time TEXT COLLATE "C" NOT NULL,
    update_time TEXT COLLATE "C" NOT NULL,
    size_bytes INTEGER NOT NULL,
    yanked INTEGER NOT NULL DEFAULT 0,
    body TEXT NOT NULL
);
CREATE INDEX library_versions_rank ON library_versions (artifact, version_rank, uid);
CREATE INDEX library_versions_create_time ON library_versions (artifact, create_time, uid);
CREATE INDEX library_versions_update_time ON library_versions (artifact, update_time, uid);
CREATE INDEX library_versions_size ON library_versions (artifact, size_bytes, uid);
