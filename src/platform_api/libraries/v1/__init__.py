"""Libraries' v1 calls (`chainguard.platform.libraries.Artifacts`, `/libraries/v1/artifacts`): adapters over the
v2 implementations (service/v1.py says how the dialects differ). `chainguard.platform.libraries.Entitlements`
is product-only and stays unserved (UNIMPLEMENTED)."""
