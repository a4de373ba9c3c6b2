-- Issue 27 (4): v1 GetPackageVersionMetadata answers a package's end-of-life data by package name, with the time
-- it was last imported (`lastUpdatedTimestamp`). Rows imported before this migration have no time ('') until
-- their repo's data is imported again.
ALTER TABLE eol_cycles ADD COLUMN update_time TEXT NOT NULL DEFAULT '';
CREATE INDEX eol_cycles_package ON eol_cycles (package, update_time, repo);
