"""Vulnerabilities' v1 calls (`chainguard.platform.vulnerabilities.v1.*`, `/vulnerabilities/v1/...`): adapters
over the v2 implementations and the authoring rules (service/v1.py says how the dialects differ)."""
