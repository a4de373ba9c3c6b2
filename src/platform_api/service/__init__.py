"""What every domain uses on top of the store."""
