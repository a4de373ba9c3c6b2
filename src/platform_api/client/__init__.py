"""Clients of the server: the login helpers (`login`), and the typed client and CLI built on them."""
