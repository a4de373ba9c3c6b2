"""`platformctl`: the command-line client (README "platformctl"), a thin layer over platform_api.client."""
