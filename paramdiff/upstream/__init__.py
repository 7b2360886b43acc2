"""Pinned fetches.

Transports (https, git, mirror), the verified content-addressed cache, the lock's engine.
"""
