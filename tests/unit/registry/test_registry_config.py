"""The Distribution config `registry-config` writes never sets a log level at which Distribution prints its
notification endpoints' headers (our secret): `info` and `debug` do (handlers/app.go, "configuring endpoint")."""

from __future__ import annotations

import pytest

from platform_api.core.setting_rules import Choice
from platform_api.core.settings import rule_of
from platform_api.registry.dataplane import config

LOG_LEVEL = rule_of("log_level")
assert isinstance(LOG_LEVEL, Choice)


@pytest.mark.parametrize("ours", LOG_LEVEL.options)
def test_the_registry_logs_at_warn_at_most(ours: str) -> None:
    doc = config.config(
        addr="127.0.0.1:5000", storage="/s", realm="http://x/registry/token", service="svc", issuer="http://x",
        bundle="/b.pem", log_level=ours, notify="http://x/registry/notifications", secret="s3cret",
    )  # fmt: skip
    assert doc["log"]["level"] in ("warn", "error")
    assert doc["notifications"]["endpoints"][0]["headers"] == {"Authorization": ["Bearer s3cret"]}
