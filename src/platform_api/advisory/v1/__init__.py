"""The advisory feed's v1 calls (`chainguard.platform.advisory.SecurityAdvisory`, `/advisory/v1/...`):
adapters over the v2 implementations (service/v1.py says how the dialects differ)."""
