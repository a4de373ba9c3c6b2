-- Vulnerability advisories (vulnerabilities.v2 AdvisoriesService) and the public advisory feed's documents
-- (advisory.v2 SecurityAdvisoryService.ListDocuments), both filled by `platform-api import advisories`.

-- One row per advisory: uid = <group>/<16 hex derived from (package, advisory id)>, the filterable
-- fields as columns (every ListAdvisories filter is indexed SQL) and `body`, the Advisory as GET returns it.
CREATE TABLE advisories (
    uid TEXT PRIMARY KEY,
    parent TEXT NOT NULL,
    kind INTEGER NOT NULL DEFAULT 0,
    advisory_id TEXT NOT NULL,
    legacy_advisory_id TEXT NOT NULL DEFAULT '',
    artifact_name TEXT NOT NULL,
    artifact_type TEXT NOT NULL,
    artifact_architecture TEXT NOT NULL DEFAULT '',
    component_name TEXT NOT NULL DEFAULT '',
    component_type TEXT NOT NULL DEFAULT '',
    component_location TEXT NOT NULL DEFAULT '',
    -- EventTypeFilter number of the most recent approved event (0: none)
    latest_event_type INTEGER NOT NULL DEFAULT 0,
    -- lower-cased artifact name, component name and aliases, for `query` (substring)
    search TEXT NOT NULL DEFAULT '',
    -- hash of the imported content: an unchanged advisory is not rewritten
    digest TEXT NOT NULL DEFAULT '',
    create_time TEXT NOT NULL,
    update_time TEXT NOT NULL,
    body TEXT NOT NULL,
    UNIQUE (parent, artifact_name, advisory_id)
);
CREATE INDEX advisories_artifact_name ON advisories (artifact_name, uid);
CREATE INDEX advisories_advisory_id ON advisories (advisory_id);
CREATE INDEX advisories_component_name ON advisories (component_name);
CREATE INDEX advisories_latest_event_type ON advisories (latest_event_type, uid);
CREATE INDEX advisories_create_time ON advisories (create_time, uid);
CREATE INDEX advisories_update_time ON advisories (update_time, uid);

CREATE TABLE advisory_aliases (
    alias TEXT NOT NULL,
    advisory TEXT NOT NULL,
    PRIMARY KEY (alias, advisory)
);
CREATE INDEX advisory_aliases_advisory ON advisory_aliases (advisory);

-- The events' filterable facts (the events themselves are in the advisory's body).
CREATE TABLE advisory_events (
    uid TEXT PRIMARY KEY,
    advisory TEXT NOT NULL,
    type INTEGER NOT NULL,
    author TEXT NOT NULL DEFAULT '',
    reviewer TEXT NOT NULL DEFAULT '',
    review_state INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX advisory_events_advisory ON advisory_events (advisory);
CREATE INDEX advisory_events_type ON advisory_events (type, advisory);
CREATE INDEX advisory_events_author ON advisory_events (author, advisory);
CREATE INDEX advisory_events_reviewer ON advisory_events (reviewer, advisory);
CREATE INDEX advisory_events_review_state ON advisory_events (review_state, advisory);

-- The per-group counter (child_counts, tbl 'advisories') is kept by the import itself, one update per
-- import rather than a row trigger: 200,000 trigger updates of one counter row in one PostgreSQL
-- transaction grow its version chain quadratically. Advisories are deleted only with their group
-- (advisory_queries.delete_in_group), which removes the group's counter row with them.

-- The public feed: the latest imported document of each origin package (global, not per group).
CREATE TABLE advisory_documents (
    id TEXT PRIMARY KEY,
    digest TEXT NOT NULL,
    update_time TEXT NOT NULL,
    body TEXT NOT NULL
);
CREATE TABLE advisory_document_cves (
    cve TEXT NOT NULL,
    id TEXT NOT NULL,
    PRIMARY KEY (cve, id)
);
CREATE INDEX advisory_document_cves_id ON advisory_document_cves (id);
