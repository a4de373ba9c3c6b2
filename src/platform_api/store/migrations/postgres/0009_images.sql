-- Images (registry.v2.ImagesService), SBOM packages and vulnerability reports, per repo and digest;
-- filled by `platform-api import oci | sbom | vulnreport`.

-- One manifest or image index. size: config + layers for a manifest (reference 6.12), 0 for an index;
-- os/architecture/variant: a manifest's platform ('' when unknown); body: JSON facts (a manifest's
-- config digest and layer sizes, an index's children with their platforms).
CREATE TABLE images (
    repo TEXT COLLATE "C" NOT NULL,
    digest TEXT COLLATE "C" NOT NULL,
    media_type TEXT COLLATE "C" NOT NULL,
    is_index INTEGER NOT NULL,
    size BIGINT NOT NULL DEFAULT 0,
    os TEXT COLLATE "C" NOT NULL DEFAULT '',
    architecture TEXT COLLATE "C" NOT NULL DEFAULT '',
    variant TEXT COLLATE "C" NOT NULL DEFAULT '',
    body TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (repo, digest)
);

-- The SBOM of an image: its format and the sha256 of the packages recorded (unchanged re-imports write nothing).
CREATE TABLE sboms (
    repo TEXT COLLATE "C" NOT NULL,
    digest TEXT COLLATE "C" NOT NULL,
    format TEXT COLLATE "C" NOT NULL,
    packages_sha256 TEXT COLLATE "C" NOT NULL,
    import_time TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (repo, digest)
);
CREATE TABLE sbom_packages (
    repo TEXT COLLATE "C" NOT NULL,
    digest TEXT COLLATE "C" NOT NULL,
    name TEXT COLLATE "C" NOT NULL,
    version TEXT COLLATE "C" NOT NULL,
    purl TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (repo, digest, name, version, purl)
);
CREATE INDEX sbom_packages_name ON sbom_packages (name, version);

-- A scanner's report on an image: one per (repo, digest, generation time). body: the v1 VulnReport
-- JSON (without rawVulnReport and lastSeen); counts: JSON severity -> vulnerability ids; day: the
-- generation's UTC date, which the counts aggregate by.
CREATE TABLE vuln_reports (
    repo TEXT COLLATE "C" NOT NULL,
    digest TEXT COLLATE "C" NOT NULL,
    generated TEXT COLLATE "C" NOT NULL,
    day TEXT COLLATE "C" NOT NULL,
    raw_sha256 TEXT COLLATE "C" NOT NULL,
    last_seen TEXT COLLATE "C" NOT NULL,
    body TEXT COLLATE "C" NOT NULL,
    counts TEXT COLLATE "C" NOT NULL,
    raw BYTEA NOT NULL,
    PRIMARY KEY (repo, digest, generated)
);
CREATE INDEX vuln_reports_day ON vuln_reports (day, repo);

-- Tags by digest (the counts join reports to the tags naming their digest), and a repo's tags in uid
-- order: a page of ListTags by token in a repo of 1,000,000 tags is a range read, not a sort of them all.
CREATE INDEX tags_digest ON tags (digest, parent);
CREATE INDEX tags_parent_uid ON tags (parent, uid);

-- End-of-life data (v1 ListEolTags): a repo's main package and its release cycles (`import eol`).
-- body: the cycle's v1 PackageVersion JSON; ended: the cycle ended with no date given (`eol: true`).
CREATE TABLE eol_cycles (
    repo TEXT COLLATE "C" NOT NULL,
    cycle TEXT COLLATE "C" NOT NULL,
    package TEXT COLLATE "C" NOT NULL,
    body TEXT NOT NULL,
    ended INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (repo, cycle)
);
