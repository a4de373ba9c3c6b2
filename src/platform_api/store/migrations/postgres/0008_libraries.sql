-- Libraries: artifacts (Python projects, Maven artifacts) and their versions. Global data, not owned by
-- any group: `platform-api import libraries` writes them, ArtifactsService reads them.

-- uid: 'python:<PEP 503 name>' or 'java:<groupId>:<artifactId>'. ecosystem: 1 java, 2 python (the
-- contract's enum numbers). search: lower(name), for the case-insensitive `query`. ''-valued times are
-- unknown (null on the wire). last_updated: maven-metadata.xml's lastUpdated ('' when not given).
CREATE TABLE library_artifacts (
    uid TEXT COLLATE "C" PRIMARY KEY,
    ecosystem INTEGER NOT NULL,
    name TEXT COLLATE "C" NOT NULL,
    search TEXT COLLATE "C" NOT NULL,
    latest_version TEXT COLLATE "C" NOT NULL,
    version_count INTEGER NOT NULL,
    create_time TEXT COLLATE "C" NOT NULL,
    update_time TEXT COLLATE "C" NOT NULL,
    last_updated TEXT COLLATE "C" NOT NULL DEFAULT '',
    body TEXT NOT NULL
);
CREATE INDEX library_artifacts_name ON library_artifacts (ecosystem, name, uid);
CREATE INDEX library_artifacts_name_all ON library_artifacts (name, uid);
CREATE INDEX library_artifacts_create_time ON library_artifacts (create_time, uid);
CREATE INDEX library_artifacts_update_time ON library_artifacts (update_time, uid);

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
