"""The data model every stage shares.

Parameters with provenance, values as ArduPilot stores them, sources, metadata.
"""
