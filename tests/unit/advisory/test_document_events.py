"""The feed's events are derived from the advisory event records (the one mapping of the YAML format's
events, `vulnerabilities.advisory_queries.event`): every event kind comes out as the contract's
DocumentEvent, field for field (the file fixes what the feed answered when it had a mapping of its own)."""

from __future__ import annotations

import json
from pathlib import Path

from platform_api.advisory import documents
from platform_api.formats import advisory_yaml as fmt

DATA = Path(__file__).resolve().parents[2] / "data" / "advisories-all"


def test_every_event_kind_reaches_the_feed_unchanged() -> None:
    path = DATA / "all.advisories.yaml"
    doc = fmt.parse(str(path), path.read_bytes())
    [entry] = documents.entries(doc, "wolfi")
    assert json.loads(entry) == json.loads((DATA / "expected-feed-entry.json").read_text())
