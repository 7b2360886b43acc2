"""Pinned fetches.

Transports (https, git, mirror) and the HTTP client under them (bounded in size, time and
redirects), the verified content-addressed cache, the lock's engine.
"""
