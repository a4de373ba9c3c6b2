-- Issue 9: our messages now carry the published contract's names (chainguard.platform.<domain>.v2.*).
-- Events recorded before the upgrade name their body with the old package; rename them so that every
-- delivery, old or new, sends the same Ce-Bodytype for the same message.
UPDATE events SET bodytype = 'chainguard.' || bodytype WHERE bodytype LIKE 'platform.%';
