-- Issue 26 (1): until this release a login through an organization's identity provider could yield another
-- organization's person (the identity was derived from the upstream issuer and subject alone). Any refresh
-- token may have been obtained so, and renews itself: every one is revoked, and people sign in once more.
DELETE FROM refresh_tokens;
