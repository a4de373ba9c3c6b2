"""The registry's data plane: a Distribution registry beside this server. Its token service
(`/registry/token`: tokens.py), its notifications in (`/registry/notifications`: notifications.py), our
reads of its content (content.py) and the Distribution config `platform-api registry-config` writes
(config.py)."""
