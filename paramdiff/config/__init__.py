"""The project's own files.

sources.yaml, overlays and sources.lock, read with line numbers for errors.
"""
