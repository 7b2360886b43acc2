"""A vehicle, or a running SITL, over MAVLink: its parameters as it holds them."""

PULL_TIMEOUT = 120.0  # seconds for a whole pull, connection to last parameter (--timeout)
