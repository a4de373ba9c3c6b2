-- The SBOM document as imported (v1 GetRawSbom, and what GetSbom answers of it: tool, authors, time, name),
-- with its sha256 (a re-import of the same packages in another document replaces it). NULL for the SBOMs
-- imported before this version: their documents were not kept (GetRawSbom answers FAILED_PRECONDITION).
ALTER TABLE sboms ADD COLUMN raw BYTEA;
ALTER TABLE sboms ADD COLUMN raw_sha256 TEXT COLLATE "C";
