-- A pending browser login no longer lives on the server (iam/login_state.py): it travels sealed in the
-- browser's cookie, and only its spent `state` is kept, keyed by a hash, until the sealed login expires, so
-- that a state is used once on every process. Pending logins stored before this are dropped with their table
-- (a login begun before the upgrade is started again).
DROP TABLE login_sessions;
CREATE TABLE login_spent_states (
    state_hash TEXT PRIMARY KEY,
    expire_time TEXT NOT NULL
);
CREATE INDEX login_spent_states_expire ON login_spent_states (expire_time);

-- A finished headless login is released only with the confirmation code its browser showed (a hash of it
-- here), after at most 5 wrong ones; once read or given up, `encrypted` is emptied and the row stays until it
-- expires, so that a second browser finishing a login for the same code is told the code was used. Results
-- sealed before this cannot be opened by the new client (the code is in their associated data): dropped.
DELETE FROM headless_sessions;
ALTER TABLE headless_sessions ADD COLUMN confirmation_hash TEXT NOT NULL DEFAULT '';
ALTER TABLE headless_sessions ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
