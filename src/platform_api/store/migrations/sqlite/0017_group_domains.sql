-- Issue 19 (1b): joining your company's organization (iam/domains.py owns both tables).

-- E-mail domains of root organizations: challenged (state 0, awaiting the DNS TXT record `token` names) or
-- verified (state 1). A domain is verified for at most one organization (the partial unique index).
CREATE TABLE group_domains (
    group_uid TEXT NOT NULL,
    domain TEXT NOT NULL,
    state INTEGER NOT NULL,
    token TEXT NOT NULL,
    create_time TEXT NOT NULL,
    verify_time TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (group_uid, domain)
);
CREATE UNIQUE INDEX group_domains_verified ON group_domains (domain) WHERE state = 1;

-- The last access request of an identity to an organization (RequestGroupAccess): the cool-down reads it,
-- the organization's administrators list them. No e-mail is copied here: it stays on the identity.
CREATE TABLE group_access_requests (
    group_uid TEXT NOT NULL,
    identity_uid TEXT NOT NULL,
    request_time TEXT NOT NULL,
    PRIMARY KEY (group_uid, identity_uid)
);
CREATE INDEX group_access_requests_time ON group_access_requests (group_uid, request_time);
CREATE INDEX group_access_requests_identity ON group_access_requests (identity_uid);
