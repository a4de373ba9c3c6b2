"""The Prometheus text exposition (`/metrics`) read back as samples, for assertions on one of them."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families

# (sample name, its labels) -> value
Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def parse_metrics(text: str) -> Samples:
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def metric(samples: Samples, name: str, **labels: str) -> float:
    """The value of one sample (0 when it is absent, as Prometheus reads a counter not yet incremented)."""
    return samples.get((name, frozenset(labels.items())), 0.0)
