"""Reaching upstream: transports, the cache and what it has verified, fetch."""
