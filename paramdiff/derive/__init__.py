"""The pipeline's derive stage: the SITL file from the overlay's base and the overlay, with
provenance (derived.py); what SITL runs on top of the frame's defaults (layers.py); a running
vehicle or a firmware's defaults against those layers (running.py)."""
