"""Pinned fetches.

Transports (https, git, mirror) and the HTTP client under them (bounded in size, time and
redirects), the verified content-addressed cache, the lock's engine.
"""

# The default hosts, here so the transports and the engine's TransportChoice share them without
# the engine importing the transports (a warm run never loads them).
RAW_BASE = "https://raw.githubusercontent.com"
GIT_BASE = "https://github.com"

# Seconds every download of one command must finish within, together (fetch/http.py):
# the environment variable sets it for the CLI (tests use a few seconds).
ENV_DEADLINE = "PARAMDIFF_HTTP_DEADLINE"
DEFAULT_DEADLINE = 120.0
