-- Issue 16: the public advisory routes do bounded work.

-- The feed's documents as one row per advisory (advisory.documents): the `cves` filter reads only the
-- advisories its index names, and every answer knows its size in bytes before it reads them.
CREATE TABLE advisory_document_entries (
    id TEXT NOT NULL,           -- the document (origin package)
    position INTEGER NOT NULL,  -- the advisory's place in the document, from 0
    size INTEGER NOT NULL,      -- bytes of body
    body TEXT NOT NULL,         -- the DocumentAdvisory as the feed answers it
    PRIMARY KEY (id, position)
);
CREATE TABLE advisory_document_entry_cves (
    cve TEXT NOT NULL,
    id TEXT NOT NULL,
    position INTEGER NOT NULL,
    PRIMARY KEY (cve, id, position)
);
CREATE INDEX advisory_document_entry_cves_id ON advisory_document_entry_cves (id);

-- Documents already imported: their advisories become rows, in order, and their CVE aliases the index.
INSERT INTO advisory_document_entries (id, position, size, body)
SELECT d.id, a.key, length(CAST(a.value AS BLOB)), a.value
FROM advisory_documents d, json_each(d.body, '$.advisories') a;
INSERT INTO advisory_document_entry_cves (cve, id, position)
SELECT DISTINCT al.value, e.id, e.position
FROM advisory_document_entries e, json_each(e.body, '$.aliases') al
WHERE substr(al.value, 1, 4) = 'CVE-';
DROP TABLE advisory_document_cves;
ALTER TABLE advisory_documents DROP COLUMN body;

-- Vulnerability metadata (vulnerabilities.metadata): each record's size in bytes, so that a page of
-- ListVulnerabilityMetadata stops at its byte budget before reading the records beyond it.
ALTER TABLE vulnerability_metadata ADD COLUMN size INTEGER NOT NULL DEFAULT 0;
UPDATE vulnerability_metadata SET size = length(CAST(body AS BLOB));
