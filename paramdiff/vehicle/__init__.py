"""A vehicle, or a running SITL, over MAVLink: its parameters as it holds them."""
