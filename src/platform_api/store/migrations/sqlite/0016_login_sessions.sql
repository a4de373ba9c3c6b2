-- Human login at our issuer (iam/login.py). A pending browser login lives here between GET /oauth and the
-- provider's return to GET /oauth/callback: keyed by a hash of its `state`, taken once (DELETE ... RETURNING,
-- so two processes cannot both finish it), expiring after 10 minutes. `data` holds the PKCE verifier, the
-- nonce and the client's parameters as JSON.
CREATE TABLE login_sessions (
    state_hash TEXT PRIMARY KEY,
    data TEXT NOT NULL,
    create_time TEXT NOT NULL,
    expire_time TEXT NOT NULL
);
CREATE INDEX login_sessions_expire ON login_sessions (expire_time);

-- Headless logins: the result of a finished login, encrypted for the public key the CLI sent (headless_code),
-- keyed by a hash of that code, read once by GET /sts/headless_sessions.
CREATE TABLE headless_sessions (
    code_hash TEXT PRIMARY KEY,
    ecdh_public_key TEXT NOT NULL,
    encrypted TEXT NOT NULL,
    expire_time TEXT NOT NULL
);
CREATE INDEX headless_sessions_expire ON headless_sessions (expire_time);
