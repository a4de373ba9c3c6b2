"""`platformctl`: the command-line client (docs/platformctl.md), a thin layer over platform_api.client."""
