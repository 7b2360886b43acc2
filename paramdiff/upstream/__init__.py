"""Pinned fetches.

Transports (https, git, mirror) and the HTTP client under them (bounded in size, time and
redirects), the verified content-addressed cache, the lock's engine.
"""

# The default hosts, here so the transports and the engine's TransportChoice share them without
# the engine importing the transports (a warm run never loads them).
RAW_BASE = "https://raw.githubusercontent.com"
GIT_BASE = "https://github.com"
