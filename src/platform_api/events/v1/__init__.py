"""Events' v1 calls (`chainguard.platform.events.Subscriptions`, `/events/v1/subscriptions`): adapters over the
v2 implementations (service/v1.py says how the dialects differ)."""
