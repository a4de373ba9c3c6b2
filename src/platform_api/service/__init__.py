"""What every domain uses: the runtime, the call context and @rpc registry, and listing (pages, visibility)."""
